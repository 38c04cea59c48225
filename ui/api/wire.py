"""OpenAI's chat-completions wire format for Daemon's turn events (`python main.py api`).

Pure mapping, no I/O: a turn's events (`core/events.py`) become either one `chat.completion` object or the
server-sent events of a stream: `data: {chat.completion.chunk}\\n\\n` lines (the role in the first delta,
then content deltas, then an empty delta with `finish_reason`, optionally a usage-only chunk), closed by
`data: [DONE]`. Daemon's own details (session and turn ids, tool calls, citations, proposals) ride along in
a `daemon` key of the last chunk and of the completion; OpenAI clients ignore keys they do not know.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from core.errors import DaemonError, UserInputError
from core.events import Done, RunError, RunEvent, TextDelta, ToolProposal
from core.types import Usage
from ui.shared.payloads import approval_command

SSE_DONE = b"data: [DONE]\n\n"
# Daemon's exit reasons as OpenAI finish reasons: anything that stopped short of an answer is "length".
_FINISH = {"answer": "stop", "cancelled": "stop"}


@dataclass(frozen=True)
class Reply:
    """The identity every chunk of one response repeats: its id, model id and creation time."""

    model: str
    id: str = field(default_factory=lambda: f"chatcmpl-{secrets.token_hex(12)}")
    created: int = field(default_factory=lambda: int(time.time()))


def finish_reason(exit_reason: str) -> str:
    """OpenAI's `finish_reason` for a `Done.exit_reason` (max_rounds and budget stop early: "length")."""
    return _FINISH.get(exit_reason, "length")


def usage_payload(usage: Usage) -> dict[str, int]:
    """OpenAI's usage object from Daemon's token counts."""
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
    }


def error_body(message: str, kind: str = "invalid_request_error", code: str | None = None) -> dict[str, Any]:
    """OpenAI's error object: `{"error": {"message", "type", "param", "code"}}`."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def sse(payload: dict[str, Any]) -> bytes:
    """One server-sent event carrying `payload` as JSON."""
    return b"data: " + json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def chunk(reply: Reply, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    """One `chat.completion.chunk` with a single choice."""
    return {
        "id": reply.id,
        "object": "chat.completion.chunk",
        "created": reply.created,
        "model": reply.model,
        "system_fingerprint": None,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }


def proposal_note(proposal: ToolProposal) -> str:
    """A proposed action as a line of the answer: a chat client has nowhere else to show it, and it never
    runs from the API (the user runs it deliberately, as after `ask`)."""
    arguments = json.dumps(dict(proposal.call.arguments), ensure_ascii=False)
    return (
        f"\n\n[Proposed, not run: {proposal.call.name} {arguments}. To run it: {approval_command(proposal)}]"
    )


def daemon_details(done: Done, proposals: list[ToolProposal]) -> dict[str, Any]:
    """What Daemon knows about the turn beyond the text, under the `daemon` key."""
    return {
        "session_id": done.session_id,
        "turn_id": done.turn_id,
        "model": done.model,
        "exit_reason": done.exit_reason,
        "tool_calls": list(done.tool_calls),
        "citations": list(done.citations),
        "proposals": [{"name": p.call.name, "arguments": dict(p.call.arguments)} for p in proposals],
    }


def completion(reply: Reply, done: Done, proposals: list[ToolProposal]) -> dict[str, Any]:
    """The whole answer as one `chat.completion` object."""
    text = done.answer + "".join(proposal_note(p) for p in proposals)
    return {
        "id": reply.id,
        "object": "chat.completion",
        "created": reply.created,
        "model": reply.model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": None},
                "logprobs": None,
                "finish_reason": finish_reason(done.exit_reason),
            }
        ],
        "usage": usage_payload(done.usage),
        "daemon": daemon_details(done, proposals),
    }


def run_error_body(error: RunError) -> dict[str, Any]:
    """A failed turn as an OpenAI error (the message is the one meant for the user)."""
    return error_body(error.message, "server_error", error.kind)


async def collect(events: AsyncIterator[RunEvent], reply: Reply) -> tuple[int, dict[str, Any]]:
    """Run a turn to its end: (200, the completion) or (500, the error; 400 for a refused input)."""
    proposals: list[ToolProposal] = []
    async for event in _failures_as_events(events):
        if isinstance(event, ToolProposal):
            proposals.append(event)
        elif isinstance(event, Done):
            return 200, completion(reply, event, proposals)
        elif isinstance(event, RunError):
            refused = event.kind == UserInputError.__name__
            return (
                (400, error_body(event.message, code=event.kind)) if refused else (500, run_error_body(event))
            )
    return 500, error_body("the turn ended without an answer", "server_error", "no_answer")


async def _failures_as_events(events: AsyncIterator[RunEvent]) -> AsyncIterator[RunEvent]:
    """`events`, with a Daemon error raised before the turn could start (the journal refusing the
    message, say) turned into the `RunError` the turn would have ended with."""
    try:
        async for event in events:
            yield event
    except DaemonError as error:
        yield RunError(str(error), kind=type(error).__name__)


async def stream_chunks(
    events: AsyncIterator[RunEvent], reply: Reply, *, include_usage: bool = False
) -> AsyncIterator[bytes]:
    """A turn as OpenAI's server-sent events, `data: [DONE]` last. A failure mid-stream is one
    `data: {"error": …}` event (the openai SDK raises it as an APIError)."""
    yield sse(chunk(reply, {"role": "assistant", "content": ""}))
    proposals: list[ToolProposal] = []
    async for event in _failures_as_events(events):
        if isinstance(event, TextDelta) and event.text:
            yield sse(chunk(reply, {"content": event.text}))
        elif isinstance(event, ToolProposal):
            proposals.append(event)
        elif isinstance(event, Done):
            for line in _final_chunks(reply, event, proposals, include_usage):
                yield line
            break
        elif isinstance(event, RunError):
            yield sse(run_error_body(event))
            break
    else:
        yield sse(error_body("the turn ended without an answer", "server_error", "no_answer"))
    yield SSE_DONE


def _final_chunks(
    reply: Reply, done: Done, proposals: list[ToolProposal], include_usage: bool
) -> list[bytes]:
    """The proposals' notes, the finishing chunk, and the usage chunk when the client asked for it
    (`stream_options.include_usage`: empty `choices`, as OpenAI sends it)."""
    lines = [sse(chunk(reply, {"content": proposal_note(p)})) for p in proposals]
    last = chunk(reply, {}, finish_reason(done.exit_reason))
    last["daemon"] = daemon_details(done, proposals)
    lines.append(sse(last))
    if include_usage:
        lines.append(sse({**chunk(reply, {}), "choices": [], "usage": usage_payload(done.usage)}))
    return lines
