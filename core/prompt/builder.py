"""From a turn's gathered context to the prompt: sections filled per intent, fitted to the budget.

Each source becomes a section's items, best first, each with a reason (`--explain`). Memories get citation
markers ([M1], [M2], …) that answers may use; `citation_map` turns the markers back into the items, so a
front end can show the source of every claim. The system prompt carries the personality, principles,
citation protocol and this turn's tone instructions; the user message carries the sections, ending with
the current query.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from core.prompt.assembly import AssembledPrompt, Assembler, PromptItem, SectionContent
from core.prompt.compression import ModelCompressor
from core.prompt.sections import QUERY, RECENT, SECTIONS, item_limit, sections_for
from core.prompt.sources import inventory_items, memory_sections, query_item, time_items, turn_item
from core.prompt.tokens import TokenCounter
from core.relations import fact_sentence, fact_to_user
from core.turn_context import TurnContext

CITATION_PROTOCOL = (
    "Citations: items in the context carry markers such as [M1] (memories), [F1] (facts about the user) or "
    "[W1] (web results). When "
    'your answer relies on one, put its marker right after the claim, e.g. "Jo lives in Denver [M2]." '
    "Never invent a marker. Items marked [HISTORICAL -- PARTIALLY OUTDATED] may be superseded: prefer newer "
    "facts and the user profile. Items marked [NO LONGER TRUE] were true once and have been replaced: use "
    "them only for questions about the past."
)


class PromptBuilder:
    """Builds the messages of one turn within a token budget."""

    def __init__(
        self,
        system_prompt: str | Callable[[], str],
        counter: TokenCounter,
        budget: int,
        *,
        floor_turns: int = 5,
        compressor: ModelCompressor | None = None,
        disabled: frozenset[str] = frozenset(),
        inventory: Callable[[], Sequence[str]] | None = None,
        changes: Callable[[float | None], Sequence[str]] | None = None,
        clock: Callable[[], float] = time.time,
        skills: Callable[[], Sequence[str]] | None = None,
    ) -> None:
        """`skills`: the skills catalog (one line per skill), read each turn; with any, the adaptive
        workflows section lists them whatever the intent, for the model to load one with `use_skill`."""
        # A callable is read on every turn: a personality edited in the Settings tab applies to the next one.
        self._system = system_prompt if callable(system_prompt) else (lambda: system_prompt)
        self._assembler = Assembler(counter, floor_turns=floor_turns)
        self.budget = budget
        self._compressor = compressor
        self._disabled = disabled
        self._inventory = inventory
        self._changes = changes
        self._clock = clock
        self._skills = skills

    async def build(self, context: TurnContext, *, budget: int | None = None) -> AssembledPrompt:
        intent = context.analysis.intent if context.analysis else "general"
        allowed = sections_for(intent, self._disabled)
        catalog = list(self._skills()) if self._skills is not None else []
        if catalog and SKILLS_SECTION not in self._disabled:
            allowed |= {SKILLS_SECTION}  # a skill says itself when it applies, whatever the intent
        offered = self._contents(context, allowed)
        if catalog and SKILLS_SECTION in allowed:
            recalled = offered.get(SKILLS_SECTION, SectionContent(SKILLS_SECTION, ())).items
            offered[SKILLS_SECTION] = SectionContent(SKILLS_SECTION, (skills_item(catalog), *recalled))
        contents = {
            key: SectionContent(key, c.items[: item_limit(intent, key)], c.why)
            for key, c in offered.items()
            if c.items and key in allowed
        }
        for key, why in _intent_reasons(intent, allowed).items():
            if key in contents:
                contents[key] = SectionContent(key, contents[key].items, why)
        if self._compressor is not None:
            contents = await self._compress(contents, context.text)
        return self._assembler.assemble(self.system_for(context), contents, budget or self.budget)

    def system_for(self, context: TurnContext) -> str:
        """The system prompt with this turn's tone instructions and crisis support, when there are any."""
        notes = [f"{self._system()}\n\n{CITATION_PROTOCOL}"]
        if context.directive is not None and context.directive.instructions:
            notes.append(f"How to respond now: {context.directive.instructions}")
        if context.analysis is not None and context.analysis.support:
            support = context.analysis.support
            notes.append(f"Include this support information in your reply, gently: {support}")
        return "\n\n".join(notes)

    def _contents(self, context: TurnContext, allowed: frozenset[str]) -> dict[str, SectionContent]:
        now = context.now or self._clock()
        contents = memory_sections(context)
        contents[RECENT] = SectionContent(RECENT, tuple(turn_item(t) for t in context.history))
        contents[QUERY] = SectionContent(QUERY, (query_item(context),))
        contents["time_context"] = SectionContent("time_context", time_items(now, context.last_session_at))
        contents["context_inventory"] = SectionContent("context_inventory", inventory_items(context))
        contents["user_profile"] = SectionContent(
            "user_profile",
            tuple(
                PromptItem(
                    f"{f.category or 'other'}: {fact_sentence(f.subject, f.predicate, f.object)}",
                    id=f.id,
                    score=f.truth,
                    why=f"current fact, truth {f.truth:.2f}",
                    cite=f"[F{n}]",
                    collection="facts",
                    label=f"You told me: {fact_to_user(fact_sentence(f.subject, f.predicate, f.object))}",
                )
                for n, f in enumerate(context.profile, start=1)
            ),
        )
        contents["knowledge_graph"] = SectionContent(
            "knowledge_graph",
            tuple(
                PromptItem(s, id=f"graph{i}", why="around " + ", ".join(context.graph.entities))
                for i, s in enumerate(context.graph.sentences)
            ),
        )
        if short := context.short_term.render():
            items = tuple(PromptItem(line, why="short-term analysis") for line in short.splitlines())
            contents["short_term_context"] = SectionContent("short_term_context", items)
        if self._inventory is not None and "active_features" in allowed:
            contents["active_features"] = _lines("active_features", self._inventory(), "what is enabled")
        if self._changes is not None and "codebase_changes" in allowed:
            changes = self._changes(context.last_session_at)
            contents["codebase_changes"] = _lines("codebase_changes", changes, "git log since last session")
        return contents

    async def _compress(self, contents: dict[str, SectionContent], purpose: str) -> dict[str, SectionContent]:
        """Large items summarised by the fast model before fitting (middle-out still guards the limit)."""
        assert self._compressor is not None
        out = {}
        for key, content in contents.items():
            limit = SECTIONS[key].item_tokens
            if key in (QUERY, RECENT):
                out[key] = content
                continue
            items = [
                replace(i, text=await self._compressor.compress(i.text, limit, purpose=purpose))
                for i in content.items
            ]
            out[key] = SectionContent(key, tuple(items), content.why)
        return out


def citation_map(prompt: AssembledPrompt) -> dict[str, PromptItem]:
    """Marker -> the item it names, for every cited item the prompt actually contains."""
    return {item.cite.strip("[]"): item for s in prompt.sections for item in s.items if item.cite}


def _lines(key: str, lines: Sequence[str], why: str) -> SectionContent:
    items = tuple(PromptItem(line, id=f"{key}{i}", why=why) for i, line in enumerate(lines))
    return SectionContent(key, items)


def _intent_reasons(intent: str, allowed: frozenset[str]) -> dict[str, str]:
    return {key: f"used by intent {intent} (priority {SECTIONS[key].priority})" for key in allowed}


SKILLS_SECTION = "adaptive_workflows"
SKILLS_LEAD = "Skills the user keeps (load one with use_skill and follow its steps when it applies):"


def skills_item(catalog: Sequence[str]) -> PromptItem:
    """The skills catalog as one item of the adaptive workflows section."""
    return PromptItem(
        SKILLS_LEAD + "\n" + "\n".join(f"- {line}" for line in catalog), why="the skills folder"
    )
