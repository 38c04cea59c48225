"""Toolset: immutable, unique names, composition by merged/filtered."""

from __future__ import annotations

import pytest

from core.errors import ConfigError
from core.tools.base import Tool, tool
from core.tools.toolset import Toolset


def _make(name: str) -> Tool:
    def fn(text: str) -> str:
        """Echo text."""
        return text

    return Tool.from_function(fn, name=name)


def test_lookup_names_specs_in_declaration_order() -> None:
    tools = Toolset([_make("b"), _make("a")])
    assert tools.names() == ("b", "a")
    assert [s.name for s in tools.specs()] == ["b", "a"]
    found = tools.get("a")
    assert found is not None and found.name == "a"
    assert tools.get("missing") is None
    assert "a" in tools and "missing" not in tools
    assert len(tools) == 2
    assert [t.name for t in tools] == ["b", "a"]
    assert not Toolset()


def test_duplicate_names_are_rejected() -> None:
    with pytest.raises(ConfigError, match="'a'"):
        Toolset([_make("a"), _make("a")])


def test_merged_rejects_collisions_and_keeps_both_sides_intact() -> None:
    left, right = Toolset([_make("a")]), Toolset([_make("b")])
    merged = left.merged(right)
    assert merged.names() == ("a", "b")
    assert left.names() == ("a",) and right.names() == ("b",)
    with pytest.raises(ConfigError):
        merged.merged(Toolset([_make("b")]))


def test_filtered_returns_a_new_toolset() -> None:
    tools = Toolset([_make("keep_me"), _make("drop_me")])
    kept = tools.filtered(lambda t: t.name.startswith("keep"))
    assert kept.names() == ("keep_me",)
    assert tools.names() == ("keep_me", "drop_me")


def test_toolset_is_immutable_and_rejects_non_tools() -> None:
    tools = Toolset([_make("a")])
    with pytest.raises(AttributeError):
        tools._tools = ()
    with pytest.raises(ConfigError):
        Toolset([lambda: None])  # type: ignore[list-item]  # the non-tool is the point


def test_decorated_tools_combine() -> None:
    @tool
    def one() -> str:
        """One."""
        return "1"

    assert Toolset([one]).get("one") is one
