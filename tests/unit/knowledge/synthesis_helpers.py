"""Shared pieces of the synthesis tests: the real MiniLM and spaCy, a judge scripted by rule."""

from __future__ import annotations

import json
from collections.abc import Callable

from core.providers.fake import ScriptedProvider, text_response
from core.types import ChatRequest, ModelResponse


def rule_provider(rating: str = "MODERATE", bridge: str | None = None, calls: int = 400) -> ScriptedProvider:
    """A scripted model answering every synthesis call: the judge with `rating`, the bridge writer with
    `bridge` naming both sides (or "no connection" when None)."""

    def answer(request: ChatRequest) -> ModelResponse:
        system = request.messages[0].content
        if "judge" in system:
            return text_response(json.dumps({"rating": rating, "reason": "scripted"}))
        if bridge is None:
            return text_response(json.dumps({"connected": False, "bridge": ""}))
        prompt = request.messages[-1].content
        ideas = [part.split(">>>")[0].strip() for part in prompt.split("<<<")[1:3]]
        first = " ".join(ideas[0].split()[:4]) if ideas else "one"
        second = " ".join(ideas[1].split()[:4]) if len(ideas) > 1 else "the other"
        return text_response(json.dumps({"connected": True, "bridge": bridge.format(a=first, b=second)}))

    steps: list[Callable[[ChatRequest], ModelResponse]] = [answer] * calls
    return ScriptedProvider(steps)
