"""How an OpenAI chat request becomes one Daemon turn (`python main.py api`; the rules are in docs/api.md).

OpenAI clients send the whole conversation every time; Daemon keeps its own history and memory. So only the
last user message is the turn. The session is the `X-Daemon-Session` header when the client sends one,
else a hash of the request's `user` field and the conversation's first user message, which stays the same
for every request of one conversation. System and developer messages are not passed on: the orchestrator
builds its own system prompt and takes no extra instructions (they are ignored, and docs/api.md says so).
A requested model that names one of Daemon's configured models answers with it; any other name (`daemon`,
`gpt-4o`, …) gets the default model.
"""

from __future__ import annotations

import hashlib
import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ui.shared.boundary import is_blank, user_text

DEFAULT_MODEL_ID = "daemon"
SESSION_HEADER = "x-daemon-session"
MAX_SESSION_CHARS = 128
MAX_MESSAGES = 10_000
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


class RequestError(ValueError):
    """A request Daemon cannot take, with the OpenAI `param` it is about (answered as 400)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


@dataclass(frozen=True)
class TurnRequest:
    """One chat-completions request, read: the turn's text, where it goes and how to answer."""

    text: str
    session_id: str
    model: str | None  # the orchestrator's model name; None: the default
    model_id: str  # the id the response reports
    stream: bool
    include_usage: bool


def read_request(body: Any, headers: Mapping[str, str], models: Sequence[str]) -> TurnRequest:
    """Check a decoded JSON body and read the turn from it; `RequestError` says what is wrong."""
    if not isinstance(body, dict):
        raise RequestError("the request body must be a JSON object")
    messages = _messages(body.get("messages"))
    users = [m for m in messages if m["role"] == "user"]
    if not users:
        raise RequestError("there is no user message to answer", "messages")
    text = message_text(users[-1].get("content"))
    if is_blank(text):
        raise RequestError("the last user message has no text", "messages")
    stream = _flag(body, "stream")
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    user = body.get("user")
    if user is not None and not isinstance(user, str):
        raise RequestError("'user' must be a string", "user")
    session = session_id(headers.get(SESSION_HEADER), user, message_text(users[0].get("content")))
    model, model_id = resolve_model(body.get("model"), models)
    return TurnRequest(text, session, model, model_id, stream, include_usage)


def _messages(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list) or not raw:
        raise RequestError("'messages' must be a non-empty list", "messages")
    if len(raw) > MAX_MESSAGES:
        raise RequestError(f"at most {MAX_MESSAGES} messages", "messages")
    for index, message in enumerate(raw):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise RequestError(f"messages[{index}] needs a role ({', '.join(sorted(ROLES))})", "messages")
    return raw


def _flag(body: dict[str, Any], key: str) -> bool:
    value = body.get(key, False)
    if value is None:
        return False
    if not isinstance(value, bool):
        raise RequestError(f"'{key}' must be true or false", key)
    return value


def message_text(content: Any) -> str:
    """The text of a message's `content`: a string, or the `text` parts of a list of parts (images and
    other parts are not read: the API takes text turns)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return user_text(content)
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        return user_text("\n".join(p for p in parts if isinstance(p, str)))
    raise RequestError("a message's content must be a string or a list of parts", "messages")


def session_id(header: str | None, user: str | None, first_user_text: str) -> str:
    """The header's session id when given (checked), else `api-` + a hash of the `user` field and the
    first user message: the same for every request of one conversation, different across conversations
    that start differently or come from different users."""
    if header is not None:
        chosen = user_text(header).strip()
        if is_blank(chosen) or len(chosen) > MAX_SESSION_CHARS:
            raise RequestError(f"the {SESSION_HEADER} header must be 1 to {MAX_SESSION_CHARS} characters")
        if any(unicodedata.category(ch) in ("Cc", "Cf") for ch in chosen):
            raise RequestError(f"the {SESSION_HEADER} header cannot hold control or invisible characters")
        return chosen
    key = json.dumps([user or "", first_user_text.strip()], ensure_ascii=False)
    return "api-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def resolve_model(requested: Any, models: Sequence[str]) -> tuple[str | None, str]:
    """(the orchestrator's model name or None for the default, the id to report). A name matches one of
    `models` ignoring case, with or without a `daemon/` prefix; anything else is the default."""
    if requested is not None and not isinstance(requested, str):
        raise RequestError("'model' must be a string", "model")
    wanted = (requested or "").strip().lower().removeprefix("daemon/")
    for name in models:
        if name.lower() == wanted:
            return name, name
    return None, DEFAULT_MODEL_ID


def models_list(models: Sequence[str], created: int) -> dict[str, Any]:
    """`GET /v1/models`: `daemon` (the default model) first, then each configured model by name."""
    ids = [DEFAULT_MODEL_ID, *(m for m in models if m.lower() != DEFAULT_MODEL_ID)]
    data = [{"id": i, "object": "model", "created": created, "owned_by": "daemon"} for i in ids]
    return {"object": "list", "data": data}
