"""Prompt variants come from the real assembler's sections and the registry: each strategy removes or
moves only what the registry lets it, the query always ends the prompt, and names are stable."""

from __future__ import annotations

import pytest

from core.ports import FactView, RecalledMemory
from core.prompt.assembly import AssembledPrompt
from core.prompt.builder import PromptBuilder
from core.prompt.sections import QUERY, SECTIONS
from core.prompt.tokens import EstimateCounter
from core.turn_context import TurnContext
from eval.snapshots import prompt_hash
from eval.variants import STRATEGIES, find, source_kind, variants


async def built() -> AssembledPrompt:
    memories = (
        RecalledMemory("conv_1", "conversations", "User: My tortoise is Sir Reginald.", 0.8, 1_700_000_000.0),
        RecalledMemory("fact_1", "facts", "The user is a pharmacist.", 0.7, 1_700_000_000.0),
    )
    fact = FactView("f1", "user", "is_a", "pharmacist", "current", 0.9, "identity")
    context = TurnContext(
        "What's the tortoise's name?", memories=memories, profile=(fact,), now=1_700_000_100.0
    )
    return await PromptBuilder("SYSTEM", EstimateCounter(), 4000).build(context)


async def test_leave_one_out_drops_each_ablatable_section_once_and_keeps_the_query_last() -> None:
    prompt = await built()
    ablatable = [s.key for s in prompt.sections if SECTIONS[s.key].ablatable]
    assert len(ablatable) >= 2
    left = [v for v in variants(prompt, ["leave-one-out"]) if v.strategy == "leave-one-out"]
    assert [v.name for v in left] == [f"without:{key}" for key in ablatable]
    for variant, key in zip(left, ablatable, strict=True):
        assert key not in variant.sections and variant.sections[-1] == QUERY
        assert variant.prompt.total_tokens == prompt.total_tokens - next(
            s.tokens for s in prompt.sections if s.key == key
        )
        assert variant.prompt.omitted[key] == "left out by the variant"
        assert prompt_hash(variant.prompt) != prompt_hash(prompt)


async def test_add_one_in_starts_from_the_fixed_sections() -> None:
    prompt = await built()
    fixed = tuple(s.key for s in prompt.sections if not SECTIONS[s.key].ablatable)
    added = {v.name: v for v in variants(prompt, ["add-one-in"]) if v.strategy == "add-one-in"}
    assert added["base"].sections == fixed
    for name, variant in added.items():
        if name != "base":
            assert set(variant.sections) - set(fixed) == {name.removeprefix("only:")}


async def test_bundles_group_sections_by_source_kind_and_reorder_reverses_the_registry() -> None:
    prompt = await built()
    every = variants(prompt)
    assert {v.strategy for v in every} == {"full", *STRATEGIES}
    assert "without-bundle:memory" in {v.name for v in every}  # the facts and the conversations
    for variant in (v for v in every if v.strategy == "bundles"):
        kind = variant.name.removeprefix("without-bundle:")
        gone = [s.key for s in prompt.sections if s.key not in variant.sections]
        assert len(gone) >= 2 and {source_kind(key) for key in gone} == {kind}
    reversed_ = find(prompt, "reversed")
    assert sorted(reversed_.sections) == sorted(s.key for s in prompt.sections)
    assert reversed_.sections[-1] == QUERY and reversed_.sections != tuple(s.key for s in prompt.sections)


async def test_an_unknown_strategy_or_variant_is_refused_with_the_choices() -> None:
    prompt = await built()
    with pytest.raises(ValueError, match="choose from leave-one-out"):
        variants(prompt, ["shuffle"])
    with pytest.raises(ValueError, match="it has: full, without:"):
        find(prompt, "without:nothing")
