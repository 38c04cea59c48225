"""History compaction: token estimate, split points, summary handoff and the loop integration."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from core.agent.compaction import SUMMARY_PREFIX, Compactor
from core.agent.limits import RunLimits
from core.agent.loop import AgentRunner
from core.errors import ConfigError, ProviderError
from core.events import Done, Progress, UsageUpdate
from core.prompt.tokens import EstimateCounter, count_messages
from core.providers.base import ProviderProfile
from core.providers.fake import ScriptedProvider, text_response
from core.types import Message, ToolCall

SYSTEM = Message("system", "You are Daemon.")


def long_history(pairs: int, size: int = 200) -> list[Message]:
    messages = [SYSTEM]
    for i in range(pairs):
        messages.append(Message("user", f"question {i} " + "q" * size))
        messages.append(Message("assistant", f"answer {i} " + "a" * size))
    messages.append(Message("user", "And what about now?"))
    return messages


def estimate_tokens(messages: Sequence[Message]) -> int:
    return count_messages(EstimateCounter(), messages)


def test_messages_are_counted_with_the_one_estimate_plus_the_message_overhead() -> None:
    assert estimate_tokens([]) == 0
    text = "x" * 330
    assert estimate_tokens([Message("user", text)]) == EstimateCounter().count(text) + 4  # + the overhead
    assert EstimateCounter().count(text) in (110, 111)  # 3.3 characters a token, + 10 %
    with_call = Message("assistant", "", tool_calls=(ToolCall("1", "calc", {"e": "1"}),))
    assert estimate_tokens([with_call]) > 4


def test_split_keeps_system_and_tail_and_tool_pairs() -> None:
    compactor = Compactor(keep_last=2)
    messages = [
        SYSTEM,
        Message("user", "a"),
        Message("assistant", "b"),
        Message("user", "c"),
        Message("assistant", "", tool_calls=(ToolCall("t", "calc", {}),)),
        Message("tool", "1", tool_call_id="t"),
        Message("assistant", "done"),
    ]
    # The last two messages start with a tool result, so the split moves back to its assistant call.
    assert compactor.split(messages) == (1, 4)
    assert compactor.split(messages[:3]) is None  # too little to gain
    with pytest.raises(ConfigError):
        Compactor(threshold=0)


def test_should_compact_uses_the_window_minus_reserve() -> None:
    compactor = Compactor(keep_last=2)
    messages = long_history(5)
    tokens = estimate_tokens(messages)
    assert compactor.should_compact(messages, context_window=tokens + 100, reserve=100)
    assert not compactor.should_compact(messages, context_window=tokens * 2 + 100, reserve=100)


async def test_loop_compacts_with_a_summary_handoff() -> None:
    messages = long_history(6)
    provider = ScriptedProvider(
        [text_response("The user asked six questions about q and got answers about a."), "Now is fine."],
        profile=ProviderProfile(context_window=700),
    )
    runner = AgentRunner(
        provider, limits=RunLimits(response_max_tokens=100), compactor=Compactor(keep_last=3)
    )
    events = [e async for e in runner.run(messages)]
    provider.assert_complete()

    assert any(isinstance(e, Progress) and e.stage == "compacting" for e in events)
    summary_request = provider.requests[0]
    assert summary_request.tools == () and summary_request.max_tokens == 512
    assert "question 0" in summary_request.messages[1].content  # the transcript of the old part
    assert "And what about now?" not in summary_request.messages[1].content

    sent = provider.requests[1].messages
    assert sent[0] == SYSTEM
    assert sent[1] == Message(
        "system", f"{SUMMARY_PREFIX} The user asked six questions about q and got answers about a."
    )
    assert list(sent[2:]) == messages[-3:]
    assert estimate_tokens(sent) < estimate_tokens(messages) / 3

    done = events[-1]
    assert isinstance(done, Done) and done.answer == "Now is fine."
    updates = [e for e in events if isinstance(e, UsageUpdate)]
    assert len(updates) == 2 and done.usage == updates[-1].total


async def test_failed_summary_drops_old_messages_with_a_note() -> None:
    provider = ScriptedProvider(
        [ProviderError("summary model down"), "ok"], profile=ProviderProfile(context_window=700)
    )
    runner = AgentRunner(
        provider, limits=RunLimits(response_max_tokens=100), compactor=Compactor(keep_last=3)
    )
    events = [e async for e in runner.run(long_history(6))]
    provider.assert_complete()
    assert isinstance(events[-1], Done) and events[-1].answer == "ok"
    note = provider.requests[1].messages[1]
    assert (
        note.role == "system"
        and note.content.startswith(SUMMARY_PREFIX)
        and "10 earlier messages" in note.content
    )


async def test_pinned_request_survives_and_old_summaries_are_folded_in() -> None:
    request = Message("user", "Plan my week.")
    messages = [
        SYSTEM,
        Message("system", f"{SUMMARY_PREFIX} older stuff"),
        Message("user", "old question"),
        request,
        Message("assistant", "", tool_calls=(ToolCall("t1", "calendar", {}),)),
        Message("tool", "x" * 500, tool_call_id="t1"),
        Message("assistant", "", tool_calls=(ToolCall("t2", "calendar", {}),)),
        Message("tool", "y" * 500, tool_call_id="t2"),
    ]
    provider = ScriptedProvider(["new summary"])
    result = await Compactor(keep_last=2).compact(messages, provider, context_window=4096, pinned=request)
    provider.assert_complete()
    assert "older stuff" in provider.requests[0].messages[1].content  # the previous summary is re-summarised
    assert "Plan my week." not in provider.requests[0].messages[1].content
    assert result.messages == (
        SYSTEM,
        Message("system", f"{SUMMARY_PREFIX} new summary"),
        request,
        *messages[-2:],
    )
    assert result.replaced == 4 and result.summarized
