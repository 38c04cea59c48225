"""Optional model calls: one bounded request whose failure only means "go on without it".

Query rewriting, fact extraction and adjudication, compression, summaries and reflections all ask a model
for something Daemon can do without. They share the rules here: a timeout, any failure logged at info
level (with what the caller does instead) and turned into None, and a tolerant reader for the JSON such
answers contain (fenced, with prose around it). The generation modes' judge, planner and reviewer calls are
side calls too, raced against the user's cancel signal, and they report how the call ended.
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any

from core.cancel import unless_cancelled
from core.providers.base import ChatProvider
from core.types import ChatRequest, ModelResponse, Usage

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reply:
    """A side call's outcome: the response (None unless `status` is "ok"), and `status`: "ok", "timeout",
    "failed" or "cancelled"."""

    response: ModelResponse | None
    status: str

    @property
    def text(self) -> str:
        """The response's text, stripped ("" without a response)."""
        return self.response.text.strip() if self.response is not None else ""

    @property
    def usage(self) -> Usage:
        """The response's usage (zero without a response)."""
        return self.response.usage if self.response is not None else Usage()


async def side_call(
    provider: ChatProvider,
    request: ChatRequest,
    *,
    timeout_s: float,
    what: str,
    otherwise: str,
    cancel: asyncio.Event | None = None,
) -> Reply:
    """One `complete` call that gives up after `timeout_s`, or when `cancel` fires; a late or failing call
    is logged as "<what> … ; <otherwise>" and reported in the reply's status, never raised."""
    work = asyncio.wait_for(provider.complete(request), timeout_s)
    try:
        response = await (work if cancel is None else unless_cancelled(work, cancel))
    except TimeoutError:
        logger.info("%s took over %.1f s; %s", what, timeout_s, otherwise)
        return Reply(None, "timeout")
    except Exception as error:  # noqa: BLE001 - the call is optional by contract
        logger.info("%s failed (%s); %s", what, error, otherwise)
        return Reply(None, "failed")
    return Reply(response, "ok") if response is not None else Reply(None, "cancelled")


def json_in(text: str) -> Any | None:
    """The first JSON object or array in `text` that parses, or None.

    Models wrap JSON in code fences and prose, and the prose may hold braces of its own ("{name}"), so each
    `{`/`[` is tried in turn up to its balancing bracket (brackets inside strings do not count).
    """
    for start, char in enumerate(text):
        if char not in "{[":
            continue
        end = _balanced_end(text, start)
        if end is None:
            continue
        try:
            return json.loads(text[start:end])
        except json.JSONDecodeError:
            continue
    return None


def _balanced_end(text: str, start: int) -> int | None:
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        char = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None
