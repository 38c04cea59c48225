"""Prompt variants of one assembled prompt, generated from the section registry: what each section earns.

An ablation compares answers to the same message under prompts that differ in one controlled way. From a
prompt (a snapshot's, replayed) and `core.prompt.sections.SECTIONS`:

- `leave-one-out`: the prompt less one section, for each ablatable section it holds;
- `add-one-in`: the fixed sections alone (those the registry marks not ablatable: the recent conversation
  and the query) plus one, for each ablatable section it holds; and the fixed sections alone (`base`);
- `bundles`: the prompt less every section drawn from one source kind (the first word of the registry's
  `source`: the memory stores, the facts, the journal…), for each kind that has two or more sections here;
- `reorder`: the ablatable sections in the reverse of the registry's order (the fixed ones stay last: the
  query always ends the prompt).

Variants only remove or move sections the real assembler built; nothing is re-retrieved, so every variant is
reproducible from the snapshot. A variant's `tokens` is the prompt's total less the removed sections' own
counts (the assembler's per-section figures).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.prompt.assembly import AssembledPrompt, RenderedSection
from core.prompt.sections import SECTIONS

STRATEGIES = ("leave-one-out", "add-one-in", "bundles", "reorder")


@dataclass(frozen=True)
class Variant:
    """One variant: its name ("without:user_profile"), how it was made, and the prompt it gives."""

    name: str
    strategy: str
    prompt: AssembledPrompt

    @property
    def sections(self) -> tuple[str, ...]:
        return tuple(s.key for s in self.prompt.sections)


def variants(prompt: AssembledPrompt, strategies: Sequence[str] = STRATEGIES) -> list[Variant]:
    """The variants of `prompt` for each strategy asked for, in the order of `STRATEGIES`; the prompt
    itself first, named `full`. An unknown strategy is an error."""
    unknown = [s for s in strategies if s not in STRATEGIES]
    if unknown:
        raise ValueError(f"unknown variant strategy {unknown[0]!r}; choose from {', '.join(STRATEGIES)}")
    present = [s for s in prompt.sections if _ablatable(s)]
    fixed = [s for s in prompt.sections if not _ablatable(s)]
    out = [Variant("full", "full", prompt)]
    if "leave-one-out" in strategies:
        out += [Variant(f"without:{s.key}", "leave-one-out", _less(prompt, {s.key})) for s in present]
    if "add-one-in" in strategies:
        out.append(Variant("base", "add-one-in", _only(prompt, fixed)))
        out += [Variant(f"only:{s.key}", "add-one-in", _only(prompt, [s, *fixed])) for s in present]
    if "bundles" in strategies:
        for kind, keys in _bundles(present).items():
            out.append(Variant(f"without-bundle:{kind}", "bundles", _less(prompt, set(keys))))
    if "reorder" in strategies and len(present) > 1:
        order = sorted(present, key=lambda s: -SECTIONS[s.key].order)
        out.append(Variant("reversed", "reorder", _with_sections(prompt, [*order, *fixed])))
    return out


def find(prompt: AssembledPrompt, name: str) -> Variant:
    """The variant called `name` (as `variants` names them); an unknown name is an error naming them."""
    every = variants(prompt)
    chosen = next((v for v in every if v.name == name), None)
    if chosen is None:
        raise ValueError(f"no variant {name!r} of this prompt; it has: {', '.join(v.name for v in every)}")
    return chosen


def _ablatable(section: RenderedSection) -> bool:
    spec = SECTIONS.get(section.key)
    return spec is not None and spec.ablatable


def source_kind(key: str) -> str:
    """The kind of source a section is drawn from: "memory" for "memory:facts", "journal" for "journal
    (this session)"."""
    return SECTIONS[key].source.split(":")[0].split()[0]


def _bundles(present: Sequence[RenderedSection]) -> dict[str, list[str]]:
    kinds: dict[str, list[str]] = {}
    for section in present:
        kinds.setdefault(source_kind(section.key), []).append(section.key)
    return {kind: keys for kind, keys in kinds.items() if len(keys) > 1}


def _less(prompt: AssembledPrompt, keys: set[str]) -> AssembledPrompt:
    return _with_sections(prompt, [s for s in prompt.sections if s.key not in keys])


def _only(prompt: AssembledPrompt, kept: Sequence[RenderedSection]) -> AssembledPrompt:
    wanted = {s.key for s in kept}
    return _with_sections(prompt, [s for s in prompt.sections if s.key in wanted])


def _with_sections(prompt: AssembledPrompt, sections: Sequence[RenderedSection]) -> AssembledPrompt:
    removed = sum(s.tokens for s in prompt.sections if s not in sections)
    why = "left out by the variant"
    omitted = {**prompt.omitted, **{s.key: why for s in prompt.sections if s not in sections}}
    return replace(
        prompt, sections=tuple(sections), total_tokens=prompt.total_tokens - removed, omitted=omitted
    )
