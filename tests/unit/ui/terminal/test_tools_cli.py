"""`tool list|run` and the REPL's approval of proposed calls, through the agent's own guards."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from typing import Any, cast

import pytest

from core.agent.call_guard import ToolPolicy
from core.errors import UserInputError
from core.events import Done, RunEvent, ToolProposal
from core.tools.base import Tool
from core.tools.builtin import builtin_tools
from core.tools.catalog import ToolCatalog, UnavailableTool
from core.types import ToolCall
from ui.shared.front_ports import Conversation
from ui.shared.payloads import ask_payload
from ui.shared.tool_runner import ToolRunner, tool_entries
from ui.terminal.chat import Repl, TurnPrinter
from ui.terminal.tools import list_tools, parse_arguments, run_tool

DELETED: list[str] = []


def forget(topic: str) -> str:
    """Forget everything about a topic.

    Args:
        topic: what to forget
    """
    DELETED.append(topic)
    return f"forgot {topic}"


FORGET = Tool.from_function(forget, side_effects=True)
CATALOG = ToolCatalog.of(
    [*builtin_tools(), FORGET, UnavailableTool("web_search", "Search the web.", "needs TAVILY_API_KEY")]
)


@pytest.fixture(autouse=True)
def _clean() -> None:
    DELETED.clear()


def runner(**budgets: int) -> ToolRunner:
    return ToolRunner(CATALOG, ToolPolicy(budgets=budgets))


def run_json(
    capsys: pytest.CaptureFixture[str], name: str, args: str, **kw: Any
) -> tuple[int, dict[str, Any]]:
    code = run_tool(kw.pop("tools", runner()), name, args, as_json=True, **kw)
    return code, json.loads(capsys.readouterr().out)


def test_list_shows_every_tool_with_availability_and_reason(capsys: pytest.CaptureFixture[str]) -> None:
    assert list_tools(CATALOG, as_json=True) == 0
    tools = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tools"]}
    assert (
        tools["calculator"]["available"] is True
        and "expression" in tools["calculator"]["parameters"]["properties"]
    )
    assert tools["forget"]["side_effects"] is True
    assert tools["web_search"] == {
        "name": "web_search",
        "description": "Search the web.",
        "parameters": {},
        "available": False,
        "reason": "needs TAVILY_API_KEY",
    }
    assert [t["name"] for t in tool_entries(CATALOG)][-1] == "web_search"  # available ones first


def test_list_in_text_says_why_a_tool_is_off(capsys: pytest.CaptureFixture[str]) -> None:
    list_tools(CATALOG, as_json=False)
    out = capsys.readouterr().out
    assert "web_search: Search the web.  [unavailable: needs TAVILY_API_KEY]" in out
    assert "forget: Forget everything about a topic.  [asks for approval]" in out


def test_run_calls_a_tool(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json(capsys, "calculator", '{"expression": "2+2"}') == (
        0,
        {"ok": True, "output": "4", "error": None},
    )


def test_an_unavailable_tool_fails_with_its_reason(capsys: pytest.CaptureFixture[str]) -> None:
    code, payload = run_json(capsys, "web_search", '{"query": "x"}')
    assert (
        code == 1
        and payload["ok"] is False
        and payload["error"] == "web_search is unavailable: needs TAVILY_API_KEY"
    )


def test_a_side_effect_tool_runs_only_with_approve(capsys: pytest.CaptureFixture[str]) -> None:
    code, payload = run_json(capsys, "forget", '{"topic": "cats"}')
    assert code == 1 and "add --approve" in payload["error"] and DELETED == []
    code, payload = run_json(capsys, "forget", '{"topic": "cats"}', approve=True)
    assert code == 0 and payload["output"] == "forgot cats" and DELETED == ["cats"]


def test_a_tool_with_no_budget_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, payload = run_json(capsys, "calculator", '{"expression": "1"}', tools=runner(calculator=0))
    assert code == 1 and "budget of 0 calculator calls" in payload["error"]


@pytest.mark.parametrize("raw", ["{", "[1, 2]", '"text"'])
def test_arguments_must_be_a_json_object(raw: str) -> None:
    with pytest.raises(UserInputError):
        parse_arguments(raw)


class ProposingOrchestrator:
    """Stands in for the orchestrator: every turn proposes `forget` and answers."""

    default_model = "scripted"
    model_names = ["scripted"]

    def new_session(self) -> str:
        return "s1"

    async def run_turn(self, text: str, **_: Any) -> AsyncIterator[RunEvent]:
        yield ToolProposal(ToolCall("p1", "forget", {"topic": text}), FORGET.description)
        yield Done(answer="I proposed it.")


def chat(answers: list[str], tools: ToolRunner | None) -> str:
    """Run the REPL over scripted input lines; what it printed."""
    lines = iter(answers)
    repl = Repl(cast(Conversation, ProposingOrchestrator()), tools=tools)  # the fake only plays turns
    out = io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        repl.run(read=lambda prompt: (print(prompt, end=""), next(lines))[1])
    return out.getvalue()


def test_the_repl_runs_a_proposal_only_on_an_explicit_yes() -> None:
    out = chat(["cats", "", "dogs", "y", "/quit"], runner())
    assert DELETED == ["dogs"]
    assert 'Run forget {"topic": "cats"} (Forget everything about a topic.)? [y/N]' in out
    assert "not run" in out and "[forget ok] forgot dogs" in out


def test_without_a_tool_runner_the_repl_only_shows_how_to_run_it() -> None:
    out = chat(["cats", "/quit"], None)
    assert DELETED == [] and 'python main.py tool run forget --args \'{"topic": "cats"}\' --approve' in out


def test_the_printer_collects_proposals() -> None:
    printer = TurnPrinter(io.StringIO(), err := io.StringIO())
    printer(ToolProposal(ToolCall("p", "forget", {"topic": "x"}), "Forget."))
    assert len(printer.proposals) == 1 and "[proposed, not run] forget" in err.getvalue()


def test_runner_is_async_and_reusable() -> None:
    outcome = asyncio.run(runner().run(ToolCall("1", "calculator", {"expression": "3*3"})))
    assert outcome.ok and outcome.output == "9"


def test_ask_json_lists_proposals_with_the_command_that_runs_them() -> None:
    proposal = ToolProposal(ToolCall("p", "forget", {"topic": "it's"}), "Forget.")
    payload = ask_payload(Done(answer="ok"), [proposal])
    assert payload["proposals"] == [
        {
            "name": "forget",
            "arguments": {"topic": "it's"},
            "run_with": 'python main.py tool run forget --args \'{"topic": "it\'"\'"\'s"}\' --approve',
        }
    ]
    assert ask_payload(Done(answer="ok"))["proposals"] == []
