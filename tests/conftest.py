"""Test-wide fixtures: no network beyond loopback, no provider keys leaking in from the environment."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator

import pytest

from core.torch_compat import install_import_hook

_PROVIDER_ENV = (
    "DAEMON_PROVIDER",
    "DAEMON_MODEL",
    "DAEMON_DATA_DIR",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "TAVILY_API_KEY",
    "E2B_API_KEY",
    "WOLFRAM_APP_ID",
)


def pytest_configure(config: pytest.Config) -> None:
    """Session-wide safety net: a test importing transformers, sentence_transformers, open_clip or
    torchvision directly gets the torchvision shim first (core/torch_compat.py); free until then."""
    install_import_hook()


def _is_loopback(host: object) -> bool:
    if not isinstance(host, str):
        return True  # AF_UNIX paths and the like
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def _block_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fail any test that opens a connection to a non-loopback address."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex

    def guard(address: object) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if not _is_loopback(host):
            raise RuntimeError(f"test tried to reach the network: {address!r}")

    def connect(self: socket.socket, address: object) -> None:
        guard(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: object) -> int:
        guard(address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    yield


@pytest.fixture(autouse=True)
def _clean_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never see the developer's real keys or provider choice."""
    for name in _PROVIDER_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
