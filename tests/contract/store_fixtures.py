"""Fixtures for the vector-store contract suite: one factory over three implementations.

`open_store` builds a fresh store of the parametrised kind: the in-memory fake, Chroma embedded in
`tmp_path`, or a Chroma server started with `chroma run` on a free loopback port (module-scoped, marked
`integration`, terminated by PID at teardown). Import the `*_fixture` functions into a test module; they
register under the names `chroma_server`, `store_kind` and `open_store`.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from memory.chroma_store import ChromaStore
from memory.embeddings import Embedder, HashingEmbedder
from memory.inmemory_store import InMemoryStore
from memory.vector_store import VectorStore

CHROMA_CLI = Path(sys.executable).with_name("chroma")
STORE_KINDS = ("memory", "embedded", pytest.param("server", marks=pytest.mark.integration))
EMBED_DIM = 256  # wide enough that hashed test vocabularies do not collide


@dataclass(frozen=True)
class ChromaServer:
    """A running `chroma run` process on loopback."""

    host: str
    port: int
    pid: int
    path: Path
    startup_seconds: float


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_for_heartbeat(process: subprocess.Popen[bytes], port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    url = f"http://127.0.0.1:{port}/api/v2/heartbeat"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=1) as response:
                if response.status == 200:
                    return True
        except OSError:
            time.sleep(0.05)
    return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Terminate the server by its PID; kill it if it ignores SIGTERM."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="module", name="chroma_server")
def chroma_server_fixture(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ChromaServer]:
    """`chroma run --path <tmp> --port <free> --host 127.0.0.1`, up until the module's tests are done."""
    if not CHROMA_CLI.exists():
        pytest.skip(f"no chroma CLI at {CHROMA_CLI}")
    root = tmp_path_factory.mktemp("chroma-server")
    for _attempt in range(3):  # a free port can be taken between probing and binding
        port = _free_port()
        log = (root / f"server-{port}.log").open("wb")
        started = time.monotonic()
        process = subprocess.Popen(
            [
                str(CHROMA_CLI),
                "run",
                "--path",
                str(root / "data"),
                "--port",
                str(port),
                "--host",
                "127.0.0.1",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            if _wait_for_heartbeat(process, port, timeout=30):
                yield ChromaServer("127.0.0.1", port, process.pid, root / "data", time.monotonic() - started)
                return
        finally:
            _stop(process)
            log.close()
    pytest.fail(f"chroma server did not start; see logs in {root}")


def _drop_all_collections(server: ChromaServer) -> None:
    import chromadb
    from chromadb.config import Settings

    client = chromadb.HttpClient(
        host=server.host, port=server.port, settings=Settings(anonymized_telemetry=False)
    )
    for collection in client.list_collections():
        client.delete_collection(collection.name)


StoreFactory = Callable[..., VectorStore]


@pytest.fixture(params=STORE_KINDS, name="store_kind")
def store_kind_fixture(request: pytest.FixtureRequest) -> str:
    """Which implementation this test runs against: memory, embedded or server."""
    return str(request.param)


@pytest.fixture(name="open_store")
def open_store_fixture(
    store_kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[StoreFactory]:
    """`open_store(embedder=None, *, batch_size=256, path=None)` → a store; all are closed at teardown.

    Embedded stores live in `tmp_path / "chroma"` unless `path` is given, so calling the factory twice
    reopens the same data. Server stores start from an empty server.
    """
    opened: list[VectorStore] = []
    server: ChromaServer | None = None
    if store_kind == "server":
        server = request.getfixturevalue("chroma_server")
        _drop_all_collections(server)

    def factory(
        embedder: Embedder | None = None, *, batch_size: int = 256, path: Path | None = None
    ) -> VectorStore:
        chosen = embedder if embedder is not None else HashingEmbedder(EMBED_DIM)
        store: VectorStore
        if store_kind == "memory":
            store = InMemoryStore(chosen, batch_size=batch_size)
        elif store_kind == "embedded":
            store = ChromaStore.embedded(path or tmp_path / "chroma", chosen, batch_size=batch_size)
        else:
            assert server is not None
            store = ChromaStore.http(server.host, server.port, chosen, batch_size=batch_size)
        opened.append(store)
        return store

    yield factory
    for store in opened:
        store.close()
    if server is not None:
        _drop_all_collections(server)
