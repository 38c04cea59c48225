"""An immutable, ordered set of tools with unique names.

Toolsets are combined by composition (`merged`, `filtered`) rather than mutated, so one toolset can be
shared by many runs and a per-turn selection never leaks into the next turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType

from core.errors import ConfigError
from core.tools.base import Tool
from core.types import ToolSpec


class Toolset:
    """Tools in declaration order, looked up by name. Duplicate names raise `ConfigError`."""

    __slots__ = ("_by_name", "_tools")
    # Declared for the type checker only (no values: the slots hold them); set once via object.__setattr__.
    _tools: tuple[Tool, ...]
    _by_name: Mapping[str, Tool]

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        ordered = tuple(tools)
        by_name: dict[str, Tool] = {}
        for item in ordered:
            if not isinstance(item, Tool):
                raise ConfigError(f"toolset entries must be Tool objects, got {type(item).__name__}")
            if item.name in by_name:
                raise ConfigError(f"two tools are named {item.name!r}; tool names must be unique")
            by_name[item.name] = item
        object.__setattr__(self, "_tools", ordered)
        object.__setattr__(self, "_by_name", MappingProxyType(by_name))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Toolset is immutable; use merged() or filtered() to derive a new one")

    def specs(self) -> tuple[ToolSpec, ...]:
        """The specs to offer a model, in declaration order."""
        return tuple(t.spec() for t in self._tools)

    def get(self, name: str) -> Tool | None:
        """The tool with this name, or None."""
        return self._by_name.get(name)

    def names(self) -> tuple[str, ...]:
        """Tool names in declaration order."""
        return tuple(t.name for t in self._tools)

    def merged(self, other: Toolset | Iterable[Tool]) -> Toolset:
        """A new toolset with this one's tools followed by `other`'s; a shared name raises `ConfigError`."""
        return Toolset((*self._tools, *other))

    def filtered(self, predicate: Callable[[Tool], bool]) -> Toolset:
        """A new toolset with only the tools for which `predicate` is true."""
        return Toolset(t for t in self._tools if predicate(t))

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools)

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __repr__(self) -> str:
        return f"Toolset({', '.join(self.names())})"
