"""Providers that wrap providers: retries with backoff, a fallback chain, and cost accounting.

Each wrapper is itself a `ChatProvider`, so they compose. The usual stack, built by `main.py`, is
`CostTrackingProvider(FallbackProvider([RetryingProvider(a), RetryingProvider(b)]), prices, ledger)`:
each provider is retried on its own before the chain moves on, and every answer is charged once.

Streams are only retried or failed over before their first part: once text reached the user, a
restart would show it twice, so a truncation after that propagates.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import replace
from typing import NoReturn

from core.errors import ProviderError
from core.providers.base import ChatProvider
from core.providers.pricing import FREE, CostLedger, ModelPrice, default_prices, price_for, unpriced_refusal
from core.types import ChatRequest, FinishPart, ModelResponse, StreamPart, Usage

__all__ = ["CostLedger", "CostTrackingProvider", "FallbackProvider", "RetryingProvider"]

log = logging.getLogger(__name__)

Sleep = Callable[[float], Awaitable[None]]


def _with_message(error: ProviderError, message: str) -> ProviderError:
    """A copy of `error` (same class, status, retryable, retry_after) with a new message."""
    clone = copy.copy(error)
    clone.args = (message,)
    return clone


async def _aclose(parts: AsyncIterator[StreamPart]) -> None:
    """Close an abandoned inner stream now rather than whenever it is garbage-collected."""
    close = getattr(parts, "aclose", None)
    if close is not None:
        await close()


class RetryingProvider:
    """Retries retryable `ProviderError`s with exponential backoff and jitter.

    The wait before retry n (0-based) is the server's `retry_after` when given, capped at `max_delay`;
    otherwise a random value in [d/2, d] with d = min(max_delay, base_delay * 2**n). `sleep` is
    injectable so tests can record the delays instead of waiting.
    """

    def __init__(
        self,
        inner: ChatProvider,
        max_attempts: int = 3,
        base_delay: float = 0.5,
        max_delay: float = 20.0,
        sleep: Sleep = asyncio.sleep,
        rng: random.Random | None = None,
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self.inner = inner
        self.name, self.model, self.profile = inner.name, inner.model, inner.profile
        self.max_attempts = max_attempts
        self.base_delay = base_delay
        self.max_delay = max_delay
        self._sleep = sleep
        self._rng = rng or random.Random()

    def delay_for(self, retry: int, error: ProviderError) -> float:
        """Seconds to wait before retry number `retry` (0-based) after `error`."""
        if error.retry_after is not None:
            return min(max(error.retry_after, 0.0), self.max_delay)
        ceiling = min(self.max_delay, self.base_delay * 2**retry)
        return ceiling / 2 + self._rng.uniform(0.0, ceiling / 2)

    async def _wait_or_raise(self, retry: int, error: ProviderError) -> None:
        """Sleep before the next attempt, or raise if the error is final or attempts are used up."""
        if not error.retryable:
            raise error
        if retry + 1 >= self.max_attempts:
            raise _with_message(error, f"{error} (gave up after {self.max_attempts} attempts)") from error
        delay = self.delay_for(retry, error)
        log.warning(
            "%s failed (%s); retry %d/%d in %.2fs", self.name, error, retry + 1, self.max_attempts - 1, delay
        )
        await self._sleep(delay)

    async def complete(self, request: ChatRequest) -> ModelResponse:
        """The inner answer, retried on retryable errors."""
        retry = 0
        while True:
            try:
                return await self.inner.complete(request)
            except ProviderError as error:
                await self._wait_or_raise(retry, error)
            retry += 1

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        """The inner stream, restarted on a retryable error that came before any part."""
        retry = 0
        while True:
            started = False
            parts = self.inner.stream(request)
            try:
                async for part in parts:
                    started = True
                    yield part
                return
            except ProviderError as error:
                if started:
                    raise
                await self._wait_or_raise(retry, error)
            finally:
                await _aclose(parts)
            retry += 1


class FallbackProvider:
    """Tries each provider in order; the first that answers wins.

    Any `ProviderError` (after that provider's own retries) moves on to the next provider. When all
    fail, the last error is raised with a message listing what each one failed with. Identity and
    profile are the first provider's: it is the one the prompt is planned for.
    """

    def __init__(self, chain: Sequence[ChatProvider]) -> None:
        if not chain:
            raise ValueError("FallbackProvider needs at least one provider")
        self.chain = tuple(chain)
        first = self.chain[0]
        self.name, self.model, self.profile = first.name, first.model, first.profile

    def _all_failed(self, failures: list[tuple[ChatProvider, ProviderError]]) -> NoReturn:
        summary = "; ".join(f"{p.name}/{p.model}: {e}" for p, e in failures)
        last = failures[-1][1]
        raise _with_message(last, f"all {len(failures)} providers failed: {summary}") from last

    def _note(self, provider: ChatProvider, error: ProviderError, index: int) -> None:
        if index + 1 < len(self.chain):
            nxt = self.chain[index + 1]
            log.warning(
                "%s/%s failed (%s); falling back to %s/%s",
                provider.name,
                provider.model,
                error,
                nxt.name,
                nxt.model,
            )

    async def complete(self, request: ChatRequest) -> ModelResponse:
        """The first successful answer along the chain."""
        failures: list[tuple[ChatProvider, ProviderError]] = []
        for index, provider in enumerate(self.chain):
            try:
                return await provider.complete(request)
            except ProviderError as error:
                failures.append((provider, error))
                self._note(provider, error, index)
        self._all_failed(failures)

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        """The first stream that starts; a failure after the first part propagates."""
        failures: list[tuple[ChatProvider, ProviderError]] = []
        for index, provider in enumerate(self.chain):
            started = False
            parts = provider.stream(request)
            try:
                async for part in parts:
                    started = True
                    yield part
                return
            except ProviderError as error:
                if started:
                    raise
                failures.append((provider, error))
                self._note(provider, error, index)
            finally:
                await _aclose(parts)
        self._all_failed(failures)


class CostTrackingProvider:
    """Fills `Usage.cost_usd` from a price table and adds each call's cost to a shared `CostLedger`.

    Before each call it checks the ledger's budget and raises `BudgetExceeded` once it is spent; with a
    budget set, a paid model whose price is unknown is refused (`ConfigError`) rather than counted as free.
    The price is looked up for the model that answered (`ModelResponse.model`), falling back to the
    inner provider's model name. `paid=False` (the embedded model, the echo provider) costs nothing.
    """

    def __init__(
        self,
        inner: ChatProvider,
        prices: Mapping[str, ModelPrice] | None = None,
        ledger: CostLedger | None = None,
        *,
        paid: bool = True,
    ) -> None:
        self.inner = inner
        self.name, self.model, self.profile = inner.name, inner.model, inner.profile
        self.prices: Mapping[str, ModelPrice] = default_prices() if prices is None else prices
        self.ledger = ledger if ledger is not None else CostLedger()
        self.paid = paid

    def _price(self, model: str) -> ModelPrice | None:
        if not self.paid:
            return FREE
        return price_for(model, self.prices) or price_for(self.inner.model, self.prices)

    def _check(self) -> None:
        self.ledger.check()
        if self.ledger.budget_usd is not None and self._price(self.inner.model) is None:
            raise unpriced_refusal(self.inner.model, self.name)

    def _charge(self, model: str, usage: Usage) -> Usage:
        model = model or self.inner.model
        price = self._price(model)
        cost = None if price is None else price.cost(usage)
        self.ledger.add(model, cost)
        return replace(usage, cost_usd=cost or 0.0)

    async def complete(self, request: ChatRequest) -> ModelResponse:
        """The inner answer with its cost filled in."""
        self._check()
        response = await self.inner.complete(request)
        return replace(response, usage=self._charge(response.model, response.usage))

    async def stream(self, request: ChatRequest) -> AsyncIterator[StreamPart]:
        """The inner stream; the `FinishPart` carries the cost."""
        self._check()
        parts = self.inner.stream(request)
        try:
            async for part in parts:
                if isinstance(part, FinishPart):
                    part = replace(part, usage=self._charge(part.model, part.usage))
                yield part
        finally:
            await _aclose(parts)
