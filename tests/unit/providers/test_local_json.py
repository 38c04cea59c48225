"""Constrained JSON for the local model, with a scripted LM: branch choice, forced skeletons, repair."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

import pytest

from core.errors import ProviderError
from core.providers.json_constrain import (
    JsonTask,
    constrained_json,
    describe,
    schema_hint,
    tool_branches,
    unwrap_answer,
    validation_error,
    with_system_hint,
)

Messages = list[dict[str, str]]


def _tool(name: str, **props: str) -> dict:
    return {
        "type": "object",
        "properties": {
            "tool": {"const": name},
            "arguments": {
                "type": "object",
                "properties": {k: {"type": v} for k, v in props.items()},
                "required": list(props),
            },
        },
        "required": ["tool", "arguments"],
        "additionalProperties": False,
    }


ANSWER = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
SCHEMA = {"oneOf": [_tool("get_weather", city="string"), _tool("calculator", expression="string"), ANSWER]}
USER = [{"role": "user", "content": "What is the weather in Paris?"}]


class ScriptedLM:
    """`scorer(messages, prefix, candidates)` and `writer(prefix)` stand in for the model."""

    def __init__(
        self,
        scorer: Callable[[Messages, str, Sequence[str]], list[float]] | None = None,
        writer: Callable[[str], str] | None = None,
    ) -> None:
        self.scorer = scorer or (lambda m, p, c: [0.0] * len(c))
        self.writer = writer or (lambda prefix: "")
        self.scored: list[tuple[Messages, str, list[str]]] = []
        self.prefixes: list[str] = []
        self.schemas: list[dict | None] = []

    def score(self, messages: Messages, prefix: str, candidates: Sequence[str]) -> list[float]:
        self.scored.append((messages, prefix, list(candidates)))
        return self.scorer(messages, prefix, candidates)

    def complete_text(
        self,
        messages: Messages,
        prefix: str,
        *,
        max_tokens: int,
        stop: Sequence[str],
        temperature: float = 0.0,
        schema: dict | None = None,
    ) -> str:
        self.prefixes.append(prefix)
        self.schemas.append(schema)
        return self.writer(prefix)


def keyword_channel(messages: Messages, prefix: str, candidates: Sequence[str]) -> list[float]:
    """A fake channel scorer: words shared by the tool description and the request."""
    description = set(messages[-1]["content"].lower().replace(".", " ").split())
    return [float(len(description & set(c.lower().rstrip("?").split()))) for c in candidates]


def test_tool_branches_reads_the_agent_schema_shape() -> None:
    branches = tool_branches(SCHEMA)
    assert branches is not None
    assert [b.name for b in branches] == ["get_weather", "calculator", None]
    assert branches[2].answer_key == "answer"
    assert branches[0].args_schema["required"] == ["city"]
    assert tool_branches({"type": "object"}) is None
    assert tool_branches({"oneOf": [{"type": "string"}]}) is None


def test_channel_scoring_picks_the_tool_and_forces_the_skeleton() -> None:
    lm = ScriptedLM(keyword_channel, lambda prefix: "Paris")
    task = JsonTask(
        USER,
        SCHEMA,
        request_text=USER[0]["content"],
        descriptions={"get_weather": "Get the weather for a city."},
    )
    text = constrained_json(lm, task)
    assert json.loads(text) == {"tool": "get_weather", "arguments": {"city": "Paris"}}
    # one channel prompt per branch, each scoring the same request
    assert [c for _, _, c in lm.scored] == [[USER[0]["content"]]] * 3
    assert lm.prefixes == ['{"tool": "get_weather", "arguments": {"city": "']


def test_direct_scoring_rates_json_openings() -> None:
    def prefer_calculator(messages: Messages, prefix: str, candidates: Sequence[str]) -> list[float]:
        return [1.0 if "calculator" in c else 0.0 for c in candidates]

    lm = ScriptedLM(prefer_calculator, lambda prefix: "2+2")
    text = constrained_json(lm, JsonTask(USER, SCHEMA, method="direct"))
    assert json.loads(text) == {"tool": "calculator", "arguments": {"expression": "2+2"}}
    assert lm.scored[0][2] == ['{"tool": "get_weather"', '{"tool": "calculator"', '{"answer": "']


def test_answer_branch_is_free_text_wrapped_and_unwrapped() -> None:
    def prefer_answer(messages: Messages, prefix: str, candidates: Sequence[str]) -> list[float]:
        return [1.0 if "answer" in messages[-1]["content"] else 0.0 for _ in candidates]

    lm = ScriptedLM(prefer_answer, lambda prefix: '{"answer": "Paris is the capital."}')
    text = constrained_json(lm, JsonTask(USER, SCHEMA, request_text="capital of France?"))
    assert json.loads(text) == {"answer": "Paris is the capital."}
    assert lm.prefixes == [""]  # the answer was written freely, not inside a forced JSON string


def test_copied_format_example_triggers_one_sampled_retry() -> None:
    replies = iter(['{"answer": "your answer"}', "It is sunny."])
    lm = ScriptedLM(writer=lambda prefix: next(replies))
    messages = [{"role": "system", "content": 'Reply {"tool": ...} or {"answer": "your answer"}'}, *USER]
    task = JsonTask(messages, {"oneOf": [ANSWER]}, request_text="weather?")
    assert json.loads(constrained_json(lm, task)) == {"answer": "It is sunny."}


def test_tool_choice_and_already_called_restrict_the_candidates() -> None:
    lm = ScriptedLM(keyword_channel, lambda prefix: "1+1")
    forced = JsonTask(USER, SCHEMA, tool_choice="calculator", request_text=USER[0]["content"])
    assert json.loads(constrained_json(lm, forced))["tool"] == "calculator"
    assert lm.scored == []  # a single candidate needs no scoring

    after = JsonTask(USER, SCHEMA, request_text=USER[0]["content"], already_called=frozenset({"get_weather"}))
    lm2 = ScriptedLM(lambda m, p, c: [0.0, 5.0], lambda prefix: "It is 18 C.")
    assert json.loads(constrained_json(lm2, after)) == {"answer": "It is 18 C."}
    assert lm2.scored[0][2] == ['{"tool": "calculator"', '{"answer": "']  # direct scoring, weather gone


def test_generic_object_schema_fills_typed_fields() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer"},
            "ok": {"type": "boolean"},
            "mood": {"enum": ["happy", "sad"]},
            "kind": {"const": "person"},
        },
        "required": ["name", "age", "ok", "mood", "kind"],
    }

    def writer(prefix: str) -> str:
        return "Ada" if prefix.endswith('"name": "') else " 36, and"

    def scorer(messages: Messages, prefix: str, candidates: Sequence[str]) -> list[float]:
        return [1.0 if c in ("false", '"sad"') else 0.0 for c in candidates]

    text = constrained_json(ScriptedLM(scorer, writer), JsonTask(USER, schema))
    assert json.loads(text) == {"name": "Ada", "age": 36, "ok": False, "mood": "sad", "kind": "person"}


def test_non_object_schema_extracts_the_first_balanced_value() -> None:
    schema = {"type": "array", "items": {"type": "integer"}}
    lm = ScriptedLM(writer=lambda prefix: "1, 2, 3] and then some [4]")
    assert json.loads(constrained_json(lm, JsonTask(USER, schema))) == [1, 2, 3]
    assert lm.prefixes == ["["]


def test_invalid_output_is_repaired_once_then_fails_clearly() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "string", "minLength": 5}}, "required": ["n"]}
    replies = iter(["ab", "abcdef"])
    lm = ScriptedLM(writer=lambda prefix: next(replies))
    assert json.loads(constrained_json(lm, JsonTask(USER, schema))) == {"n": "abcdef"}

    stubborn = ScriptedLM(writer=lambda prefix: "ab")
    with pytest.raises(ProviderError, match="did not produce JSON matching the schema"):
        constrained_json(stubborn, JsonTask(USER, schema))
    assert len(stubborn.prefixes) == 2  # bounded: one try, one repair


def test_grammar_backends_get_a_schema_for_values_without_a_filler_rule() -> None:
    tags = {"type": "array", "items": {"type": "string"}}
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "tags": tags},
        "required": ["name", "tags"],
    }
    lm = ScriptedLM(writer=lambda prefix: "Ada" if prefix.endswith('"name": "') else ' ["x",\n "y"] ')
    assert json.loads(constrained_json(lm, JsonTask(USER, schema, grammar=True))) == {
        "name": "Ada",
        "tags": ["x", "y"],
    }
    assert lm.schemas == [None, tags]
    assert lm.prefixes[1] == '{"name": "Ada", "tags": '  # the grammar continues the forced skeleton


def test_hint_describe_and_helpers() -> None:
    hint = schema_hint(SCHEMA, {"calculator": "Evaluate math."})
    assert "get_weather(city)" in hint and "calculator(expression): evaluate math" in hint
    assert '{"answer": "..."}' in hint
    branches = tool_branches(SCHEMA) or []
    assert describe(branches[0], {}) == "get weather (city)"
    hinted = with_system_hint([{"role": "system", "content": "Be kind."}, *USER], "HINT")
    assert hinted[0]["content"] == "Be kind.\n\nHINT"
    agent = [{"role": "system", "content": 'Reply {"tool": "X"}'}, *USER]
    assert with_system_hint(agent, "HINT") == agent  # the agent already described the format


def test_unwrap_answer_and_validation_error() -> None:
    assert unwrap_answer("Plain.", "answer") == "Plain."
    assert unwrap_answer('{"answer": "cut off mid', "answer") == "cut off mid"
    assert validation_error('{"answer": "x"}', ANSWER) is None
    assert "not valid JSON" in (validation_error("{nope", ANSWER) or "")
    assert "does not match" in (validation_error('{"answer": 3}', ANSWER) or "")
