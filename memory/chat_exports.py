"""Conversations from another assistant's data export: ChatGPT's and Claude's `conversations.json`, alone or
in the export's zip. Untrusted input: the whole file is read and checked before anything is written, and
a missing or odd field is one `ChatExportError` naming the conversation and the field.

ChatGPT keeps each conversation as a tree (`mapping`: node -> message, parent, children; an edited message
starts a branch); the conversation as the user last saw it is the path from `current_node` up to the root.
Claude keeps a list (`chat_messages`, each with `sender` "human" or "assistant"). Either becomes a list of
exchanges: one message of the user and the replies that followed it. Only the user's words are evidence
about the user: the other assistant's replies are kept and shown, never learned from.
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from core.errors import UserInputError
from core.zip_limits import expands_beyond_reason

CONVERSATIONS_FILE = "conversations.json"
MAX_FILE_BYTES = 2 << 30  # the largest conversations.json read (heavy users' exports reach hundreds of MB)
CHATGPT, CLAUDE = "chatgpt", "claude"
SOURCE_NAMES = {CHATGPT: "ChatGPT", CLAUDE: "Claude"}
EXPORTED = " export"  # the `model` of an imported turn is "<source> export": whose reply it was
_CLAUDE_SENDERS = {"human": "user", "user": "user", "assistant": "assistant", "system": ""}  # "": skipped


class ChatExportError(UserInputError):
    """A chat export Daemon cannot read; nothing was imported."""


@dataclass(frozen=True)
class Exchange:
    """One message of the user, the replies that followed it, and when the user sent it (epoch seconds)."""

    at: float
    user: str
    assistant: str


@dataclass(frozen=True)
class ImportedConversation:
    """One conversation of an export: its source ("chatgpt", "claude"), its id there, title and exchanges."""

    source: str
    source_id: str
    title: str
    exchanges: tuple[Exchange, ...]

    @property
    def session_id(self) -> str:
        """The Daemon session it becomes: the same every time, so importing again resumes, never doubles."""
        digest = hashlib.sha256(f"{self.source}:{self.source_id}".encode()).hexdigest()[:16]
        return f"{self.source}-{digest}"


def exported_from(model: str) -> str | None:
    """The export an imported turn came from ("chatgpt"), read from the turn's `model`; None otherwise."""
    return model.removesuffix(EXPORTED) if model.endswith(EXPORTED) else None


def replied_by(model: str) -> str | None:
    """The assistant that wrote an imported turn's reply ("ChatGPT"), from the turn's `model`; None for a
    reply of Daemon's own."""
    source = exported_from(model)
    return SOURCE_NAMES.get(source) if source else None


def is_chat_export(path: Path) -> bool:
    """Whether `path` looks like a chat export (a conversations.json, or a zip holding one)."""
    if path.suffix.lower() == ".json":
        return True
    try:
        with zipfile.ZipFile(path) as zf:
            return any(Path(name).name == CONVERSATIONS_FILE for name in zf.namelist())
    except (zipfile.BadZipFile, OSError):
        return False


def read_chat_export(path: Path) -> tuple[str, list[ImportedConversation]]:
    """The export's source and its conversations with at least one exchange, oldest first."""
    raw = _conversations_json(path)
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ChatExportError(f"{path}: {CONVERSATIONS_FILE} is not valid JSON ({error})") from None
    if not isinstance(data, list):
        raise ChatExportError(f"{path}: {CONVERSATIONS_FILE} should hold a list of conversations")
    source = _source(data, path)
    read = _chatgpt if source == CHATGPT else _claude
    conversations = [read(item, number) for number, item in enumerate(data, 1)]
    kept = [c for c in conversations if c.exchanges]
    return source, sorted(kept, key=lambda c: c.exchanges[0].at)


def _conversations_json(path: Path) -> bytes:
    if not path.is_file():
        raise ChatExportError(f"no file at {path}")
    if path.suffix.lower() == ".json":
        if path.stat().st_size > MAX_FILE_BYTES:
            raise ChatExportError(f"{path} is larger than {MAX_FILE_BYTES >> 30} GB")
        return path.read_bytes()
    try:
        with zipfile.ZipFile(path) as zf:
            found = [i for i in zf.infolist() if Path(i.filename).name == CONVERSATIONS_FILE]
            if not found:
                raise ChatExportError(f"{path} holds no {CONVERSATIONS_FILE}: not a ChatGPT or Claude export")
            info = min(found, key=lambda i: len(i.filename))  # the export's own, not one nested deeper
            if info.file_size > MAX_FILE_BYTES or expands_beyond_reason(info):
                raise ChatExportError(f"{path}: its {CONVERSATIONS_FILE} expands beyond reason")
            return zf.read(info)
    except zipfile.BadZipFile as error:
        raise ChatExportError(f"{path} is not a zip archive, or it is damaged ({error})") from None
    except (OSError, EOFError) as error:
        raise ChatExportError(f"cannot read {path}: {error}") from None


def _source(data: list[Any], path: Path) -> str:
    first = next((item for item in data if isinstance(item, dict)), None)
    if first is None:
        return CHATGPT  # an empty list: nothing to import either way
    if "mapping" in first:
        return CHATGPT
    if "chat_messages" in first:
        return CLAUDE
    raise ChatExportError(
        f"{path}: its conversations have neither ChatGPT's 'mapping' nor Claude's 'chat_messages'"
    )


def _fail(source: str, number: int, item: Any, problem: str) -> ChatExportError:
    title = item.get("title") or item.get("name") if isinstance(item, dict) else None
    named = f" ({str(title)[:60]!r})" if title else ""
    return ChatExportError(f"{source} conversation {number}{named}: {problem}")


def _chatgpt(item: Any, number: int) -> ImportedConversation:
    if not isinstance(item, dict):
        raise _fail(CHATGPT, number, item, "not an object")
    mapping = item.get("mapping")
    if not isinstance(mapping, dict):
        raise _fail(CHATGPT, number, item, "no 'mapping' of messages")
    source_id = item.get("conversation_id") or item.get("id")
    if not isinstance(source_id, str) or not source_id:
        raise _fail(CHATGPT, number, item, "no 'id'")
    messages = []
    for node in _chatgpt_path(mapping, item.get("current_node"), number, item):
        message = node.get("message")
        if message is None:
            continue  # the tree's root carries none
        if not isinstance(message, dict):
            raise _fail(CHATGPT, number, item, "a message that is not an object")
        messages.append(_chatgpt_message(message, number, item))
    fallback = _epoch(item.get("create_time"))
    exchanges = _exchanges([m for m in messages if m is not None], fallback)
    return ImportedConversation(CHATGPT, source_id, str(item.get("title") or ""), exchanges)


def _chatgpt_path(mapping: dict[str, Any], current: Any, number: int, item: Any) -> list[dict[str, Any]]:
    """The messages from the root to `current_node` (or, without one, to the last leaf of first children)."""
    if not isinstance(current, str) or current not in mapping:
        current = _last_leaf(mapping)
    path: list[dict[str, Any]] = []
    seen: set[str] = set()
    while isinstance(current, str) and current in mapping:
        if current in seen:
            raise _fail(CHATGPT, number, item, "its message tree has a cycle")
        seen.add(current)
        node = mapping[current]
        if not isinstance(node, dict):
            raise _fail(CHATGPT, number, item, f"the node {current!r} is not an object")
        path.append(node)
        current = node.get("parent")
    return path[::-1]


def _last_leaf(mapping: dict[str, Any]) -> str | None:
    roots = [key for key, node in mapping.items() if isinstance(node, dict) and not node.get("parent")]
    current = roots[0] if roots else None
    seen: set[str] = set()
    leaf = current
    while current is not None and current not in seen:
        seen.add(current)
        leaf = current
        node = mapping.get(current)
        children = (node.get("children") if isinstance(node, dict) else None) or []
        current = (
            children[-1]
            if isinstance(children, list) and children and isinstance(children[-1], str)
            else None
        )
    return leaf


def _chatgpt_message(message: dict[str, Any], number: int, item: Any) -> tuple[str, str, float | None] | None:
    author = message.get("author")
    role = author.get("role") if isinstance(author, dict) else None
    if role not in ("user", "assistant"):
        return None  # system prompts, tool calls and their output
    metadata = message.get("metadata")
    if isinstance(metadata, dict) and metadata.get("is_visually_hidden_from_conversation"):
        return None
    content = message.get("content")
    if not isinstance(content, dict):
        raise _fail(CHATGPT, number, item, "a message without 'content'")
    parts = content.get("parts")
    if content.get("content_type") not in ("text", "multimodal_text") or not isinstance(parts, list):
        return None  # code, browsing, reasoning summaries: not words of either side
    text = "\n".join(part for part in parts if isinstance(part, str)).strip()  # images are dicts: left out
    return (role, text, _epoch(message.get("create_time"))) if text else None


def _claude(item: Any, number: int) -> ImportedConversation:
    if not isinstance(item, dict):
        raise _fail(CLAUDE, number, item, "not an object")
    messages = item.get("chat_messages")
    if not isinstance(messages, list):
        raise _fail(CLAUDE, number, item, "no 'chat_messages' list")
    source_id = item.get("uuid")
    if not isinstance(source_id, str) or not source_id:
        raise _fail(CLAUDE, number, item, "no 'uuid'")
    read: list[tuple[str, str, float | None]] = []
    for message in messages:
        if not isinstance(message, dict):
            raise _fail(CLAUDE, number, item, "a message that is not an object")
        sender = message.get("sender")
        if sender not in _CLAUDE_SENDERS:
            raise _fail(CLAUDE, number, item, f"a message whose sender is {sender!r}")
        text = _claude_text(message)
        if text and _CLAUDE_SENDERS[sender]:
            read.append((_CLAUDE_SENDERS[sender], text, _epoch(message.get("created_at"))))
    exchanges = _exchanges(read, _epoch(item.get("created_at")))
    return ImportedConversation(CLAUDE, source_id, str(item.get("name") or ""), exchanges)


def _claude_text(message: dict[str, Any]) -> str:
    """A Claude message's words: its `text`, or the text blocks of `content` (newer exports)."""
    text = message.get("text")
    if isinstance(text, str) and text.strip():
        return text.strip()
    blocks = message.get("content")
    if not isinstance(blocks, list):
        return ""
    words = (b.get("text") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    return "\n".join(w for w in words if isinstance(w, str)).strip()


def _epoch(value: Any) -> float | None:
    """Seconds since the epoch from ChatGPT's float seconds or Claude's ISO 8601 text; None when absent."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return float(value)
    if isinstance(value, str) and value:
        try:
            return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def _exchanges(messages: list[tuple[str, str, float | None]], fallback: float | None) -> tuple[Exchange, ...]:
    """Each user message with the assistant messages after it; replies before the first one are dropped."""
    out: list[Exchange] = []
    for user, at, replies in _grouped(messages):
        when = at if at is not None else (out[-1].at if out else fallback) or 0.0
        out.append(Exchange(when, user, "\n\n".join(replies)))
    return tuple(out)


def _grouped(messages: list[tuple[str, str, float | None]]) -> Iterator[tuple[str, float | None, list[str]]]:
    current: tuple[str, float | None, list[str]] | None = None
    for role, text, at in messages:
        if role == "user":
            if current is not None:
                yield current
            current = (text, at, [])
        elif current is not None:
            current[2].append(text)
    if current is not None:
        yield current
