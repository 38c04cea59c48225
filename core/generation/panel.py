"""Best-of-N and duel: several answers are written out of sight, a judge picks one, and only it is shown.

Both are Agents wrapping Agents, so the orchestrator runs them unchanged. The shape of a run:
`Progress("generating")` → candidates run concurrently, drained (nothing streams) → `Progress("judging")`
→ one bounded judge call → the winner as one `TextDelta` → `Done`.

- A candidate that ends with `RunError` or raises is left out; with every candidate failed the run ends
  with `RunError`. With one answer left the judge is not asked.
- A judge that fails, times out or names no single candidate: the first successful candidate is shown,
  and `Done.extra["judge"]` says why ("failed", "timeout", "unparseable").
- `Done` is the winner's, with `usage` summed over every candidate and the judge, and `extra` holding
  `mode`, the choice and `judge_reason`. Its `exit_reason` is the winner's ("answer" unless the winner
  itself hit a limit).
- Cancel event: the candidates are stopped and the run ends with `Done(exit_reason="cancelled",
  answer="")` (nothing was shown). Task cancellation propagates, as in the agent loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.events import Progress, RunEvent
from core.generation.judging import judge
from core.generation.runs import (
    Candidate,
    all_failed,
    answered,
    cancelled,
    collect_all,
    last_user_text,
    total_usage,
)
from core.providers.base import ChatProvider
from core.types import Message, Usage

if TYPE_CHECKING:
    from core.orchestrator import Agent

DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MAX_CHARS = 6000  # per candidate in the judge's prompt: bounds its cost on long answers


@dataclass(frozen=True)
class Decision:
    """What a panel shows: a chosen candidate or a written answer (`chosen` None), and how it was decided.

    `how` is "judged", "only" (one answer left), "fallback" (judge unusable) or "synthesized".
    """

    chosen: Candidate | None
    answer: str
    how: str
    status: str
    reason: str
    usage: Usage = Usage()
    model: str = ""


class Panel:
    """Runs one agent per label concurrently and shows the answer `decide` settles on. Subclasses set
    `mode`, may override `decide` and add to `extra`."""

    mode = "panel"

    def __init__(
        self,
        agents: Sequence[Agent],
        labels: Sequence[str],
        judge: ChatProvider,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        if len(agents) != len(labels) or len(agents) < 2:
            raise ValueError("a panel needs at least two agents, one per label")
        self._agents = tuple(agents)
        self._labels = tuple(labels)
        self._judge = judge
        self._timeout_s = timeout_s
        self._max_chars = max_chars

    async def run(
        self, messages: list[Message], *, cancel: asyncio.Event | None = None, max_tokens: int | None = None
    ) -> AsyncIterator[RunEvent]:
        """Answer `messages` with the panel's chosen answer; ends with exactly one `Done` or `RunError`."""
        cancel = cancel or asyncio.Event()
        candidates = [Candidate(label) for label in self._labels]
        yield Progress("generating", f"{len(candidates)} candidate answers")
        await collect_all(self._agents, messages, candidates, cancel=cancel, max_tokens=max_tokens)
        if cancel.is_set():
            yield cancelled(total_usage(candidates), {"mode": self.mode})
            return
        good = [c for c in candidates if c.ok]
        if not good:
            yield all_failed(candidates)
            return
        if len(good) > 1:
            yield Progress("judging", f"comparing {len(good)} answers")
        decision = await self.decide(last_user_text(messages), good, cancel, max_tokens)
        usage = total_usage(candidates, decision.usage)
        if cancel.is_set():
            yield cancelled(usage, {"mode": self.mode})
            return
        for event in self._finish(candidates, good, decision, usage):
            yield event

    async def decide(
        self, question: str, good: Sequence[Candidate], cancel: asyncio.Event, max_tokens: int | None
    ) -> Decision:
        """Ask the judge which of the successful candidates is best (no call when only one is left)."""
        if len(good) == 1:
            return Decision(good[0], good[0].answer, "only", "skipped", "only one candidate answered")
        verdict = await judge(
            self._judge,
            question,
            [c.answer for c in good],
            [c.label for c in good],
            timeout_s=self._timeout_s,
            cancel=cancel,
            max_chars=self._max_chars,
        )
        if verdict.index is None:
            return Decision(
                good[0], good[0].answer, "fallback", verdict.status, verdict.reason, verdict.usage
            )
        chosen = good[verdict.index]
        return Decision(chosen, chosen.answer, "judged", verdict.status, verdict.reason, verdict.usage)

    def extra(self, candidates: Sequence[Candidate], decision: Decision) -> dict[str, Any]:
        """Mode-specific `Done.extra` keys."""
        return {}

    def _finish(
        self, candidates: Sequence[Candidate], good: Sequence[Candidate], decision: Decision, usage: Usage
    ) -> list[RunEvent]:
        extra = {
            "mode": self.mode,
            "judge": decision.status,
            "judge_reason": decision.reason,
            "failed": [c.label for c in candidates if not c.ok],
            **self.extra(candidates, decision),
        }
        if decision.chosen is not None:
            chosen = decision.chosen.done
            assert chosen is not None  # only candidates that finished are judged
            return answered(chosen, decision.answer, usage, extra)
        # A written (synthesised) answer draws on every successful candidate: keep all their tool calls.
        source = good[0].done
        assert source is not None
        tool_calls = tuple(call for c in good if c.done for call in c.done.tool_calls)
        citations = tuple(cite for c in good if c.done for cite in c.done.citations)
        return answered(
            source,
            decision.answer,
            usage,
            extra,
            model=decision.model,
            exit_reason="answer",
            tool_calls=tool_calls,
            citations=citations,
        )


class BestOfN(Panel):
    """N candidate answers, one judge; only the winner is shown.

    Args:
        agents: one agent (run `n` times) or several (used in turn until `n` candidates are assigned;
            `n` defaults to their number). Give agents of different temperatures for variety.
        judge: the model that picks; one call, temperature 0, `timeout_s` at most.
        n: number of candidates (at least 2; default 3 for one agent).

    `Done.extra`: `mode="best_of"`, `candidates` (n), `chosen` (the winner's candidate number, 1-based as
    the judge saw it), `judge` (status), `judge_reason`, `failed` (candidate numbers that failed).
    """

    mode = "best_of"

    def __init__(
        self,
        agents: Agent | Sequence[Agent],
        judge: ChatProvider,
        n: int | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        pool = list(agents) if isinstance(agents, Sequence) else [agents]
        count = n if n is not None else (len(pool) if len(pool) > 1 else 3)
        if count < 2 or not pool:
            raise ValueError("best-of-N needs n >= 2 and at least one agent")
        runs = [pool[i % len(pool)] for i in range(count)]
        super().__init__(
            runs, [str(i + 1) for i in range(count)], judge, timeout_s=timeout_s, max_chars=max_chars
        )

    def extra(self, candidates: Sequence[Candidate], decision: Decision) -> dict[str, Any]:
        chosen = int(decision.chosen.label) if decision.chosen is not None else None
        return {
            "candidates": len(candidates),
            "chosen": chosen,
            "failed": [int(c.label) for c in candidates if not c.ok],
        }


class Duel(Panel):
    """Two models answer concurrently; the judge picks A or B.

    `names` label the models in `Done.extra` when a side fails before reporting its model name.
    `Done.extra`: `mode="duel"`, `models` ({"A": name, "B": name}), `chosen` ("A" or "B"), `judge`,
    `judge_reason`, `failed`.
    """

    mode = "duel"

    def __init__(
        self,
        agent_a: Agent,
        agent_b: Agent,
        judge: ChatProvider,
        *,
        names: tuple[str, str] = ("", ""),
        timeout_s: float = DEFAULT_TIMEOUT_S,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> None:
        super().__init__([agent_a, agent_b], ["A", "B"], judge, timeout_s=timeout_s, max_chars=max_chars)
        self._names = dict(zip(("A", "B"), names, strict=True))

    def extra(self, candidates: Sequence[Candidate], decision: Decision) -> dict[str, Any]:
        models = {c.label: c.model or self._names[c.label] for c in candidates}
        return {"models": models, "chosen": decision.chosen.label if decision.chosen is not None else None}
