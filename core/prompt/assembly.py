"""Fitting sections into a token budget: reserve, fill by priority, emit in attention order, verify.

1. The system prompt and the current query are reserved first, then the recent-conversation floor (the
   last `floor_turns` turns). Floors are part of the budget: when they do not fit whole they are cut
   (middle-out), never allowed to push the total over.
2. The other sections get what is left in priority order, item by item (best first, at most
   the intent's item limit, each cut to `item_tokens`); an item that does not fit is dropped with that reason.
3. Sections are emitted in `order`; empty ones are omitted. The total is counted on the rendered text,
   and if the counter disagrees with the sum of the parts, the lowest-priority items go until it fits.
So the assembled prompt never exceeds the budget.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.errors import UserInputError
from core.prompt.compression import middle_out
from core.prompt.sections import EMIT_ORDER, QUERY, QUERY_MARKER, RECENT, SECTIONS, users_words
from core.prompt.tokens import MESSAGE_OVERHEAD, TokenCounter
from core.types import Message

MIN_BUDGET = 64  # below this not even a short question fits beside the message overheads


@dataclass(frozen=True)
class PromptItem:
    """One entry of a section. `why` explains its presence (`--explain`); `cite` is its citation marker."""

    text: str
    id: str = ""
    score: float = 0.0
    why: str = ""
    cite: str = ""
    pinned: bool = False  # part of a floor: cut to fit, never dropped while anything else can go
    collection: str = ""  # the store it came from ("conversations", "facts", "journal"; "" for none)
    label: str = ""  # where it came from, for people: a reply's numbered source shows this ("" -> text)


@dataclass(frozen=True)
class RenderedSection:
    key: str
    header: str
    items: tuple[PromptItem, ...]
    tokens: int
    why: str = ""
    dropped: tuple[tuple[str, str], ...] = ()  # (item id or text head, reason)

    @property
    def text(self) -> str:
        return render_section(self.header, self.items)


@dataclass(frozen=True)
class AssembledPrompt:
    system: str
    sections: tuple[RenderedSection, ...]
    budget: int
    total_tokens: int
    counter: str
    omitted: Mapping[str, str] = field(default_factory=dict)  # section key -> why it is not there

    def user_text(self) -> str:
        return "\n\n".join(section.text for section in self.sections)

    def messages(self) -> list[Message]:
        """Chat messages: the system prompt with every context section, then the user's own words as the
        user message (what chat models are trained on; no model sees "The user says:"). This sends at most
        what `total_tokens` counted: the same text, minus the query's header and marker."""
        context = [s.text for s in self.sections if s.key != QUERY]
        query = next((s for s in self.sections if s.key == QUERY), None)
        words = users_words(query.items[0].text) if query and query.items else ""
        before = query.items[0].text[: -len(words) - len(QUERY_MARKER)].strip() if query and words else ""
        if before:  # the last exchange the query follows stays in the context, under the query's header
            context.append(f"### {query.header}\n{before}" if query else before)
        system = "\n\n".join([self.system, *context])
        return [Message("system", system), Message("user", words)]

    def as_dict(self, *, explain: bool = False) -> dict[str, Any]:
        """The `prompt --json` object: sections {key, header, tokens, items} in emitted order, totals,
        budget. Each item is {marker, text, source, collection}: what the model saw, checkable by a script
        (`source` is the record's id); `explain` adds each item's id, cite and why, and what was dropped."""
        sections = []
        for s in self.sections:
            entry: dict[str, Any] = {"key": s.key, "header": s.header, "tokens": s.tokens}
            entry["items"] = [
                {"marker": i.cite.strip("[]"), "text": i.text, "source": i.id, "collection": i.collection}
                | ({"id": i.id, "cite": i.cite, "why": i.why} if explain else {})
                for i in s.items
            ]
            if explain:
                entry["why"] = s.why
                entry["dropped"] = [{"item": item, "reason": reason} for item, reason in s.dropped]
            sections.append(entry)
        payload: dict[str, Any] = {
            "sections": sections,
            "total_tokens": self.total_tokens,
            "budget": self.budget,
        }
        if explain:
            payload |= {"counter": self.counter, "omitted": dict(self.omitted), "system": self.system}
        return payload


@dataclass(frozen=True)
class SectionContent:
    """What a source offers for one section, best first, and why the section is considered."""

    key: str
    items: tuple[PromptItem, ...]
    why: str = ""


def render_section(header: str, items: Sequence[PromptItem]) -> str:
    lines = [f"### {header}"]
    lines += [f"{item.cite} {item.text}".strip() if item.cite else item.text for item in items]
    return "\n".join(lines)


class Assembler:
    """Fits section contents into a budget with one token counter."""

    def __init__(self, counter: TokenCounter, *, floor_turns: int = 5) -> None:
        self.counter = counter
        self.floor_turns = floor_turns

    def assemble(self, system: str, contents: Mapping[str, SectionContent], budget: int) -> AssembledPrompt:
        if budget < MIN_BUDGET:
            raise UserInputError(f"a prompt budget of {budget} tokens is too small (minimum {MIN_BUDGET})")
        omitted = {key: "nothing to show" for key in EMIT_ORDER if not _has_items(contents, key)}
        system = middle_out(system, max(0, budget - 2 * MESSAGE_OVERHEAD), self.counter)
        left = budget - self._cost(system) - MESSAGE_OVERHEAD  # the user message's own overhead
        chosen: dict[str, list[PromptItem]] = {}
        dropped: dict[str, list[tuple[str, str]]] = {}
        for key in self._reserved_first(contents):
            items, spent, lost = self._fill(SECTIONS[key].header, contents[key].items, left, key)
            chosen[key], dropped[key] = items, lost
            left -= spent
        return self._verify(system, contents, chosen, dropped, budget, omitted)

    def _reserved_first(self, contents: Mapping[str, SectionContent]) -> list[str]:
        keys = [key for key in contents if contents[key].items and key in SECTIONS]
        return sorted(keys, key=lambda k: (k != QUERY, k != RECENT, -SECTIONS[k].priority))

    def _fill(
        self, header: str, items: Sequence[PromptItem], left: int, key: str
    ) -> tuple[list[PromptItem], int, list[tuple[str, str]]]:
        spec = SECTIONS[key]
        head = self._cost(f"### {header}") + 1
        if key == RECENT:
            return self._fill_floor(head, items, left)
        kept: list[PromptItem] = []
        lost: list[tuple[str, str]] = []
        spent = head
        limit = spec.item_tokens if key != QUERY else max(0, left - head)
        for item in items if key != QUERY else items[:1]:  # the builder applied the intent's item limit
            room = max(0, left - spent - 1)  # the line break after the item
            fitted = replace(item, text=middle_out(item.text, min(limit, room), self.counter))
            cost = self._cost(self._line(fitted)) + 1
            if fitted.text and spent + cost <= left:
                kept.append(fitted)
                spent += cost
            else:
                lost.append((_label(item), "no budget left"))

        return (kept, spent, lost) if kept else ([], 0, lost)

    def _fill_floor(
        self, head: int, items: Sequence[PromptItem], left: int
    ) -> tuple[list[PromptItem], int, list[tuple[str, str]]]:
        """Recent turns: the newest `floor_turns` are pinned (cut evenly to fit), older ones fill in after."""
        floor = list(items[-self.floor_turns :])
        older = list(items[: -self.floor_turns])[::-1]
        share = max(0, (left - head) // max(1, len(floor)) - 1)
        per_item = min(SECTIONS[RECENT].item_tokens, share)
        kept = [replace(i, text=middle_out(i.text, per_item, self.counter), pinned=True) for i in floor]
        kept = [i for i in kept if i.text]
        spent = head + sum(self._cost(self._line(i)) + 1 for i in kept)
        lost: list[tuple[str, str]] = []
        for item in older:  # newest of the older turns first
            fitted = replace(item, text=middle_out(item.text, SECTIONS[RECENT].item_tokens, self.counter))
            cost = self._cost(self._line(fitted)) + 1
            if len(kept) < SECTIONS[RECENT].max_items and spent + cost <= left:
                kept.insert(0, fitted)
                spent += cost
            else:
                lost.append((_label(item), "no budget left"))
        return (kept, spent, lost) if kept else ([], 0, lost)

    def _verify(
        self,
        system: str,
        contents: Mapping[str, SectionContent],
        chosen: dict[str, list[PromptItem]],
        dropped: dict[str, list[tuple[str, str]]],
        budget: int,
        omitted: dict[str, str],
    ) -> AssembledPrompt:
        """Render, count the whole, and drop lowest-priority items while the real count is over budget."""
        while True:
            sections = self._render(contents, chosen, dropped)
            user = "\n\n".join(s.text for s in sections)
            total = self._cost(system) + self._cost(user) + 2 * MESSAGE_OVERHEAD
            if total <= budget or not self._shed(chosen, dropped):
                break
        for key in EMIT_ORDER:
            if _has_items(contents, key) and not chosen.get(key):
                omitted[key] = "no budget left"
        if total > budget:  # nothing left to shed: the query itself must shrink
            sections, total = self._shrink_query(system, sections, budget)
        return AssembledPrompt(system, tuple(sections), budget, total, self.counter.name, omitted)

    def _shed(self, chosen: dict[str, list[PromptItem]], dropped: dict[str, list[tuple[str, str]]]) -> bool:
        order = sorted((k for k, v in chosen.items() if v and k != QUERY), key=lambda k: SECTIONS[k].priority)
        for key in order:
            loose = [i for i in chosen[key] if not i.pinned]
            victim = loose[-1] if loose else (chosen[key][0] if key == RECENT else None)
            if victim is not None:
                chosen[key].remove(victim)
                dropped.setdefault(key, []).append((_label(victim), "over budget after counting"))
                return True
        return False

    def _shrink_query(
        self, system: str, sections: list[RenderedSection], budget: int
    ) -> tuple[list[RenderedSection], int]:
        query = next((s for s in sections if s.key == QUERY), None)
        fixed = self._cost(system) + 2 * MESSAGE_OVERHEAD
        if query is None or not query.items:
            return [], fixed
        room = max(0, budget - fixed - self._cost(f"### {query.header}") - 2)
        item = replace(query.items[0], text=middle_out(query.items[0].text, room, self.counter))
        shrunk = replace(query, items=(item,) if item.text else ())
        total = fixed + self._cost(shrunk.text)
        if total > budget or not item.text:
            return [], fixed
        return [replace(shrunk, tokens=self._cost(shrunk.text))], total

    def _render(
        self,
        contents: Mapping[str, SectionContent],
        chosen: Mapping[str, list[PromptItem]],
        dropped: Mapping[str, list[tuple[str, str]]],
    ) -> list[RenderedSection]:
        out = []
        for key in EMIT_ORDER:
            items = tuple(chosen.get(key, ()))
            if not items:
                continue
            spec = SECTIONS[key]
            lost = tuple(dropped.get(key, ()))
            section = RenderedSection(key, spec.header, items, 0, contents[key].why, lost)
            out.append(replace(section, tokens=self._cost(section.text)))
        return out

    def _line(self, item: PromptItem) -> str:
        return f"{item.cite} {item.text}".strip() if item.cite else item.text

    def _cost(self, text: str) -> int:
        return self.counter.count(text)


def _label(item: PromptItem) -> str:
    return item.id or item.text[:40]


def _has_items(contents: Mapping[str, SectionContent], key: str) -> bool:
    return key in contents and bool(contents[key].items)
