"""The wrapper stack over real adapters and fake vendor servers: retries, fallback and cost together."""

from __future__ import annotations

import pytest

from core.errors import ProviderError, TruncatedStreamError
from core.providers.anthropic_provider import AnthropicProvider
from core.providers.openai_compat import OpenAICompatProvider
from core.providers.pricing import CostLedger, ModelPrice
from core.providers.wrappers import CostTrackingProvider, FallbackProvider, RetryingProvider
from core.types import ChatRequest, FinishPart, Message
from tests.contract.fake_servers import FakeCall, FakeServer, cut_off, error, reply, tool_calls

REQUEST = ChatRequest(messages=(Message("user", "Hi"),))


class SleepRecorder:
    """Stands in for asyncio.sleep: records the delays instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


async def test_retry_honours_retry_after_then_backs_off_and_succeeds(openai_server: FakeServer) -> None:
    openai_server.script(error(429, "slow down", retry_after="2"), error(503, "busy"), reply("finally"))
    adapter = OpenAICompatProvider(model="gpt-4o-mini", api_key="k", base_url=openai_server.base_url + "/v1")
    sleep = SleepRecorder()
    retrying = RetryingProvider(adapter, max_attempts=3, base_delay=0.5, max_delay=10.0, sleep=sleep)
    response = await retrying.complete(REQUEST)
    await adapter.aclose()
    assert response.text == "finally"
    assert len(openai_server.requests) == 3
    assert sleep.delays[0] == 2.0  # the server's Retry-After
    assert 0.5 <= sleep.delays[1] <= 1.0  # backoff for retry #2: base 0.5 * 2**1, jittered in [d/2, d]


async def test_stream_cut_after_text_is_not_retried(openai_server: FakeServer) -> None:
    openai_server.script(cut_off("Half an answer that must not be shown twice."), reply("unused"))
    adapter = OpenAICompatProvider(model="gpt-4o-mini", api_key="k", base_url=openai_server.base_url + "/v1")
    sleep = SleepRecorder()
    with pytest.raises(TruncatedStreamError):
        async for _ in RetryingProvider(adapter, sleep=sleep).stream(REQUEST):
            pass
    await adapter.aclose()
    assert len(openai_server.requests) == 1 and sleep.delays == []


async def test_fallback_from_rejected_key_to_second_vendor_is_charged_at_its_price(
    anthropic_server: FakeServer, openai_server: FakeServer
) -> None:
    anthropic_server.script(error(401, "invalid x-api-key"))
    openai_server.script(reply("answered by the fallback", input_tokens=2000, output_tokens=1000))
    claude = AnthropicProvider(model="claude-test", api_key="bad", base_url=anthropic_server.base_url)
    gpt = OpenAICompatProvider(model="gpt-4o-mini", api_key="k", base_url=openai_server.base_url + "/v1")
    sleep = SleepRecorder()
    chain = FallbackProvider([RetryingProvider(claude, sleep=sleep), RetryingProvider(gpt, sleep=sleep)])
    ledger = CostLedger(budget_usd=1.0)
    prices = {"gpt-4o-mini": ModelPrice(0.15, 0.60), "claude-test": ModelPrice(3.0, 15.0)}
    provider = CostTrackingProvider(chain, prices, ledger)
    parts = [part async for part in provider.stream(REQUEST)]
    await claude.aclose()
    await gpt.aclose()
    finish = parts[-1]
    assert isinstance(finish, FinishPart) and finish.model == "gpt-4o-mini"
    expected = (2000 * 0.15 + 1000 * 0.60) / 1_000_000
    assert finish.usage.cost_usd == pytest.approx(expected)
    assert ledger.spent_usd == pytest.approx(expected) and ledger.calls == 1
    assert sleep.delays == []  # a 401 is final: no retry before falling back
    assert provider.name == "anthropic"  # the chain presents its first provider


async def test_all_providers_failing_reports_each_failure(
    anthropic_server: FakeServer, openai_server: FakeServer
) -> None:
    anthropic_server.script(error(400, "bad request shape"))
    openai_server.script(error(500, "internal"), error(500, "internal"))
    claude = AnthropicProvider(model="claude-test", api_key="k", base_url=anthropic_server.base_url)
    gpt = OpenAICompatProvider(model="gpt-4o-mini", api_key="k", base_url=openai_server.base_url + "/v1")
    sleep = SleepRecorder()
    chain = FallbackProvider([claude, RetryingProvider(gpt, max_attempts=2, sleep=sleep)])
    with pytest.raises(ProviderError) as caught:
        await chain.complete(REQUEST)
    await claude.aclose()
    await gpt.aclose()
    message = str(caught.value)
    assert message.startswith("all 2 providers failed")
    assert "anthropic/claude-test" in message and "bad request shape" in message
    assert "openai/gpt-4o-mini" in message and "gave up after 2 attempts" in message
    assert caught.value.status == 500 and len(sleep.delays) == 1


async def test_a_retried_request_never_runs_a_tool_a_second_time(openai_server: FakeServer) -> None:
    """The model asks for a tool with a side effect, the next request meets 503 twice, then it answers:
    the retries repeat the request, never the tool (a tool runs between two requests, once)."""
    from core.agent.loop import AgentRunner
    from core.events import Done
    from core.tools.base import tool
    from core.tools.toolset import Toolset

    sent: list[str] = []

    @tool
    async def send_postcard(to: str) -> str:
        """Send a postcard (a side effect: it must happen once)."""
        sent.append(to)
        return f"sent to {to}"

    openai_server.script(
        tool_calls(FakeCall("send_postcard", {"to": "Ana"})),
        error(503, "busy"),
        error(503, "still busy"),
        reply("The postcard is on its way to Ana."),
    )
    adapter = OpenAICompatProvider(model="gpt-4o-mini", api_key="k", base_url=openai_server.base_url + "/v1")
    sleep = SleepRecorder()
    runner = AgentRunner(RetryingProvider(adapter, max_attempts=3, sleep=sleep), Toolset([send_postcard]))
    events = [event async for event in runner.run([Message("user", "Send Ana a postcard.")])]
    await adapter.aclose()
    assert isinstance(events[-1], Done) and events[-1].answer == "The postcard is on its way to Ana."
    assert sent == ["Ana"]  # once, though the request after it was sent three times
    assert len(openai_server.requests) == 4 and len(sleep.delays) == 2
