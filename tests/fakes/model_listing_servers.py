"""Fake Ollama, LM Studio and llama.cpp servers that also list their models, as the real ones do.

Each adds `GET` of its model listing (Ollama `/api/tags`; LM Studio and llama.cpp `/v1/models`, in each
server's own shape) to the chat-completions fakes of tests/fakes/openai_dialect_servers.py, so discovery
and a one-click provider can be tested against one process. `GarbageServer` answers every GET with an HTML
page (some other program on the port).
"""

from __future__ import annotations

import time
from typing import Any, ClassVar
from urllib.parse import urlsplit

from tests.contract.fake_servers import FakeServer, _Handler
from tests.fakes.openai_dialect_servers import LlamaCppServer, LMStudioServer, OllamaServer


class _ListingHandler(_Handler):
    fake: ClassVar[Any]

    def do_GET(self) -> None:
        path = urlsplit(self.path).path
        listing = self.fake.listing(path)
        if listing is None:
            self._send_json(404, {"error": f"no route {path}"})
        elif isinstance(listing, bytes):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(listing)))
            self.end_headers()
            self.wfile.write(listing)
        else:
            self._send_json(200, listing)


class _Listing:
    """Mixin: serve `listing(path)` on GET (the model names are `models`)."""

    models: tuple[str, ...] = ()

    def _serve_listings(self: Any, models: tuple[str, ...]) -> None:
        self.models = models
        self._httpd.RequestHandlerClass = type("Handler", (_ListingHandler,), {"fake": self})

    def listing(self, path: str) -> Any:
        raise NotImplementedError


class OllamaListing(_Listing, OllamaServer):
    def __init__(self, models: tuple[str, ...] = ("qwen2.5:7b",)) -> None:
        super().__init__()
        self._serve_listings(models)

    def listing(self, path: str) -> Any:
        if path != "/api/tags":
            return None
        return {
            "models": [
                {
                    "name": name,
                    "model": name,
                    "modified_at": "2026-11-02T10:11:12.123456789+01:00",
                    "size": 4683087332,
                    "digest": "845dbda0ea48ed749caafd9e6037047aa19acfcfd82e704d7ca97d631a0b697e",
                    "details": {"format": "gguf", "family": "qwen2", "parameter_size": "7.6B"},
                }
                for name in self.models
            ]
        }


class LMStudioListing(_Listing, LMStudioServer):
    def __init__(self, models: tuple[str, ...] = ("qwen2.5-7b-instruct",)) -> None:
        super().__init__()
        self._serve_listings(models)

    def listing(self, path: str) -> Any:
        if path != "/v1/models":
            return None
        data = [{"id": name, "object": "model", "owned_by": "organization_owner"} for name in self.models]
        return {"data": data, "object": "list"}


class LlamaCppListing(_Listing, LlamaCppServer):
    def __init__(self, models: tuple[str, ...] = ("Qwen2.5-7B-Instruct-Q4_K_M.gguf",)) -> None:
        super().__init__()
        self._serve_listings(models)

    def listing(self, path: str) -> Any:
        if path != "/v1/models":
            return None
        meta = {"vocab_type": 2, "n_vocab": 152064, "n_ctx_train": 32768, "n_params": 7615616512}
        data = [
            {"id": name, "object": "model", "created": int(time.time()), "owned_by": "llamacpp", "meta": meta}
            for name in self.models
        ]
        return {
            "models": [{"name": name, "model": name} for name in self.models],
            "object": "list",
            "data": data,
        }


class GarbageServer(FakeServer):
    """Some other web server on the port: every GET gets an HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self._httpd.RequestHandlerClass = type("Handler", (_ListingHandler,), {"fake": self})

    def listing(self, path: str) -> Any:
        return b"<html><body>It works!</body></html>"


def port_of(server: FakeServer) -> int:
    return int(server.base_url.rsplit(":", 1)[1])
