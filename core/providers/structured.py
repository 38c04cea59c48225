"""Side calls that expect JSON: one path from a pydantic model of the reply to a validated value.

`ask_structured` sends the request with the model's JSON schema (providers that can constrain their output
use it), reads the first JSON value in the reply (fenced or wrapped in prose: `json_in`), validates it
against the model, and when that fails asks once more with what was wrong ("repair"), then gives up with
None: a side call is optional by contract (core/providers/side_call.py), so the caller goes on without it.
A late or failing call is not repaired (asking again would only be late again).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from core.providers.base import ChatProvider
from core.providers.side_call import json_in, side_call
from core.types import ChatRequest, Message

logger = logging.getLogger(__name__)
T = TypeVar("T", bound=BaseModel)
REPAIR = (
    "That reply could not be used: {problem}. Answer again with only the JSON value, matching the schema "
    "asked for; nothing else."
)


def read_structured(text: str, shape: type[T]) -> T | str:
    """The reply's JSON as `shape`, or what is wrong with it (a short sentence for the repair request)."""
    data = json_in(text)
    if data is None:
        return "there is no JSON object in it"
    try:
        return shape.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in issue['loc']) or 'the value'}: {issue['msg']}"
            for issue in error.errors()[:5]
        )
        return f"it does not match the schema ({problems})"


def response_schema(shape: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent with the request: pydantic's, without titles, closed to extra keys."""
    schema = shape.model_json_schema()
    return _closed(_untitled(schema))


async def ask_structured(
    provider: ChatProvider,
    messages: Sequence[Message],
    shape: type[T],
    *,
    max_tokens: int,
    timeout_s: float,
    what: str,
    otherwise: str,
    schema: dict[str, Any] | None = None,
    temperature: float = 0.0,
) -> T | None:
    """The reply as `shape` (one repair attempt), or None: late, failed, or unusable twice (logged with
    `what` and what the caller does `otherwise`). `schema` overrides the one made from `shape`."""
    request = ChatRequest(
        messages=tuple(messages),
        max_tokens=max_tokens,
        temperature=temperature,
        response_schema=schema or response_schema(shape),
    )
    reply = await side_call(provider, request, timeout_s=timeout_s, what=what, otherwise=otherwise)
    if reply.response is None:
        return None
    first = read_structured(reply.text, shape)
    if not isinstance(first, str):
        return first
    retry = ChatRequest(
        messages=(
            *request.messages,
            Message("assistant", reply.text),
            Message("user", REPAIR.format(problem=first)),
        ),
        max_tokens=max_tokens,
        temperature=temperature,
        response_schema=request.response_schema,
    )
    again = await side_call(
        provider, retry, timeout_s=timeout_s, what=f"{what} (repair)", otherwise=otherwise
    )
    second = read_structured(again.text, shape) if again.response is not None else "no answer"
    if isinstance(second, str):
        logger.info("%s answered unusable JSON twice (%s, then %s); %s", what, first, second, otherwise)
        return None
    return second


def _untitled(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _untitled(value) for key, value in node.items() if key != "title"}
    if isinstance(node, list):
        return [_untitled(value) for value in node]
    return node


def _closed(node: Any) -> Any:
    if isinstance(node, dict):
        closed = {key: _closed(value) for key, value in node.items()}
        if closed.get("type") == "object" and "properties" in closed:
            closed.setdefault("additionalProperties", False)
        return closed
    if isinstance(node, list):
        return [_closed(value) for value in node]
    return node
