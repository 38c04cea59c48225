"""Tool calling for models without native function calling: XML markers and constrained JSON."""

from __future__ import annotations

import jsonschema
import pytest

from core.agent.limits import RunLimits
from core.agent.loop import AgentRunner
from core.agent.xml_protocol import (
    FINAL_NUDGE,
    MarkerFilter,
    choice_schema,
    parse_json_choice,
    parse_xml_calls,
    select_protocol,
)
from core.events import Done, RunEvent, TextDelta, ToolCallEnded
from core.providers.base import ProviderProfile
from core.providers.fake import ScriptedProvider
from core.tools.builtin import builtin_toolset, calculator
from core.tools.toolset import Toolset
from core.types import Message, ModelResponse, Usage

XML_PROFILE = ProviderProfile(native_tools=False)
JSON_PROFILE = ProviderProfile(native_tools=False, json_schema=True, local=True)
QUESTION = [Message("system", "You are Daemon."), Message("user", "What is 2 + 3?")]


async def run(
    provider: ScriptedProvider, tools: Toolset | None = None, *, limits: RunLimits | None = None
) -> list[RunEvent]:
    runner = AgentRunner(provider, tools or builtin_toolset(), limits=limits)
    events = [e async for e in runner.run(QUESTION)]
    provider.assert_complete()
    return events


def test_protocol_selection() -> None:
    assert type(select_protocol(ProviderProfile(), True)).__name__ == "NativeProtocol"
    assert type(select_protocol(XML_PROFILE, True)).__name__ == "XmlProtocol"
    assert type(select_protocol(JSON_PROFILE, True)).__name__ == "JsonProtocol"
    assert type(select_protocol(XML_PROFILE, False)).__name__ == "NativeProtocol"  # no tools: plain chat


async def test_xml_round_trip() -> None:
    first = 'Let me calculate.\n<tool_call name="calculator">\n  {"expression": "2 + 3"}\n</tool_call>'
    provider = ScriptedProvider([first, "2 + 3 = 5."], profile=XML_PROFILE, chunk_size=5)
    events = await run(provider)
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "2 + 3 = 5." and done.exit_reason == "answer"
    shown = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert "tool_call" not in shown and "expression" not in shown
    assert shown.startswith("Let me calculate.")

    request = provider.requests[0]
    assert request.tools == () and "<tool_result" in request.stop
    system = request.messages[0]
    assert system.role == "system" and system.content.startswith("You are Daemon.")
    assert '<tool_call name="TOOL_NAME">' in system.content and "- calculator:" in system.content
    assert "expression (string, required)" in system.content

    history = provider.requests[1].messages
    assert history[-2] == Message("assistant", first)
    assert history[-1].role == "user"
    assert '<tool_result name="calculator" id="call_1_1" ok="true">\n5\n</tool_result>' in history[-1].content
    assert "untrusted data" in history[-1].content
    assert QUESTION[0].content == "You are Daemon."  # the caller's system message is untouched


async def test_xml_bad_json_is_sent_back_as_an_error() -> None:
    bad = "<tool_call name=\"calculator\">{'expression': '2+3'}</tool_call>"
    good = '<tool_call name="calculator">{"expression": "2+3"}</tool_call>'
    provider = ScriptedProvider([bad, good, "5"], profile=XML_PROFILE)
    events = await run(provider)
    ended = [e for e in events if isinstance(e, ToolCallEnded)]
    assert [e.ok for e in ended] == [False, True]
    assert "not valid JSON" in ended[0].output and "double quotes" in ended[0].output
    assert 'ok="false"' in provider.requests[1].messages[-1].content
    assert isinstance(events[-1], Done) and events[-1].answer == "5"


async def test_xml_final_call_after_limit_strips_stray_calls() -> None:
    call = '<tool_call name="calculator">{"expression": "1"}</tool_call>'
    provider = ScriptedProvider([call, f"Best I can say: 1. {call}"], profile=XML_PROFILE)
    events = await run(provider, limits=RunLimits(max_rounds=1))
    done = events[-1]
    assert isinstance(done, Done) and done.exit_reason == "max_rounds"
    assert done.answer == "Best I can say: 1."
    assert provider.requests[1].messages[-1] == Message("user", FINAL_NUDGE)


def test_parse_xml_calls_is_tolerant() -> None:
    text = (
        "Checking two things.\n"
        '<tool_call name = \'calculator\' >{"expression": "1+1"}</tool_call >\n'
        '<TOOL_CALL name=current_time>\n```json\n{"timezone": "UTC"}\n```\n</TOOL_CALL>\n'
        '<tool_result name="calculator">2</tool_result>\n'
        '<tool_call>{"name": "calculator", "arguments": {"expression": "3"}}</tool_call>\n'
        '<tool_call name="current_time"/>\n'
        '<tool_call name="calculator">{"expression": "4"}'
    )
    decision = parse_xml_calls(text, round_no=3)
    assert decision.answer == "Checking two things."
    assert [(c.id, c.name, c.arguments) for c in decision.calls] == [
        ("call_3_1", "calculator", {"expression": "1+1"}),
        ("call_3_2", "current_time", {"timezone": "UTC"}),
        ("call_3_3", "calculator", {"expression": "3"}),
        ("call_3_4", "current_time", {}),
        ("call_3_5", "calculator", {"expression": "4"}),
    ]
    assert decision.errors == {}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{'expression': '1'}", "not valid JSON"),
        ('["1"]', "must be a JSON object"),
        ("__import__('os').system('id')", "not valid JSON"),
    ],
)
def test_parse_xml_calls_reports_bad_arguments(body: str, message: str) -> None:
    decision = parse_xml_calls(f'<tool_call name="calculator">{body}</tool_call>')
    assert decision.calls[0].arguments == {}
    assert message in decision.errors["call_1_1"]


def test_parse_xml_calls_without_a_name() -> None:
    decision = parse_xml_calls('<tool_call>{"expression": "1"}</tool_call>')
    assert "needs a name" in decision.errors["call_1_1"]


def test_marker_filter_hides_markup_split_across_chunks() -> None:
    text = 'Sure. <tool_call name="x">{"a": 1}</tool_call> Then <tool_result>fake</tool_result>done. a < b'
    for size in (1, 2, 3, 7, 100):
        marker_filter = MarkerFilter()
        shown = "".join(marker_filter.feed(text[i : i + size]) for i in range(0, len(text), size))
        shown += marker_filter.flush()
        assert shown == "Sure.  Then done. a < b", size


def test_choice_schema_accepts_calls_and_answers_only() -> None:
    schema = choice_schema(Toolset([calculator]).specs())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"tool": "calculator", "arguments": {"expression": "1"}})
    assert validator.is_valid({"answer": "hello"})
    assert not validator.is_valid({"tool": "calculator", "arguments": {"expr": "1"}})
    assert not validator.is_valid({"tool": "shell", "arguments": {}})
    assert not validator.is_valid({"answer": "x", "tool": "calculator"})
    assert [list(b["properties"]) for b in schema["oneOf"]] == [["tool", "arguments"], ["answer"]]


def test_parse_json_choice() -> None:
    call = parse_json_choice('```json\n{"tool": "calculator", "arguments": {"expression": "1"}}\n```', 2)
    assert call.calls[0].id == "call_2_1" and call.calls[0].arguments == {"expression": "1"}
    assert parse_json_choice('{"answer": " Hi! "}').answer == "Hi!"
    assert parse_json_choice("plain words").answer == "plain words"
    assert parse_json_choice('{"other": 1}').answer == '{"other": 1}'
    bad = parse_json_choice('{"tool": "calculator", "arguments": "1+1"}')
    assert "must be a JSON object" in bad.errors["call_1_1"]


async def test_constrained_json_path() -> None:
    call = '{"tool": "calculator", "arguments": {"expression": "2 + 3"}}'
    answer = '{"answer": "It is 5."}'
    steps = [ModelResponse(call, usage=Usage(30, 12)), ModelResponse(answer, usage=Usage(50, 6))]
    provider = ScriptedProvider(steps, profile=JSON_PROFILE)
    events = await run(provider)
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "It is 5." and done.usage == Usage(80, 18)
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["It is 5."]  # raw JSON is never shown

    request = provider.requests[0]
    assert request.tools == () and request.response_schema is not None
    validator = jsonschema.Draft202012Validator(request.response_schema)
    assert validator.is_valid({"tool": "calculator", "arguments": {"expression": "2 + 3"}})
    assert 'To call a tool: {"tool": "TOOL_NAME"' in request.messages[0].content
    history = provider.requests[1].messages
    assert history[-2] == Message("assistant", call)
    assert '<tool_result name="calculator" id="call_1_1" ok="true">\n5\n</tool_result>' in history[-1].content


async def test_constrained_json_final_call_allows_only_an_answer() -> None:
    call = '{"tool": "calculator", "arguments": {"expression": "1"}}'
    provider = ScriptedProvider([call, '{"answer": "1"}'], profile=JSON_PROFILE)
    events = await run(provider, limits=RunLimits(max_rounds=1))
    final_schema = provider.requests[1].response_schema
    assert final_schema == choice_schema(())
    assert isinstance(events[-1], Done) and events[-1].answer == "1"
