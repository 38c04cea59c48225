"""Per-model token prices and the spending ledger that `CostTrackingProvider` writes to.

Prices are USD per million tokens, list prices for standard (non-batch, non-cached) usage as published
by each vendor; they drift, so config can pass its own table. Lookup is by exact model name, then the
longest known prefix (dated snapshots such as `gpt-4o-2024-08-06`), then the same after a routing
prefix (`openai/gpt-4o` on OpenRouter). Unknown and local models cost nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from core.errors import BudgetExceeded
from core.types import Usage


@dataclass(frozen=True)
class ModelPrice:
    """USD per million input and output tokens."""

    input_per_mtok: float
    output_per_mtok: float

    def cost(self, usage: Usage) -> float:
        """Cost in USD of the tokens in `usage`."""
        return (
            usage.input_tokens * self.input_per_mtok + usage.output_tokens * self.output_per_mtok
        ) / 1_000_000


FREE = ModelPrice(0.0, 0.0)

# Immutable source for `default_prices()`; longest-prefix lookup picks "gpt-4o-mini" over "gpt-4o".
_DEFAULT_PRICES: tuple[tuple[str, float, float], ...] = (
    # OpenAI
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.40),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-4o", 2.50, 10.0),
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4-turbo", 10.0, 30.0),
    ("gpt-4", 30.0, 60.0),
    ("gpt-3.5-turbo", 0.50, 1.50),
    ("o1", 15.0, 60.0),
    ("o1-mini", 1.10, 4.40),
    ("o3", 2.0, 8.0),
    ("o3-mini", 1.10, 4.40),
    ("o4-mini", 1.10, 4.40),
    # Anthropic
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("claude-opus-4", 15.0, 75.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-haiku-4-5", 1.0, 5.0),
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-3-5-sonnet", 3.0, 15.0),
    ("claude-3-5-haiku", 0.80, 4.0),
    ("claude-3-opus", 15.0, 75.0),
    ("claude-3-haiku", 0.25, 1.25),
    # Google Gemini (prompts up to 200k tokens)
    ("gemini-2.5-pro", 1.25, 10.0),
    ("gemini-2.5-flash", 0.30, 2.50),
    ("gemini-2.5-flash-lite", 0.10, 0.40),
    ("gemini-2.0-flash", 0.10, 0.40),
    ("gemini-2.0-flash-lite", 0.075, 0.30),
    ("gemini-1.5-pro", 1.25, 5.0),
    ("gemini-1.5-flash", 0.075, 0.30),
    # DeepSeek (cache-miss input)
    ("deepseek-chat", 0.28, 0.42),
    ("deepseek-reasoner", 0.28, 0.42),
)


def default_prices() -> dict[str, ModelPrice]:
    """A fresh copy of the built-in price table (callers may extend it from config)."""
    return {name: ModelPrice(inp, out) for name, inp, out in _DEFAULT_PRICES}


def _lookup(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    if model in prices:
        return prices[model]
    best = max((name for name in prices if model.startswith(name)), key=len, default=None)
    return prices[best] if best is not None else None


def price_for(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice:
    """The price of `model`: exact name, longest prefix, then without a `vendor/` prefix; else free."""
    table = {key.lower(): value for key, value in prices.items()}
    name = model.strip().lower()
    found = _lookup(name, table)
    if found is None and "/" in name:
        found = _lookup(name.rsplit("/", 1)[1], table)
    return found if found is not None else FREE


@dataclass
class CostLedger:
    """Money spent by model calls in one run or session, shared by every `CostTrackingProvider`.

    With `budget_usd` set, `check()` refuses a new call once the spend has reached the budget.
    """

    budget_usd: float | None = None
    spent_usd: float = 0.0
    calls: int = 0
    by_model: dict[str, float] = field(default_factory=dict)

    def add(self, model: str, cost_usd: float) -> None:
        """Record one finished call."""
        self.spent_usd += cost_usd
        self.calls += 1
        self.by_model[model] = self.by_model.get(model, 0.0) + cost_usd

    @property
    def remaining_usd(self) -> float | None:
        """What is left of the budget, or None without one."""
        return None if self.budget_usd is None else max(0.0, self.budget_usd - self.spent_usd)

    def check(self) -> None:
        """Raise `BudgetExceeded` if the budget is already used up."""
        if self.budget_usd is not None and self.spent_usd >= self.budget_usd:
            raise BudgetExceeded(
                f"the spending budget of ${self.budget_usd:.2f} is used up (${self.spent_usd:.4f} spent "
                f"over {self.calls} model calls); raise budget_usd in the config to continue"
            )
