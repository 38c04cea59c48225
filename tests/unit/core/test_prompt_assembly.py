"""Prompt assembly: the budget is never exceeded, floors are kept when they fit, the order is stable."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import UserInputError
from core.prompt.assembly import MIN_BUDGET, AssembledPrompt, Assembler, PromptItem, SectionContent
from core.prompt.compression import middle_out
from core.prompt.sections import EMIT_ORDER, QUERY, RECENT, SECTIONS, sections_for
from core.prompt.tokens import MESSAGE_OVERHEAD, EstimateCounter

COUNTER = EstimateCounter(3.3)
words = st.text(alphabet=st.sampled_from("abcdefghij klmnop,.?\n"), min_size=1, max_size=1500)
items = st.lists(st.builds(PromptItem, text=words, id=st.text(alphabet="xyz123", max_size=6)), max_size=12)
keys = st.sampled_from([k for k in EMIT_ORDER if k != QUERY])
contents_strategy = st.dictionaries(keys, items, max_size=10)


def with_query(contents: dict[str, list[PromptItem]], query: str) -> dict[str, SectionContent]:
    out = {key: SectionContent(key, tuple(value)) for key, value in contents.items()}
    out[QUERY] = SectionContent(QUERY, (PromptItem(query, id="query"),))
    return out


def total_of(prompt: AssembledPrompt) -> int:
    return COUNTER.count(prompt.system) + COUNTER.count(prompt.user_text()) + 2 * MESSAGE_OVERHEAD


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contents=contents_strategy, query=words, budget=st.integers(MIN_BUDGET, 20_000), system=words)
def test_the_assembled_prompt_never_exceeds_the_budget(
    contents: dict[str, list[PromptItem]], query: str, budget: int, system: str
) -> None:
    prompt = Assembler(COUNTER).assemble(system, with_query(contents, query), budget)
    assert prompt.total_tokens <= budget
    assert total_of(prompt) == prompt.total_tokens  # the reported total is the real count
    sent = sum(COUNTER.count(m.content) for m in prompt.messages()) + 2 * MESSAGE_OVERHEAD
    assert sent <= prompt.total_tokens  # the chat messages carry no more than was counted
    keys = [s.key for s in prompt.sections]
    assert keys == [k for k in EMIT_ORDER if k in keys]  # emitted in the table's order
    if keys:
        assert keys[-1] == QUERY  # the query is always last when anything is there
    assert all(s.items for s in prompt.sections)  # empty sections are omitted


@settings(max_examples=200, deadline=None)
@given(turns=st.lists(words, min_size=5, max_size=12), filler=contents_strategy, query=words)
def test_the_recent_turn_floor_is_kept_when_it_fits(
    turns: list[str], filler: dict[str, list[PromptItem]], query: str
) -> None:
    recent = [PromptItem(t, id=f"turn{i}") for i, t in enumerate(turns)]
    contents = with_query({**filler, RECENT: recent}, query)
    limit = SECTIONS[RECENT].item_tokens
    floor_cost = sum(COUNTER.count(middle_out(t.text, limit, COUNTER)) + 2 for t in recent[-5:])
    budget = COUNTER.count("SYSTEM") + COUNTER.count(query) + floor_cost + 120
    prompt = Assembler(COUNTER).assemble("SYSTEM", contents, budget)
    [section] = [s for s in prompt.sections if s.key == RECENT]
    kept = {item.id for item in section.items}
    assert {f"turn{i}" for i in range(len(turns) - 5, len(turns))} <= kept  # the newest five, always
    assert prompt.total_tokens <= budget


def test_a_big_budget_keeps_everything_and_the_query_whole() -> None:
    contents = with_query({"relevant_memories": [PromptItem("Jo moved to Denver", id="m1")]}, "where is Jo?")
    prompt = Assembler(COUNTER).assemble("SYSTEM", contents, 15_000)
    assert [s.key for s in prompt.sections] == ["relevant_memories", QUERY]
    assert prompt.sections[-1].items[0].text == "where is Jo?"
    assert prompt.omitted["user_profile"] == "nothing to show"


def test_a_tiny_budget_cuts_the_query_rather_than_overrun() -> None:
    prompt = Assembler(COUNTER).assemble("SYSTEM", with_query({}, "word " * 500), 70)
    assert prompt.total_tokens <= 70
    assert "[…]" in prompt.user_text()


def test_a_budget_below_the_minimum_is_a_clear_error() -> None:
    with pytest.raises(UserInputError, match="minimum 64"):
        Assembler(COUNTER).assemble("SYSTEM", with_query({}, "hi"), 10)


def test_middle_out_keeps_the_head_and_the_tail() -> None:
    text = "START " + "filler " * 400 + " END?"
    cut = middle_out(text, 40, COUNTER)
    assert cut.startswith("START") and cut.endswith("END?") and COUNTER.count(cut) <= 40


def test_each_intent_includes_and_excludes_the_right_sections() -> None:
    assert {"relevant_memories", "knowledge_graph", "temporal_grounding"} <= sections_for("temporal_recall")
    assert "codebase_changes" not in sections_for("emotional_support")
    assert "commit_history" not in sections_for("casual_social")
    assert {"codebase_changes", "commit_history", "adaptive_workflows"} <= sections_for("technical_help")
    assert "semantic_reflections" not in sections_for("technical_help")
    assert {"active_features", "proposed_features"} <= sections_for("meta_conversational")
    for intent in ("factual_recall", "casual_social", "general", "unknown-intent"):
        assert {QUERY, RECENT, "time_context", "user_profile"} <= sections_for(intent)
    assert RECENT in sections_for("general", disabled=frozenset({RECENT, "user_profile"}))  # not ablatable
    assert "user_profile" not in sections_for("general", disabled=frozenset({"user_profile"}))


def test_the_registry_covers_the_required_sections() -> None:
    assert len(SECTIONS) >= 26
    assert EMIT_ORDER[-1] == QUERY and "QUERY" in SECTIONS[QUERY].header


async def test_model_compression_is_cut_to_the_limit_and_falls_back_to_middle_out() -> None:
    from core.errors import ProviderError
    from core.prompt.compression import ModelCompressor
    from core.providers.fake import FailingProvider, ScriptedProvider

    long = "head " + "detail " * 800 + "tail"
    wordy = ScriptedProvider(["summary " * 400])  # ignores the length it was asked for
    compressed = await ModelCompressor(wordy, COUNTER).compress(long, 50, purpose="the fence")
    assert COUNTER.count(compressed) <= 50 and compressed.startswith("summary")
    assert "the fence" in wordy.requests[0].messages[0].content
    failing = FailingProvider(ProviderError("down"))
    fallback = await ModelCompressor(failing, COUNTER).compress(long, 50)
    assert fallback.startswith("head") and fallback.endswith("tail") and COUNTER.count(fallback) <= 50
    short = await ModelCompressor(failing, COUNTER).compress("already short", 50)
    assert short == "already short" and failing.calls == 1  # no call for what already fits


def test_item_limits_depend_on_the_intent() -> None:
    from core.prompt.sections import item_limit

    facts = "relevant_information"
    assert item_limit("factual_recall", facts) > item_limit("general", facts)
    assert item_limit("emotional_support", "relevant_memories") < item_limit("general", "relevant_memories")
    assert item_limit("unknown", "relevant_memories") == SECTIONS["relevant_memories"].max_items
