"""The desktop packaging around the PyInstaller build: the runtime hook, the Linux tarball and its install
scripts, the launcher of the menu entry, and the Windows installer script.

The Linux scripts run for real on a stand-in build (a small program named Daemon that answers
`--version` and serves `gui` on a port until SIGTERM), installed into a temporary prefix with a temporary
XDG data folder. The Inno Setup script cannot be compiled here (no Windows); its settings are read.
"""

from __future__ import annotations

import configparser
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from types import ModuleType

import pytest

from app import VERSION

ROOT = Path(__file__).resolve().parents[2]
LINUX = ROOT / "installer" / "linux"
FAKE_DAEMON = """#!{python}
import http.server, os, pathlib, signal, sys
args = sys.argv[1:]
if args == ["--version"]:
    print("Daemon {version}")
    sys.exit(0)
if args[:1] == ["gui"]:
    port = int(args[args.index("--port") + 1])
    def stop(*_):
        pathlib.Path(os.environ["FAKE_MARKER"]).write_text("SIGTERM")
        sys.exit(143)
    signal.signal(signal.SIGTERM, stop)
    http.server.HTTPServer(("127.0.0.1", port), http.server.BaseHTTPRequestHandler).serve_forever()
sys.exit(2)
"""


def load_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pyi_rth_daemon", ROOT / "installer" / "pyi_rth_daemon.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not frozen: defines the functions, changes nothing
    return module


# ---- the runtime hook ----


def test_the_hook_sets_defaults_without_overriding_the_users_choice() -> None:
    hook = load_hook()
    env: dict[str, str] = {"HF_HUB_OFFLINE": "0"}
    argv = hook.apply(env, ["/opt/Daemon/Daemon", "ask", "hi"], "/opt/Daemon/_internal")
    assert argv == ["/opt/Daemon/Daemon", "ask", "hi"]
    assert env["HF_HUB_OFFLINE"] == "0"  # the user's own setting stays
    assert env["TRANSFORMERS_OFFLINE"] == "1" and env["GRADIO_ANALYTICS_ENABLED"] == "False"
    assert "DAEMON_DATA_DIR" not in env  # the app's own default, the per-user folder, applies as everywhere


def test_a_self_spawn_of_main_py_runs_the_frozen_app_with_the_same_arguments() -> None:
    hook = load_hook()
    bundle = "/opt/Daemon/_internal"
    spawned = ["/opt/Daemon/Daemon", f"{bundle}/main.py", "--data-dir", "/d", "ingest", "--resume"]
    assert hook.strip_script_argument(spawned, bundle) == [
        "/opt/Daemon/Daemon",
        "--data-dir",
        "/d",
        "ingest",
        "--resume",
    ]
    typed = ["/opt/Daemon/Daemon", "ingest", "/home/ana/main.py"]  # a user's file is an argument, kept
    assert hook.strip_script_argument(typed, bundle) == typed


# ---- the Linux tarball and its scripts ----


def fake_build(dist: Path) -> Path:
    app = dist / "Daemon" / "Daemon"
    (dist / "Daemon" / "_internal").mkdir(parents=True)
    app.write_text(FAKE_DAEMON.format(python=sys.executable, version=VERSION))
    app.chmod(0o755)
    return app


def run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, check=False)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def unpacked(tmp_path: Path) -> Path:
    """The tarball make_tarball.sh builds from a stand-in build, unpacked."""
    fake_build(tmp_path / "dist")
    tarball = Path(
        run([str(LINUX / "make_tarball.sh"), str(tmp_path / "dist"), str(tmp_path / "out")]).stdout.strip()
    )
    assert tarball.name.startswith("daemon-") and tarball.name.endswith(".tar.gz")
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp_path / "unpacked", filter="tar")
    (folder,) = (tmp_path / "unpacked").iterdir()
    return folder


class CaseSensitiveParser(configparser.ConfigParser):
    """Desktop-entry keys are case-sensitive; ConfigParser lower-cases them by default."""

    def optionxform(self, optionstr: str) -> str:
        return optionstr


def validate_desktop_file(path: Path) -> None:
    if shutil.which("desktop-file-validate"):
        run(["desktop-file-validate", str(path)])
    parser = CaseSensitiveParser(interpolation=None)
    parser.read(path)
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Name"] == "Daemon" and entry["Icon"] == "daemon"
    executable = Path(entry["Exec"].split()[0])
    assert executable.is_absolute() and os.access(executable, os.X_OK), entry["Exec"]


@pytest.mark.integration
def test_the_tarball_installs_into_a_prefix_and_uninstalls_keeping_the_data(
    unpacked: Path, tmp_path: Path
) -> None:
    prefix, xdg = tmp_path / "prefix", tmp_path / "xdg"
    env = {**os.environ, "XDG_DATA_HOME": str(xdg)}
    env.pop("DAEMON_DATA_DIR", None)
    run([str(unpacked / "install.sh"), "--prefix", str(prefix)], env)
    lib = prefix / "lib" / "daemon"
    desktop = prefix / "share" / "applications" / "daemon.desktop"
    assert (prefix / "share/icons/hicolor/scalable/apps/daemon.svg").is_file()
    validate_desktop_file(desktop)
    assert f"Exec={lib}/daemon-gui" in desktop.read_text()
    assert run([str(prefix / "bin" / "daemon"), "--version"]).stdout.startswith("Daemon ")

    (xdg / "daemon").mkdir(parents=True)
    (xdg / "daemon" / "journal.sqlite3").write_text("the user's words")
    run([str(lib / "uninstall.sh")], env)
    assert not lib.exists() and not desktop.exists() and not (prefix / "bin" / "daemon").exists()
    assert (xdg / "daemon" / "journal.sqlite3").read_text() == "the user's words"

    run([str(unpacked / "install.sh"), "--prefix", str(prefix)], env)  # a reinstall finds the data again
    run([str(lib / "uninstall.sh"), "--purge"], env)
    assert not (xdg / "daemon").exists()


@pytest.mark.integration
def test_install_refuses_a_folder_without_the_build(tmp_path: Path) -> None:
    loose = tmp_path / "loose"
    loose.mkdir()
    shutil.copy(LINUX / "install.sh", loose / "install.sh")
    done = subprocess.run(
        [str(loose / "install.sh"), "--prefix", str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.startswith("error:")
    assert not (tmp_path / "p" / "lib").exists()


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.integration
def test_the_menu_launcher_opens_the_browser_and_stops_the_app_with_sigterm(tmp_path: Path) -> None:
    app = fake_build(tmp_path / "dist")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    opened = tmp_path / "opened"
    xdg_open = bin_dir / "xdg-open"
    xdg_open.write_text(f'#!/bin/sh\necho "$1" > "{opened}"\n')
    xdg_open.chmod(0o755)
    marker, port = tmp_path / "terminated", _free_port()
    env = {
        **os.environ,
        "DAEMON_APP": str(app),
        "DAEMON_GUI__PORT": str(port),
        "FAKE_MARKER": str(marker),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }
    launcher = subprocess.Popen(
        [str(LINUX / "daemon-gui")],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
        # As a terminal starts it: with SIGHUP at its default. A shell started with SIGHUP ignored (pytest
        # run under nohup) cannot trap it, and the launcher would rightly keep running as nohup asked.
        preexec_fn=lambda: signal.signal(signal.SIGHUP, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not opened.exists():
            time.sleep(0.1)
        assert opened.read_text().strip() == f"http://127.0.0.1:{port}/"
        launcher.send_signal(signal.SIGHUP)  # the terminal of the menu entry closes
        launcher.wait(timeout=60)
    finally:
        if launcher.poll() is None:
            launcher.kill()
    assert marker.read_text() == "SIGTERM"
    assert launcher.returncode == 143


# ---- the Windows installer script ----


def read_iss() -> tuple[dict[str, str], dict[str, list[str]]]:
    """The #define values and the lines of each [Section] of installer/daemon.iss."""
    defines = dict(
        re.findall(r'^#define (\w+) "([^"]*)"', (ROOT / "installer" / "daemon.iss").read_text(), re.M)
    )
    sections: dict[str, list[str]] = {}
    current = ""
    for raw in (ROOT / "installer" / "daemon.iss").read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith(";") or line.startswith("#"):
            continue
        if re.fullmatch(r"\[\w+\]", line):
            current = line[1:-1]
            sections[current] = []
        elif current:
            sections[current].append(line)
    return defines, sections


def test_the_windows_installer_is_per_user_and_ships_the_build() -> None:
    defines, sections = read_iss()
    setup = dict(line.split("=", 1) for line in sections["Setup"])
    assert setup["PrivilegesRequired"] == "lowest"
    assert setup["DefaultDirName"].startswith("{localappdata}\\Programs")
    assert defines["AppVersion"] == VERSION
    assert any(line.startswith('Source: "..\\dist\\Daemon\\*"') for line in sections["Files"])
    icons = " ".join(sections["Icons"])
    assert "{userprograms}" in icons and "{userdesktop}" in icons and "{uninstallexe}" in icons
    assert "{commonprograms}" not in icons and "{commondesktop}" not in icons


def test_the_windows_uninstaller_deletes_user_data_only_when_asked() -> None:
    defines, sections = read_iss()
    data_dir = defines["DataDir"].replace("{localappdata}", "C:/L").replace("\\", "/")
    assert Path(data_dir) == Path("C:/L/Daemon")  # where core/data_dir.py puts it on Windows (platformdirs)
    assert all("{localappdata}\\Daemon" not in line for line in sections["UninstallDelete"])
    code = "\n".join(sections["Code"])
    assert "MB_DEFBUTTON2" in code and "= IDYES" in code  # the default answer keeps the data
    assert re.search(r"not UninstallSilent\) and DeleteUserData\(Folder\)", code)
    assert "DelTree(Folder" in code
