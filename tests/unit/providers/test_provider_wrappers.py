"""RetryingProvider, FallbackProvider and CostTrackingProvider over scripted in-process providers."""

from __future__ import annotations

import random
from collections.abc import AsyncIterator

import pytest

from core.errors import BudgetExceeded, ConfigError, ProviderError, TruncatedStreamError
from core.providers.base import ChatProvider, ProviderProfile, collect_stream
from core.providers.fake import FailingProvider, ScriptedProvider
from core.providers.pricing import CostLedger, ModelPrice
from core.providers.wrappers import CostTrackingProvider, FallbackProvider, RetryingProvider
from core.types import ChatRequest, FinishPart, Message, ModelResponse, StreamPart, TextPart, Usage

REQUEST = ChatRequest(messages=(Message("user", "hi"),))


def busy(retry_after: float | None = None) -> ProviderError:
    return ProviderError("busy", status=503, retryable=True, retry_after=retry_after, provider="p")


class SleepRecorder:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


class CutOffProvider:
    """Streams some text, then fails the way a dropped connection does."""

    name = "cutoff"
    model = "cutoff"
    profile = ProviderProfile()

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, request: ChatRequest) -> ModelResponse:
        raise NotImplementedError

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        self.calls += 1
        yield TextPart("half an ans")
        raise TruncatedStreamError()


class Recording:
    """Wraps a provider and logs its name in a shared list when called, to check chain order."""

    def __init__(self, inner: ChatProvider, log: list[str]) -> None:
        self.inner, self.log = inner, log
        self.name, self.model, self.profile = inner.name, inner.model, inner.profile

    async def complete(self, request: ChatRequest) -> ModelResponse:
        self.log.append(self.name)
        return await self.inner.complete(request)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        self.log.append(self.name)
        async for part in self.inner.stream(request):
            yield part


# --- RetryingProvider ---------------------------------------------------------------------------


async def test_retry_succeeds_after_two_failures_with_backoff_and_retry_after() -> None:
    inner = ScriptedProvider([busy(), busy(retry_after=4.0), "recovered"])
    sleep = SleepRecorder()
    retrying = RetryingProvider(inner, max_attempts=3, base_delay=1.0, max_delay=10.0, sleep=sleep)
    response = await retrying.complete(REQUEST)
    assert response.text == "recovered"
    assert len(inner.requests) == 3
    assert 0.5 <= sleep.delays[0] <= 1.0  # first retry: base 1.0 with jitter in [d/2, d]
    assert sleep.delays[1] == 4.0  # the server's retry_after wins over backoff


async def test_retry_after_is_capped_by_max_delay() -> None:
    sleep = SleepRecorder()
    retrying = RetryingProvider(ScriptedProvider([busy(retry_after=120.0), "ok"]), max_delay=7.5, sleep=sleep)
    await retrying.complete(REQUEST)
    assert sleep.delays == [7.5]


async def test_backoff_grows_exponentially_and_gives_up_after_max_attempts() -> None:
    failing = FailingProvider(busy())
    sleep = SleepRecorder()
    retrying = RetryingProvider(
        failing, max_attempts=4, base_delay=1.0, max_delay=3.0, sleep=sleep, rng=random.Random(7)
    )
    with pytest.raises(ProviderError) as caught:
        await retrying.complete(REQUEST)
    assert failing.calls == 4 and len(sleep.delays) == 3
    assert 0.5 <= sleep.delays[0] <= 1.0 and 1.0 <= sleep.delays[1] <= 2.0 and 1.5 <= sleep.delays[2] <= 3.0
    assert "gave up after 4 attempts" in str(caught.value)
    assert caught.value.retryable and caught.value.status == 503


async def test_non_retryable_error_is_raised_at_once() -> None:
    auth = ProviderError("rejected the API key", status=401, retryable=False)
    failing = FailingProvider(auth)
    sleep = SleepRecorder()
    with pytest.raises(ProviderError) as caught:
        await RetryingProvider(failing, max_attempts=5, sleep=sleep).complete(REQUEST)
    assert caught.value is auth and failing.calls == 1 and sleep.delays == []


async def test_stream_is_retried_when_it_fails_before_the_first_part() -> None:
    inner = ScriptedProvider([busy(), "streamed after retry"])
    sleep = SleepRecorder()
    response = await collect_stream(RetryingProvider(inner, sleep=sleep).stream(REQUEST))
    assert response.text == "streamed after retry" and len(sleep.delays) == 1


async def test_stream_truncated_after_text_propagates_without_retry() -> None:
    inner = CutOffProvider()
    sleep = SleepRecorder()
    parts: list[StreamPart] = []
    with pytest.raises(TruncatedStreamError):
        async for part in RetryingProvider(inner, max_attempts=3, sleep=sleep).stream(REQUEST):
            parts.append(part)
    assert parts == [TextPart("half an ans")] and inner.calls == 1 and sleep.delays == []


def test_retrying_rejects_zero_attempts() -> None:
    with pytest.raises(ValueError):
        RetryingProvider(ScriptedProvider([]), max_attempts=0)


# --- FallbackProvider ---------------------------------------------------------------------------


async def test_fallback_tries_the_chain_in_order_until_one_answers() -> None:
    log: list[str] = []
    first = Recording(FailingProvider(busy(), name="first", model="m1"), log)
    second = Recording(FailingProvider(ProviderError("bad key", status=401), name="second", model="m2"), log)
    third = Recording(ScriptedProvider(["third answers"], name="third"), log)
    unused = Recording(ScriptedProvider([], name="fourth"), log)
    chain = FallbackProvider([first, second, third, unused])
    response = await chain.complete(REQUEST)
    assert response.text == "third answers"
    assert log == ["first", "second", "third"]


async def test_fallback_raises_last_error_listing_every_failure() -> None:
    first = FailingProvider(busy(), name="openai", model="gpt-x")
    second = FailingProvider(
        ProviderError("rejected the API key", status=401), name="anthropic", model="claude-y"
    )
    with pytest.raises(ProviderError) as caught:
        await FallbackProvider([first, second]).complete(REQUEST)
    message = str(caught.value)
    assert message == "all 2 providers failed: openai/gpt-x: busy; anthropic/claude-y: rejected the API key"
    assert caught.value.status == 401 and not caught.value.retryable


async def test_fallback_presents_the_first_providers_profile() -> None:
    first = ScriptedProvider([], name="big", model="big-1", profile=ProviderProfile(context_window=200_000))
    chain = FallbackProvider([first, ScriptedProvider([], name="small")])
    assert (chain.name, chain.model, chain.profile.context_window) == ("big", "big-1", 200_000)
    assert isinstance(chain, ChatProvider)


async def test_fallback_stream_moves_on_only_before_the_first_part() -> None:
    chain = FallbackProvider([FailingProvider(busy()), ScriptedProvider(["from second"])])
    assert (await collect_stream(chain.stream(REQUEST))).text == "from second"

    cut, spare = CutOffProvider(), ScriptedProvider(["never"])
    with pytest.raises(TruncatedStreamError):
        await collect_stream(FallbackProvider([cut, spare]).stream(REQUEST))
    assert spare.requests == []


def test_fallback_needs_a_provider() -> None:
    with pytest.raises(ValueError):
        FallbackProvider([])


# --- CostTrackingProvider -----------------------------------------------------------------------


PRICES = {"gpt-4o": ModelPrice(2.5, 10.0), "gpt-4o-mini": ModelPrice(0.15, 0.60)}


def priced(model: str, inp: int, out: int) -> ModelResponse:
    return ModelResponse(text="ok", usage=Usage(inp, out), model=model)


async def test_cost_is_computed_from_the_price_table_and_added_to_the_ledger() -> None:
    ledger = CostLedger()
    inner = ScriptedProvider([priced("gpt-4o-2024-08-06", 1000, 500), priced("gpt-4o-mini", 10_000, 0)])
    tracking = CostTrackingProvider(inner, PRICES, ledger)
    first = await tracking.complete(REQUEST)
    assert first.usage.cost_usd == pytest.approx((1000 * 2.5 + 500 * 10.0) / 1e6)
    second = await tracking.complete(REQUEST)
    assert second.usage.cost_usd == pytest.approx(10_000 * 0.15 / 1e6)
    assert ledger.spent_usd == pytest.approx(0.0075 + 0.0015) and ledger.calls == 2
    assert ledger.by_model["gpt-4o-2024-08-06"] == pytest.approx(0.0075)


async def test_stream_cost_lands_on_the_finish_part() -> None:
    ledger = CostLedger()
    inner = ScriptedProvider([priced("gpt-4o", 2_000_000, 0)])
    parts = [p async for p in CostTrackingProvider(inner, PRICES, ledger).stream(REQUEST)]
    finish = parts[-1]
    assert isinstance(finish, FinishPart) and finish.usage.cost_usd == pytest.approx(5.0)
    assert ledger.spent_usd == pytest.approx(5.0)


async def test_a_free_provider_costs_nothing_even_under_a_budget() -> None:
    ledger = CostLedger(budget_usd=0.5)
    inner = ScriptedProvider([priced("llama3.2:3b", 50_000, 50_000)], model="llama3.2:3b")
    response = await CostTrackingProvider(inner, PRICES, ledger, paid=False).complete(REQUEST)
    assert response.usage.cost_usd == 0.0 and ledger.spent_usd == 0.0 and ledger.calls == 1


async def test_a_budget_refuses_a_paid_model_with_no_known_price_before_calling_it() -> None:
    ledger = CostLedger(budget_usd=0.5)
    inner = ScriptedProvider(["never sent", "never streamed"], name="openai", model="o3-pro-2099")
    tracking = CostTrackingProvider(inner, PRICES, ledger)
    refusal = r"'o3-pro-2099'.*no known price.*providers\.openai\.price_per_mtok"
    with pytest.raises(ConfigError, match=refusal):
        await tracking.complete(REQUEST)
    with pytest.raises(ConfigError, match="budget.max_usd"):
        async for _ in tracking.stream(REQUEST):
            pass
    assert inner.requests == [] and ledger.calls == 0


async def test_without_a_budget_an_unknown_model_runs_and_is_recorded_as_unpriced() -> None:
    ledger = CostLedger()
    inner = ScriptedProvider([priced("mystery-1", 1000, 1000)], model="mystery-1")
    response = await CostTrackingProvider(inner, PRICES, ledger).complete(REQUEST)
    assert response.text == "ok" and response.usage.cost_usd == 0.0
    assert ledger.unpriced == {"mystery-1"}


async def test_budget_exceeded_is_raised_before_the_call() -> None:
    ledger = CostLedger(budget_usd=0.01)
    inner = ScriptedProvider([priced("gpt-4o", 2000, 1000), "never sent", "never streamed"], model="gpt-4o")
    tracking = CostTrackingProvider(inner, PRICES, ledger)
    await tracking.complete(REQUEST)  # 0.015 spent: over the budget only after this call
    with pytest.raises(BudgetExceeded) as caught:
        await tracking.complete(REQUEST)
    with pytest.raises(BudgetExceeded):
        async for _ in tracking.stream(REQUEST):
            pass
    assert len(inner.requests) == 1
    assert "$0.01" in str(caught.value) and "budget_usd" in str(caught.value)


async def test_cost_tracking_keeps_the_inner_identity_and_default_table() -> None:
    inner = ScriptedProvider([priced("gpt-4o-mini", 1_000_000, 0)], name="openai", model="gpt-4o-mini")
    tracking = CostTrackingProvider(inner)  # built-in table, private ledger
    response = await tracking.complete(REQUEST)
    assert (tracking.name, tracking.model) == ("openai", "gpt-4o-mini")
    assert response.usage.cost_usd == pytest.approx(0.15) and tracking.ledger.calls == 1
