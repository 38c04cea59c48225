"""The container files as Docker would read them, checked without a Docker engine (none runs here).

docker-compose.yml is parsed with PyYAML and held to the packaging rules: the app and a Chroma server of
the client's own version, named volumes, ports on 127.0.0.1 only, Chroma unpublished on an internal
network, a login required for the 0.0.0.0 bind. The app's compose environment is fed to Daemon's real
config loader and bind check, and the Dockerfile's HEALTHCHECK command is run against a local server.
"""

from __future__ import annotations

import http.server
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
import yaml

from core.config import load_config
from core.errors import ConfigError
from ui.shared.security import check_bind, parse_auth

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
GUI_PORT = 7860


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load(COMPOSE.read_text())
    assert isinstance(loaded, dict)
    return loaded


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of the Dockerfile, continuation lines joined, comments dropped."""
    lines: list[str] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        lines.append(pending + line)
        pending = ""
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction, args in dockerfile_instructions():
        if instruction == "ENV":
            env.update(dict(re.findall(r"(\w+)=(\S+)", args)))
    return env


def test_compose_names_the_app_and_a_chroma_server_of_the_clients_version(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"daemon", "chroma"}
    image, tag = services["chroma"]["image"].rsplit(":", 1)
    assert image == "chromadb/chroma"
    assert tag == version("chromadb")  # the server speaks the pinned client's API


def test_compose_publishes_the_gui_on_loopback_only_and_never_chroma(compose: dict[str, Any]) -> None:
    services = compose["services"]
    ports = services["daemon"]["ports"]
    assert ports, "the GUI must be reachable from this machine"
    for mapping in ports:
        resolved = re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", str(mapping))  # compose's defaults, nothing set
        host_ip, host_port, container_port = resolved.split(":")
        assert host_port.isdigit(), mapping
        assert host_ip == "127.0.0.1", mapping
        assert container_port == str(GUI_PORT)
    assert "ports" not in services["chroma"] and "expose" not in services["chroma"]
    networks = compose["networks"]
    assert services["chroma"]["networks"] == ["backend"]
    assert networks["backend"]["internal"] is True  # no route out, nothing published
    assert "backend" in services["daemon"]["networks"]


def test_compose_keeps_data_and_chroma_in_named_volumes(compose: dict[str, Any]) -> None:
    declared = set(compose["volumes"])
    mounts = {
        name: dict(volume.split(":", 1) for volume in service["volumes"])
        for name, service in compose["services"].items()
    }
    assert mounts["daemon"] == {"daemon-data": "/data"}
    assert mounts["chroma"] == {"chroma-data": "/data"}
    assert declared == {"daemon-data", "chroma-data"}
    assert compose["services"]["daemon"]["environment"]["DAEMON_DATA_DIR"] == "/data"


def test_compose_services_restart_with_limits_and_a_healthcheck(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        assert service["restart"] == "unless-stopped", name
        limits = service["deploy"]["resources"]["limits"]
        assert limits["memory"] and limits["cpus"], name
    daemon = compose["services"]["daemon"]
    assert any("/health" in part for part in daemon["healthcheck"]["test"])
    assert daemon["env_file"] == [{"path": ".env", "required": False}]
    grace = daemon["stop_grace_period"]
    assert grace.endswith("m") and int(grace[:-1]) >= 1  # session-end needs longer than Docker's 10 s


def test_compose_environment_configures_daemon_for_the_chroma_service(compose: dict[str, Any]) -> None:
    env = {k: str(v) for k, v in compose["services"]["daemon"]["environment"].items() if "${" not in str(v)}
    config = load_config(None, {**dockerfile_env(), **env})
    assert config.memory.chroma_host == "chroma"
    assert config.memory.chroma_port == 8000  # the port the chromadb/chroma image serves on
    assert str(config.data_dir) == "/data"
    assert config.gui.host == "0.0.0.0"


def test_the_containers_open_bind_needs_the_login_compose_demands(compose: dict[str, Any]) -> None:
    required = compose["services"]["daemon"]["environment"]["DAEMON_GUI_AUTH"]
    assert re.fullmatch(r"\$\{DAEMON_GUI_AUTH:\?[^}]+\}", required)  # compose stops when unset or empty
    host = dockerfile_env()["DAEMON_GUI__HOST"]
    with pytest.raises(ConfigError, match="DAEMON_GUI_AUTH"):
        check_bind(host, parse_auth(None))
    check_bind(host, parse_auth("me:a-long-password"))


def test_dockerfile_is_multistage_non_root_offline_with_cpu_torch() -> None:
    instructions = dockerfile_instructions()
    froms = [args for name, args in instructions if name == "FROM"]
    assert len(froms) >= 2 and all(f.startswith("${PYTHON_IMAGE}") for f in froms)
    assert "ARG PYTHON_IMAGE=python:3.11-slim" in DOCKERFILE.read_text()
    users = [args for name, args in instructions if name == "USER"]
    assert users and users[-1] not in ("root", "0")
    env = dockerfile_env()
    assert env["HF_HUB_OFFLINE"] == "1" and env["TRANSFORMERS_OFFLINE"] == "1"
    assert env["GRADIO_ANALYTICS_ENABLED"] == "False"
    assert env["DAEMON_DATA_DIR"] == "/data"
    assert env["TORCH_INDEX_URL"] == "https://download.pytorch.org/whl/cpu"
    runs = " ".join(args for name, args in instructions if name == "RUN")
    assert "installer/image_install.sh" in runs  # the same script CI runs (test_packaging_install.py)
    assert "installer/check_offline.py" in runs
    assert "bubblewrap" in runs and "tini" in runs


def test_dockerfile_entrypoint_execs_the_app_under_tini() -> None:
    instructions = dict(dockerfile_instructions())
    assert json.loads(instructions["ENTRYPOINT"]) == [
        "/usr/bin/tini",
        "--",
        "/app/installer/docker-entrypoint.sh",
    ]
    assert json.loads(instructions["CMD"]) == ["gui"]
    script = (ROOT / "installer" / "docker-entrypoint.sh").read_text()
    assert re.search(r'^exec "\$python" "\$app_dir/main.py" "\$@"$', script, re.MULTILINE)
    assert os.access(ROOT / "installer" / "docker-entrypoint.sh", os.X_OK)


def test_dockerignore_keeps_secrets_and_personal_data_out_of_the_image() -> None:
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".env", "data/user", ".venv", ".git"} <= ignored


def test_env_example_names_the_keys_compose_and_daemon_read() -> None:
    names = {
        line.split("=", 1)[0].lstrip("# ").strip()
        for line in (ROOT / ".env.example").read_text().splitlines()
        if "=" in line
    }
    assert {"DAEMON_GUI_AUTH", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"} <= names


class _Health(http.server.BaseHTTPRequestHandler):
    status = 200

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        code = self.status if self.path == "/health" else 404
        self.send_response(code)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def health_server() -> Iterator[http.server.ThreadingHTTPServer]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def run_healthcheck(port: int) -> int:
    """The Dockerfile's HEALTHCHECK command, as the container would run it, against `port`."""
    args = dict(dockerfile_instructions())["HEALTHCHECK"]
    command = json.loads(args[args.index("CMD") + 3 :].strip())
    assert command[0] == "python"
    env = {**os.environ, "DAEMON_GUI__PORT": str(port)}
    done = subprocess.run(
        [sys.executable, *command[1:]], env=env, capture_output=True, timeout=60, check=False
    )
    return done.returncode


def test_dockerfile_healthcheck_passes_on_a_healthy_gui_and_fails_otherwise(
    health_server: http.server.ThreadingHTTPServer,
) -> None:
    port = int(health_server.server_address[1])
    assert run_healthcheck(port) == 0
    _Health.status = 503
    try:
        assert run_healthcheck(port) != 0
    finally:
        _Health.status = 200
    health_server.shutdown()
    health_server.server_close()
    assert run_healthcheck(port) != 0  # nothing listening
