"""Prove that a fresh install answers with the embedded defaults and fetches nothing.

Run by `installer/image_install.sh` (and so by the Docker build) and by `installer/build.py` on the frozen
app: one `ask` with the embedded model in a throw-away data dir, the Hugging Face hub switched off and every
HTTP(S) proxy pointed at a closed loopback port, so a download attempt fails the answer instead of passing
unnoticed. It loads MiniLM (the memory write), spaCy (reading the message) and SmolLM2 (the answer).

    python installer/check_offline.py                 # this interpreter, ../main.py
    python installer/check_offline.py --app PATH      # a built binary (installer/build.py)

Exit 0 and one JSON line (`model`, `seconds`) when the embedded model answered; 1 with the reason otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REMOTE_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_BASE_URL")
LOOPBACK = "127.0.0.1,localhost,::1"
CLOSED_PROXY = "http://127.0.0.1:9"  # the discard port: nothing listens, so any request fails at once
EMBEDDED_MODEL_PREFIX = "smollm2"
QUESTION = "Say hello in one short sentence."


def offline_env(data_dir: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of an offline run: hub off, proxies closed, the embedded model chosen."""
    env = dict(os.environ if base is None else base)
    for name in REMOTE_KEYS:
        env.pop(name, None)  # a key in the builder's environment must not pick a remote model
    env.update(
        {
            "DAEMON_DATA_DIR": str(data_dir),
            # the model's converted copy too: the check reads the GGUF file as a first start does
            "DAEMON_CACHE_DIR": str(data_dir / "cache"),
            "DAEMON_PROVIDER": "local",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "GRADIO_ANALYTICS_ENABLED": "False",
            "HTTP_PROXY": CLOSED_PROXY,
            "HTTPS_PROXY": CLOSED_PROXY,
            "http_proxy": CLOSED_PROXY,
            "https_proxy": CLOSED_PROXY,
            # loopback stays direct: the GUI checks its own server over HTTP when it starts
            "NO_PROXY": LOOPBACK,
            "no_proxy": LOOPBACK,
        }
    )
    return env


def ask_offline(command: list[str], timeout_s: float = 900.0) -> dict[str, object]:
    """Run `command + ask QUESTION --json` offline in a temporary data dir; the parsed answer object."""
    with tempfile.TemporaryDirectory(prefix="daemon-offline-") as folder:
        started = time.monotonic()
        done = subprocess.run(
            [*command, "ask", QUESTION, "--json"],
            capture_output=True,
            text=True,
            env=offline_env(Path(folder) / "data"),
            cwd=folder,  # no `.env` of the caller's is read
            timeout=timeout_s,
            check=False,
        )
        seconds = time.monotonic() - started
    if done.returncode != 0:
        raise RuntimeError(f"ask exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    reply = json.loads(done.stdout)
    model = str(reply.get("model", ""))
    if reply.get("exit_reason") != "answer" or not model.startswith(EMBEDDED_MODEL_PREFIX):
        raise RuntimeError(f"the embedded model did not answer: {done.stdout.strip()[:500]}")
    return {"model": model, "seconds": round(seconds, 1), "answer": reply.get("answer", "")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--app", type=Path, help="a built Daemon binary (default: this Python on main.py)")
    args = parser.parse_args(argv)
    command = [str(args.app)] if args.app else [sys.executable, str(ROOT / "main.py")]
    try:
        result = ask_offline(command)
    except (RuntimeError, ValueError, subprocess.TimeoutExpired) as error:
        print(f"error: offline check failed: {error}", file=sys.stderr)
        return 1
    print(json.dumps({"model": result["model"], "seconds": result["seconds"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
