"""Price lookup and the cost ledger."""

from __future__ import annotations

import pytest

from core.errors import BudgetExceeded
from core.providers.pricing import FREE, CostLedger, ModelPrice, default_prices, price_for
from core.types import Usage


def test_lookup_prefers_exact_then_longest_prefix() -> None:
    prices = default_prices()
    assert price_for("gpt-4o", prices) == prices["gpt-4o"]
    assert price_for("gpt-4o-mini-2024-07-18", prices) == prices["gpt-4o-mini"]  # not gpt-4o's price
    assert price_for("gpt-4o-2024-08-06", prices) == prices["gpt-4o"]
    assert price_for("claude-opus-4-5-20251101", prices) == prices["claude-opus-4-5"]
    assert price_for("claude-opus-4-20250514", prices) == prices["claude-opus-4"]


def test_lookup_strips_a_routing_prefix_and_ignores_case() -> None:
    prices = default_prices()
    assert price_for("openai/gpt-4o-mini", prices) == prices["gpt-4o-mini"]
    assert price_for("Gemini-2.5-Flash", prices) == prices["gemini-2.5-flash"]
    assert price_for("deepseek-chat", {"DeepSeek-Chat": ModelPrice(1, 2)}) == ModelPrice(1, 2)


@pytest.mark.parametrize("model", ["llama3.2:3b", "SmolLM2-135M-Instruct", "", "qwen/qwen3-8b"])
def test_unknown_and_local_models_are_free(model: str) -> None:
    assert price_for(model, default_prices()) is FREE


def test_default_table_covers_each_vendor_and_is_a_fresh_copy() -> None:
    prices = default_prices()
    for model in ("gpt-4o-mini", "claude-sonnet-4-5", "gemini-2.5-pro", "deepseek-chat"):
        assert price_for(model, prices).output_per_mtok > 0
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


def test_ledger_without_budget_never_refuses() -> None:
    ledger = CostLedger()
    ledger.add("x", 1e6)
    ledger.check()
    assert ledger.remaining_usd is None
