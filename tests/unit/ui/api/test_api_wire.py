"""Daemon's turn events as OpenAI's chat-completions wire format: every chunk and completion is read back
with the official `openai` package's own types, so a shape the SDK would not parse fails here."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Sequence
from typing import Any

from openai.types.chat import ChatCompletion, ChatCompletionChunk

from core.events import Done, RunError, RunEvent, TextDelta, ToolCallEnded, ToolCallStarted, ToolProposal
from core.types import ToolCall, Usage
from ui.api.wire import SSE_DONE, Reply, collect, finish_reason, stream_chunks

DONE = Done(
    answer="Hello there",
    usage=Usage(12, 3),
    model="echo",
    turn_id="t1",
    session_id="s1",
    citations=({"marker": "M1", "id": "conv-1"},),
)


async def events_of(items: Sequence[RunEvent]) -> AsyncIterator[RunEvent]:
    for item in items:
        yield item


async def streamed(items: Sequence[RunEvent], *, include_usage: bool = False) -> list[bytes]:
    reply = Reply("daemon", id="chatcmpl-test", created=1700000000)
    return [line async for line in stream_chunks(events_of(items), reply, include_usage=include_usage)]


def payloads(lines: list[bytes]) -> list[dict[str, Any]]:
    """Each event's JSON; every line must be one complete `data: …` event."""
    for line in lines:
        assert line.startswith(b"data: ") and line.endswith(b"\n\n") and line.count(b"\n\n") == 1
    assert lines[-1] == SSE_DONE
    return [json.loads(line[len(b"data: ") :]) for line in lines[:-1]]


async def test_a_stream_is_role_then_content_then_finish_then_done() -> None:
    call = ToolCall("c1", "current_time", {})
    lines = await streamed(
        [
            TextDelta("Hello "),
            ToolCallStarted(call),
            ToolCallEnded(call, True, "noon"),
            TextDelta(""),
            TextDelta("there"),
            DONE,
        ]
    )
    chunks = [ChatCompletionChunk.model_validate(p) for p in payloads(lines)]
    assert [c.choices[0].delta.role for c in chunks] == ["assistant", None, None, None]
    assert [c.choices[0].delta.content for c in chunks] == ["", "Hello ", "there", None]
    assert [c.choices[0].finish_reason for c in chunks] == [None, None, None, "stop"]
    assert {(c.id, c.object, c.model, c.created) for c in chunks} == {
        ("chatcmpl-test", "chat.completion.chunk", "daemon", 1700000000)
    }
    details = payloads(lines)[-1]["daemon"]
    assert (details["session_id"], details["turn_id"], details["citations"]) == (
        "s1",
        "t1",
        [DONE.citations[0]],
    )


async def test_usage_comes_as_a_last_chunk_without_choices_when_asked() -> None:
    plain = payloads(await streamed([TextDelta("Hello there"), DONE]))
    assert all("usage" not in p for p in plain)
    asked = payloads(await streamed([TextDelta("Hello there"), DONE], include_usage=True))
    last = ChatCompletionChunk.model_validate(asked[-1])
    assert last.choices == []
    assert last.usage is not None
    assert (last.usage.prompt_tokens, last.usage.completion_tokens, last.usage.total_tokens) == (12, 3, 15)


async def test_a_failed_turn_streams_one_error_event_then_done() -> None:
    lines = await streamed([TextDelta("Hel"), RunError("the model failed", kind="ProviderError")])
    events = payloads(lines)
    assert events[-1] == {
        "error": {
            "message": "the model failed",
            "type": "server_error",
            "param": None,
            "code": "ProviderError",
        }
    }
    assert all("error" not in e for e in events[:-1])


async def test_a_stream_that_ends_without_done_says_so() -> None:
    events = payloads(await streamed([TextDelta("Hel")]))
    assert events[-1]["error"]["code"] == "no_answer"


async def test_proposals_are_shown_as_text_and_listed_not_run() -> None:
    proposal = ToolProposal(ToolCall("c1", "send_email", {"to": "jo@example.com"}), "Sends an email.")
    events = payloads(await streamed([TextDelta("Sure."), proposal, DONE]))
    note = events[-2]["choices"][0]["delta"]["content"]
    assert "Proposed, not run: send_email" in note
    assert "python main.py tool run send_email" in note and "--approve" in note
    assert events[-1]["daemon"]["proposals"] == [
        {"name": "send_email", "arguments": {"to": "jo@example.com"}}
    ]


async def test_collect_gives_one_completion_with_usage() -> None:
    status, body = await collect(events_of([TextDelta("Hello there"), DONE]), Reply("echo"))
    assert status == 200
    completion = ChatCompletion.model_validate(body)
    assert completion.object == "chat.completion" and completion.model == "echo"
    assert completion.choices[0].message.content == "Hello there"
    assert completion.choices[0].message.role == "assistant"
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage is not None and completion.usage.total_tokens == 15
    assert completion.id.startswith("chatcmpl-")


async def test_collect_of_a_failed_turn_is_a_server_error() -> None:
    status, body = await collect(events_of([RunError("boom", kind="internal")]), Reply("daemon"))
    assert status == 500
    assert body["error"]["message"] == "boom" and body["error"]["type"] == "server_error"


def test_exit_reasons_map_to_openai_finish_reasons() -> None:
    assert [finish_reason(r) for r in ("answer", "cancelled", "max_rounds", "budget")] == [
        "stop",
        "stop",
        "length",
        "length",
    ]


def test_each_reply_gets_its_own_id() -> None:
    assert Reply("daemon").id != Reply("daemon").id
