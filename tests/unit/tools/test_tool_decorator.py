"""The @tool decorator: schema derivation from type hints and Google-style docstrings."""

from __future__ import annotations

from typing import Literal, Optional

import jsonschema
import pytest

from core.errors import ConfigError
from core.tools.base import Tool, parse_docstring, tool, type_schema
from core.types import ToolSpec


@tool
def search_notes(
    query: str,
    limit: int = 5,
    mode: Literal["fast", "deep"] = "fast",
    tags: list[str] | None = None,
    folder: Optional[str] = None,  # noqa: UP045 - the old spelling must work too
    threshold: float = 0.5,
    exact: bool = False,
    filters: dict = {},  # noqa: B006 - never mutated; a default to describe
) -> str:
    """Search the user's notes.

    Matches titles first, then bodies.

    Args:
        query: Words to look for.
        limit (int): How many notes to return,
            at most 50.
        mode: "fast" looks at titles only.
        tags: Only notes with all of these tags.

    Returns:
        The matching notes.
    """
    return query


def test_bare_decorator_builds_a_tool_with_description_from_docstring() -> None:
    assert isinstance(search_notes, Tool)
    assert search_notes.name == "search_notes"
    assert search_notes.description == "Search the user's notes.\n\nMatches titles first, then bodies."
    assert "Returns" not in search_notes.description
    assert search_notes.is_async is False
    assert search_notes("x") == "x"  # still callable directly


def test_schema_types_defaults_and_required() -> None:
    schema = search_notes.parameters
    props = schema["properties"]
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["query"]
    assert props["query"] == {"type": "string", "description": "Words to look for."}
    assert props["limit"] == {
        "type": "integer",
        "description": "How many notes to return, at most 50.",
        "default": 5,
    }
    assert props["mode"]["enum"] == ["fast", "deep"]
    assert props["mode"]["type"] == "string"
    assert props["mode"]["default"] == "fast"
    assert props["tags"]["type"] == ["array", "null"]
    assert props["tags"]["items"] == {"type": "string"}
    assert props["folder"]["type"] == ["string", "null"]
    assert props["threshold"] == {"type": "number", "default": 0.5}
    assert props["exact"] == {"type": "boolean", "default": False}
    assert props["filters"]["type"] == "object"


def test_schema_is_valid_and_checks_arguments() -> None:
    validator = jsonschema.Draft202012Validator(search_notes.parameters)
    validator.check_schema(search_notes.parameters)
    assert validator.is_valid({"query": "x", "mode": "deep", "tags": None})
    assert not validator.is_valid({"query": "x", "mode": "slow"})
    assert not validator.is_valid({"limit": 3})
    assert not validator.is_valid({"query": "x", "unknown": 1})


def test_decorator_with_options_and_async_function() -> None:
    @tool(name="lookup", timeout_s=2.5, retries=2, description="Look something up.")
    async def _impl(key: str) -> str:
        return key

    assert _impl.name == "lookup"
    assert _impl.timeout_s == 2.5
    assert _impl.retries == 2
    assert _impl.description == "Look something up."
    assert _impl.is_async is True


def test_spec_is_a_copy() -> None:
    spec = search_notes.spec()
    assert isinstance(spec, ToolSpec)
    assert spec.name == "search_notes"
    spec.parameters["properties"].clear()
    assert search_notes.parameters["properties"]  # the tool's own schema is untouched


def test_function_without_docstring_gets_a_readable_description() -> None:
    @tool
    def add_numbers(a: int, b: int) -> int:
        return a + b

    assert add_numbers.description == "add numbers"
    assert add_numbers.parameters["required"] == ["a", "b"]


@pytest.mark.parametrize(
    ("annotation", "expected"),
    [
        (list[int], {"type": "array", "items": {"type": "integer"}}),
        (list, {"type": "array"}),
        (tuple[str, ...], {"type": "array", "items": {"type": "string"}}),
        (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Literal[1, 2], {"enum": [1, 2], "type": "integer"}),
        (Literal["a"] | None, {"enum": ["a", None], "type": ["string", "null"]}),
        (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
        (object, {}),
    ],
)
def test_type_schema(annotation: object, expected: dict) -> None:
    assert type_schema(annotation) == expected


def test_bad_declarations_raise_config_error() -> None:
    def varargs(*items: str) -> None: ...

    with pytest.raises(ConfigError):
        tool(varargs)
    with pytest.raises(ConfigError):
        tool(name="has space")(lambda: None)
    with pytest.raises(ConfigError):
        tool(timeout_s=0)(lambda: None)
    with pytest.raises(ConfigError):
        tool(retries=-1)(lambda: None)


def test_parse_docstring_sections_and_continuations() -> None:
    description, args = parse_docstring(
        """Do a thing.

        Args:
            first (str): The first
                one, continued.
            **extra: Extra options.
        Raises:
            ValueError: never an argument.
        """
    )
    assert description == "Do a thing."
    assert args == {"first": "The first one, continued.", "extra": "Extra options."}
