"""Price lookup and the cost ledger."""

from __future__ import annotations

import pytest

from core.errors import BudgetExceeded
from core.providers.pricing import FREE, CostLedger, ModelPrice, default_prices, price_for
from core.types import Usage


def test_lookup_is_the_exact_name_or_a_dated_snapshot_of_it() -> None:
    prices = default_prices()
    assert price_for("gpt-4o", prices) == prices["gpt-4o"]
    assert price_for("gpt-4o-mini-2024-07-18", prices) == prices["gpt-4o-mini"]  # not gpt-4o's price
    assert price_for("gpt-4o-2024-08-06", prices) == prices["gpt-4o"]
    assert price_for("claude-opus-4-5-20251101", prices) == prices["claude-opus-4-5"]
    assert price_for("claude-opus-4-20250514", prices) == prices["claude-opus-4"]
    assert price_for("claude-3-5-haiku-latest", prices) == prices["claude-3-5-haiku"]


@pytest.mark.parametrize("model", ["o3-pro-preview", "gpt-4o-audio-preview", "gpt-5-codex", "o3-research"])
def test_a_longer_name_is_not_priced_as_its_prefix(model: str) -> None:
    """`o3-pro` once cost what `o3` costs: a variant is either in the table or unknown, never guessed."""
    assert price_for(model, default_prices()) is None


def test_o3_pro_has_its_own_price() -> None:
    prices = default_prices()
    assert price_for("o3-pro", prices) == prices["o3-pro"] != prices["o3"]


def test_lookup_strips_a_routing_prefix_and_ignores_case() -> None:
    prices = default_prices()
    assert price_for("openai/gpt-4o-mini", prices) == prices["gpt-4o-mini"]
    assert price_for("Gemini-2.5-Flash", prices) == prices["gemini-2.5-flash"]
    assert price_for("deepseek-chat", {"DeepSeek-Chat": ModelPrice(1, 2)}) == ModelPrice(1, 2)


@pytest.mark.parametrize("model", ["llama3.2:3b", "SmolLM2-135M-Instruct", "", "qwen/qwen3-8b"])
def test_unknown_models_have_no_price(model: str) -> None:
    assert price_for(model, default_prices()) is None


def test_default_table_covers_each_vendor_and_is_a_fresh_copy() -> None:
    prices = default_prices()
    for model in ("gpt-4o-mini", "claude-sonnet-4-5", "gemini-2.5-pro", "deepseek-chat"):
        price = price_for(model, prices)
        assert price is not None and price.output_per_mtok > 0
    prices["gpt-4o"] = FREE
    assert default_prices()["gpt-4o"] != FREE


def test_price_cost_per_million_tokens() -> None:
    assert ModelPrice(3.0, 15.0).cost(Usage(1_000_000, 200_000)) == pytest.approx(6.0)


def test_ledger_accumulates_and_enforces_budget() -> None:
    ledger = CostLedger(budget_usd=1.0)
    ledger.check()
    ledger.add("a", 0.4)
    ledger.add("b", 0.35)
    ledger.check()
    assert ledger.remaining_usd == pytest.approx(0.25) and ledger.calls == 2
    ledger.add("a", 0.25)
    with pytest.raises(BudgetExceeded, match=r"\$1\.00 is used up"):
        ledger.check()
    assert ledger.by_model == {"a": pytest.approx(0.65), "b": pytest.approx(0.35)}


def test_ledger_records_unpriced_calls_as_unknown_not_free() -> None:
    ledger = CostLedger()
    ledger.add("mystery-model", None)
    assert ledger.unpriced == {"mystery-model"} and ledger.spent_usd == 0.0 and ledger.calls == 1


def test_ledger_without_budget_never_refuses() -> None:
    ledger = CostLedger()
    ledger.add("x", 1e6)
    ledger.check()
    assert ledger.remaining_usd is None
