"""Ablation runs: every (snapshot, variant) answered once under a concurrency cap and a rate limit, resumed
after an interruption without asking again, and judged blind with seeded placement mapped back."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from core.ports import FactView, RecalledMemory
from core.prompt.builder import PromptBuilder
from core.prompt.tokens import EstimateCounter
from core.turn_context import TurnContext
from core.types import ChatRequest, ModelResponse
from eval.ablation import ANSWERS, JUDGMENTS, Pacer, jobs, placement, read_verdict, run_ablation
from eval.snapshots import capture, save


async def snapshot(folder: Path, query: str = "What's the tortoise's name?") -> Path:
    memory = RecalledMemory("conv_1", "conversations", "User: Our tortoise is Sir Reginald.", 0.8, 1.7e9)
    fact = FactView("f1", "user", "is_a", "pharmacist", "current", 0.9, "identity")
    context = TurnContext(query, memories=(memory,), profile=(fact,), now=1.7e9 + 60)
    prompt = await PromptBuilder("SYSTEM", EstimateCounter(), 4000).build(context)
    path = folder / "tortoise.json"
    save(capture(prompt, query=query, config_text="cfg", model="m"), path)
    return path


class CountingModel:
    """Answers after a short wait, counting calls and how many run at once; fails from call `fail_at`."""

    def __init__(self, fail_at: int | None = None) -> None:
        self.calls = self.running = self.most = 0
        self.fail_at = fail_at

    async def complete(self, request: ChatRequest) -> ModelResponse:
        self.calls += 1
        if self.fail_at is not None and self.calls >= self.fail_at:
            raise RuntimeError("the model went away")
        self.running += 1
        self.most = max(self.most, self.running)
        await asyncio.sleep(0.01)
        self.running -= 1
        return ModelResponse(text=f"Sir Reginald ({len(request.messages[0].content)} chars of context)")


async def test_each_variant_is_answered_once_within_the_cap_and_a_stopped_run_resumes(tmp_path: Path) -> None:
    path = await snapshot(tmp_path)
    total = len(jobs([path]))
    out = tmp_path / "run"
    stopped = CountingModel(fail_at=4)
    with pytest.raises(RuntimeError):
        await run_ablation([path], stopped, out, concurrency=1, stream=io.StringIO())
    kept = (out / ANSWERS).read_text().splitlines()
    assert len(kept) == 3  # what finished before the stop is on disk
    model = CountingModel()
    result = await run_ablation([path], model, out, concurrency=3, stream=io.StringIO())
    assert model.calls == total - 3 and model.most <= 3
    rows = [json.loads(line) for line in (out / ANSWERS).read_text().splitlines()]
    assert sorted(r["key"] for r in rows) == sorted(j.key for j in jobs([path]))
    assert result["jobs"] == {"total": total, "generated_now": total - 3}
    full = result["variants"]["full"]
    assert full["answers"] == 1 and full["tokens"] > result["variants"]["base"]["tokens"]
    assert (out / "summary.json").exists()


async def test_the_pacer_spaces_starts_to_the_rate() -> None:
    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    pacer = Pacer(120, clock=lambda: now[0], sleep=sleep)  # one start every half second
    for _ in range(3):
        await pacer.wait()
    assert slept == [0.5, 1.0]


async def test_the_judge_sees_both_answers_blind_and_its_verdicts_are_mapped_back(tmp_path: Path) -> None:
    path = await snapshot(tmp_path)
    seen: list[str] = []

    class Judge:
        async def complete(self, request: ChatRequest) -> ModelResponse:
            shown = request.messages[-1].content
            seen.append(shown)
            # always prefers the answer that carries more context: the full prompt's, wherever it stands
            a, b = shown.split("Answer A:\n")[1].split("\n\nAnswer B:\n")
            better = "A" if _chars(a) >= _chars(b) else "B"
            return ModelResponse(
                text=json.dumps(
                    {c: better for c in ("accuracy", "helpfulness", "conciseness", "tone", "grounding")}
                )
            )

    result = await run_ablation(
        [path],
        CountingModel(),
        tmp_path / "run",
        strategies=["leave-one-out"],
        judge=Judge(),
        stream=io.StringIO(),
    )
    judged = [json.loads(line) for line in (tmp_path / "run" / JUDGMENTS).read_text().splitlines()]
    assert judged and all(j["verdict"]["accuracy"] in ("full", "tie") for j in judged)
    firsts = {placement(7, j["key"]) for j in judged}
    assert firsts == {True, False} or len(judged) < 3  # both placements occur
    assert "Message: What's the tortoise's name?" in seen[0]
    strategy = result["strategies"]["leave-one-out"]["accuracy"]
    assert strategy["variant"] == 0 and strategy["full"] + strategy["tie"] == len(judged)


def _chars(answer: str) -> int:
    return int(answer.split("(")[1].split()[0])


def test_a_verdict_is_read_only_when_every_criterion_has_one() -> None:
    whole = '{"accuracy": "A", "helpfulness": "B", "conciseness": "tie", "tone": "a", "grounding": "B"}'
    assert read_verdict(whole, variant_first=True) == {
        "accuracy": "variant",
        "helpfulness": "full",
        "conciseness": "tie",
        "tone": "variant",
        "grounding": "full",
    }
    assert read_verdict(whole, variant_first=False)["accuracy"] == "full"  # type: ignore[index]
    assert read_verdict('{"accuracy": "A"}', variant_first=True) is None
    assert read_verdict("A is better", variant_first=True) is None
