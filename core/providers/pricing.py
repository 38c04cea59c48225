"""Per-model token prices and the spending ledger that `CostTrackingProvider` writes to.

Prices are USD per million tokens, list prices for standard (non-batch, non-cached) usage as published
by each vendor; they drift, so a provider's config can set its own (`providers.NAME.price_per_mtok`).
Lookup is by exact model name (case-insensitive), then through two documented aliases only: a dated
snapshot is its model (`gpt-4o-2024-08-06`, `claude-opus-4-20250514`, `...-latest`), and a routing prefix is
dropped (`openai/gpt-4o` on OpenRouter). There is no prefix matching: `o3-pro` is not `o3`.

A model with no known price has no cost that can be counted. Without a budget it is recorded as unpriced;
with `budget.max_usd` set, a paid provider refuses to call it (the budget could not bind otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from core.errors import BudgetExceeded, ConfigError
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


FREE = ModelPrice(0.0, 0.0)  # the embedded model and the offline echo provider

# Immutable source for `default_prices()`. Exact names: every variant priced differently needs its own row.
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
    ("o1-pro", 150.0, 600.0),
    ("o3", 2.0, 8.0),
    ("o3-pro", 20.0, 80.0),
    ("o3-mini", 1.10, 4.40),
    ("o4-mini", 1.10, 4.40),
    # Anthropic
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("claude-opus-4", 15.0, 75.0),
    ("claude-sonnet-4-5", 3.0, 15.0),
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


# The aliases, and only these: a date stamp (2024-08-06, 20250514) or "-latest" at the end names a snapshot.
_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


def price_for(model: str, prices: Mapping[str, ModelPrice]) -> ModelPrice | None:
    """The price of `model`: its exact name, else a documented alias (snapshot suffix, `vendor/` prefix);
    None when the table does not know it (never a guess from a shorter name)."""
    table = {key.lower(): value for key, value in prices.items()}
    name = model.strip().lower()
    for candidate in (name, name.rsplit("/", 1)[-1]):
        for form in (candidate, _SNAPSHOT.sub("", candidate)):
            if form in table:
                return table[form]
    return None


def unpriced_refusal(model: str, provider: str) -> ConfigError:
    """The error for calling a paid model whose price is unknown while a budget is set."""
    return ConfigError(
        f"budget.max_usd is set, but the model {model!r} of provider {provider!r} has no known price, so "
        "what it spends could not be counted against the budget; Daemon will not call it. Set its price in "
        f"providers.{provider}.price_per_mtok ([input, output] USD per million tokens; [0, 0] for a "
        "self-hosted server), choose a model in core/providers/pricing.py, or unset budget.max_usd."
    )


@dataclass
class CostLedger:
    """Money spent by model calls in one run or session, shared by every `CostTrackingProvider`.

    With `budget_usd` set, `check()` refuses a new call once the spend has reached the budget.
    """

    budget_usd: float | None = None
    spent_usd: float = 0.0
    calls: int = 0
    by_model: dict[str, float] = field(default_factory=dict)
    unpriced: set[str] = field(default_factory=set)  # models called whose cost is unknown (counted as 0)

    def add(self, model: str, cost_usd: float | None) -> None:
        """Record one finished call; `cost_usd` None: the model's price is unknown."""
        if cost_usd is None:
            self.unpriced.add(model)
        self.spent_usd += cost_usd or 0.0
        self.calls += 1
        self.by_model[model] = self.by_model.get(model, 0.0) + (cost_usd or 0.0)

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
