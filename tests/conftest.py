"""Test-wide rules: markers by directory, no Python processes in the fast tests, no network beyond loopback,
no provider keys leaking in from the environment.

The folder a test lives in says what it may do, so no file can forget its marker: `tests/integration/`
(Daemon or a server as a process, a build) is `integration`, `tests/browser/` is `browser`,
`tests/benchmarks/` is `benchmark`. Everything else (`tests/unit/`, `tests/contract/`, this folder) is the
fast tier `make test-fast` runs, where starting a Python process is an error that names the folder to use.
"""

from __future__ import annotations

import ipaddress
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from core.torch_compat import install_import_hook

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

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


TESTS = Path(__file__).resolve().parent
MARKER_OF_FOLDER = {"integration": "integration", "browser": "browser", "benchmarks": "benchmark"}
OUTSIDE_FAST_TIER = frozenset(MARKER_OF_FOLDER.values())


# Longest first: `make test` hands whole modules to its workers in collection order, so the modules that
# start processes (and the desktop build) begin at once and the many short unit tests fill the gaps at the
# end, instead of one worker finishing a long module while the other waits.
FOLDER_ORDER = ("integration", "browser", "benchmarks", "contract", "unit")
LONGEST = "test_packaging_build.py"  # the desktop build: minutes on its own, so it starts before anything


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test by the folder it lives in (`MARKER_OF_FOLDER`), then order the modules longest
    first: the desktop build, then by folder (`FOLDER_ORDER`), modules with `slow` tests first in each."""
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    for item in items:
        folder = _folder(item)
        if folder in MARKER_OF_FOLDER:
            item.add_marker(MARKER_OF_FOLDER[folder])

    def rank(item: pytest.Item) -> tuple[bool, int, bool]:
        folder = _folder(item)
        place = FOLDER_ORDER.index(folder) if folder in FOLDER_ORDER else len(FOLDER_ORDER)
        return item.path.name != LONGEST, place, item.path not in slow_modules

    items.sort(key=rank)  # stable: a module's tests keep their order


def _folder(item: pytest.Item) -> str:
    return item.path.resolve().relative_to(TESTS).parts[0]


@pytest.fixture(autouse=True)
def _no_python_processes_in_fast_tests(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fast-tier test that starts a Python interpreter fails: such a test belongs in tests/integration/."""
    if any(request.node.get_closest_marker(name) for name in OUTSIDE_FAST_TIER):
        return
    # Popen.__init__ is overloaded on text/bytes mode; the guard passes every argument through unchanged.
    real_init: Callable[..., None] = subprocess.Popen.__init__
    python = Path(sys.executable).resolve()

    def guarded(self: subprocess.Popen[Any], args: object, *rest: object, **kwargs: object) -> None:
        program = args[0] if isinstance(args, list | tuple) else args
        if isinstance(program, str | Path) and Path(program).resolve() == python:
            raise RuntimeError("a fast test started a Python process: move it to tests/integration/")
        real_init(self, args, *rest, **kwargs)

    monkeypatch.setattr(subprocess.Popen, "__init__", guarded)


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

    def connect(self: socket.socket, address: tuple[Any, ...] | str | ReadableBuffer) -> None:
        guard(address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: tuple[Any, ...] | str | ReadableBuffer) -> int:
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
