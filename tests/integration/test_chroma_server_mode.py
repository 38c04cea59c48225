"""Daemon in server mode, as docker-compose.yml runs it, against a real `chroma run` server on 127.0.0.1.

The server is the chromadb package's own CLI (the same Rust server as the `chromadb/chroma` image of the
pinned version). Daemon gets the compose file's own environment keys for the store, with the compose
host name `chroma` replaced by the loopback address and the port by the test server's. A turn answered
by `ask` must land in the server (read back with chromadb's client and with `memory search`), and the
data dir must hold no embedded store.

Chroma 1.x's server has no authentication (its 0.x `CHROMA_SERVER_AUTHN_*` settings are ignored), which
is why the compose file isolates it on an internal network instead of giving it a token; the last test
keeps that fact checked, so a Chroma upgrade that starts enforcing tokens is noticed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import yaml

from tests.contract.store_fixtures import (  # noqa: F401 - the import registers the fixture
    CHROMA_CLI,
    ChromaServer,
    _free_port,
    _stop,
    _wait_for_heartbeat,
    chroma_server_fixture,
)

ROOT = Path(__file__).resolve().parents[2]
ECHO_CONFIG = "models:\n  main: echo\nproviders:\n  echo:\n    kind: echo\n    model: echo\n"
SENTENCE = "I keep my green bicycle in the garden shed behind the house."

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def server_mode_env(server: ChromaServer, data_dir: Path) -> dict[str, str]:
    """The environment the compose file gives the app, pointed at the test server instead of `chroma`."""
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    environment = compose["services"]["daemon"]["environment"]
    store = {key: str(value) for key, value in environment.items() if key.startswith("DAEMON_MEMORY__CHROMA")}
    assert store == {"DAEMON_MEMORY__CHROMA_HOST": "chroma", "DAEMON_MEMORY__CHROMA_PORT": "8000"}
    store["DAEMON_MEMORY__CHROMA_HOST"] = server.host
    store["DAEMON_MEMORY__CHROMA_PORT"] = str(server.port)
    return {**os.environ, **store, "DAEMON_DATA_DIR": str(data_dir)}


def daemon(args: list[str], env: dict[str, str], cwd: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, str(ROOT / "main.py"), "--config", str(cwd / "echo.yaml"), *args, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    reply = json.loads(done.stdout)
    assert isinstance(reply, dict)
    return reply


def test_a_turn_in_server_mode_is_stored_on_the_chroma_server(
    chroma_server: ChromaServer, tmp_path: Path
) -> None:
    import chromadb
    from chromadb.config import Settings

    (tmp_path / "echo.yaml").write_text(ECHO_CONFIG)
    data = tmp_path / "data"
    env = server_mode_env(chroma_server, data)

    answer = daemon(["ask", SENTENCE], env, tmp_path)
    assert answer["exit_reason"] == "answer"

    client = chromadb.HttpClient(
        host=chroma_server.host, port=chroma_server.port, settings=Settings(anonymized_telemetry=False)
    )
    stored = client.get_collection("conversations").get(include=["documents"])
    assert any("green bicycle" in (text or "") for text in stored["documents"] or [])
    assert not (data / "chroma").exists() or not any((data / "chroma").iterdir())  # nothing embedded

    found = daemon(
        ["memory", "search", "where is the bicycle", "--collection", "conversations"], env, tmp_path
    )
    results = found["results"]
    assert isinstance(results, list) and results
    assert "green bicycle" in json.dumps(results[0])


def test_the_chroma_server_ignores_token_settings(tmp_path: Path) -> None:
    if not CHROMA_CLI.exists():
        pytest.skip(f"no chroma CLI at {CHROMA_CLI}")
    port = _free_port()
    env = {
        **os.environ,
        "CHROMA_SERVER_AUTHN_PROVIDER": "chromadb.auth.token_authn.TokenAuthenticationServerProvider",
        "CHROMA_SERVER_AUTHN_CREDENTIALS": "a-token-nobody-sends",
    }
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(
            [
                str(CHROMA_CLI),
                "run",
                "--path",
                str(tmp_path / "data"),
                "--port",
                str(port),
                "--host",
                "127.0.0.1",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
        )
        try:
            assert _wait_for_heartbeat(process, port, timeout=60), (tmp_path / "server.log").read_text()[
                -2000:
            ]
            url = f"http://127.0.0.1:{port}/api/v2/tenants/default_tenant/databases/default_database/collections"
            with urllib.request.urlopen(url, timeout=10) as response:  # no token sent
                assert response.status == 200
        finally:
            _stop(process)
