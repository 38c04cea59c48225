"""Optional model calls: one bounded request whose failure only means "go on without it".

Query rewriting, fact extraction and adjudication, compression, summaries and reflections all ask a model
for something Daemon can do without. They share the rules here: a timeout, any failure logged at info
level (with what the caller does instead) and turned into None, and a tolerant reader for the JSON such
answers contain (fenced, with prose around it).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

from core.providers.base import ChatProvider
from core.types import ChatRequest, ModelResponse

logger = logging.getLogger(__name__)


async def side_call(
    provider: ChatProvider, request: ChatRequest, *, timeout_s: float, what: str, otherwise: str
) -> ModelResponse | None:
    """The model's response, or None after logging "<what> … ; <otherwise>" when it is late or fails."""
    try:
        return await asyncio.wait_for(provider.complete(request), timeout_s)
    except TimeoutError:
        logger.info("%s took over %.1f s; %s", what, timeout_s, otherwise)
    except Exception as error:  # noqa: BLE001 - the call is optional by contract
        logger.info("%s failed (%s); %s", what, error, otherwise)
    return None


def json_in(text: str) -> Any | None:
    """The first JSON object or array in `text` (from the first `{`/`[` to the last `}`/`]`), or None."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    end = max(text.rfind("}"), text.rfind("]"))
    if not starts or end <= min(starts):
        return None
    try:
        return json.loads(text[min(starts) : end + 1])
    except json.JSONDecodeError:
        return None
