"""Whether a run enters the tool loop at all, and with which tools.

Offering tools costs every model call the tools' schemas and tempts models to call them: a 135M model
called whatever it was offered ("hello" became five calculator calls), and a capable one searches the web
for what the prompt already holds. `StagedToolGate` decides in three stages, cheapest first, and stops at
the first that says yes:

1. **keywords**: a tool's `use_when` pattern matches the user's words ("what is 17 + 25", "search the web").
2. **recall**: the message names a knowledge-graph entity and asks about the past (intent in
   `RECALL_INTENTS`, speech act "question"): the memory tools are offered.
3. **model**: a bounded yes/no side call to a fast, capable model, only when one is configured (the
   embedded model cannot judge this); a late or failed call counts as no.

Otherwise no tools are offered and the model answers from the prompt. When the user is recalling, memory
search wins over web search: the web tools are withdrawn and the memory tools offered instead, since a
question about the user's own past is not answered by the web. Before the stages, a note from Daemon's own
code naming a tool (the uncertainty retry: "call the `search_memory` tool") offers that tool.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from core.agent.turn_signals import TurnSignals
from core.pipeline.intent import RECALL_INTENTS
from core.pipeline.speech_act import QUESTION
from core.providers.base import ChatProvider
from core.providers.side_call import side_call
from core.tools.base import Tool
from core.tools.toolset import Toolset
from core.types import ChatRequest, Message

log = logging.getLogger(__name__)

GATE_PROMPT = (
    "You decide whether an assistant needs one of these tools to answer the user's message well, or can "
    "answer from the conversation and its own knowledge. Tools:\n{tools}\n"
    "Answer with one word: yes or no."
)


@dataclass(frozen=True)
class GateDecision:
    """The tools one run offers (empty: no tool loop), the stage that decided and why."""

    toolset: Toolset
    stage: str
    reason: str = ""


class ToolGate(Protocol):
    """Chooses the tools to offer for one user message."""

    async def decide(
        self,
        message: str,
        toolset: Toolset,
        signals: TurnSignals | None = None,
        cancel: asyncio.Event | None = None,
    ) -> GateDecision: ...


class OfferAll:
    """Every tool, every time (a runner built without a gate)."""

    async def decide(
        self,
        message: str,
        toolset: Toolset,
        signals: TurnSignals | None = None,
        cancel: asyncio.Event | None = None,
    ) -> GateDecision:
        return GateDecision(toolset, "all")


class HintedToolGate:
    """Only tools whose `use_when` pattern matches the message (tools without a pattern always)."""

    async def decide(
        self,
        message: str,
        toolset: Toolset,
        signals: TurnSignals | None = None,
        cancel: asyncio.Event | None = None,
    ) -> GateDecision:
        return GateDecision(toolset.filtered(lambda tool: tool.wanted_for(message)), "keywords")


@dataclass(frozen=True)
class StagedToolGate:
    """Keywords → graph entity with a recall question → a fast model's yes/no (see the module docstring).

    Args:
        judge: the fast, capable model of the third stage (None: no third stage).
        narrow: offer only the tools the message matched (the embedded model) rather than every tool once
            the gate opens (capable models choose among them well).
        memory_tools: names of the tools that search the user's memory.
        web_tools: names of the tools that search the web (withdrawn while the user is recalling).
        timeout_s: the bound of the judge's call.
    """

    judge: ChatProvider | None = None
    narrow: bool = False
    memory_tools: frozenset[str] = frozenset()
    web_tools: frozenset[str] = frozenset()
    timeout_s: float = 4.0

    async def decide(
        self,
        message: str,
        toolset: Toolset,
        signals: TurnSignals | None = None,
        cancel: asyncio.Event | None = None,
    ) -> GateDecision:
        """The tools to offer for `message`; an empty toolset keeps the run out of the tool loop."""
        if not len(toolset):
            return GateDecision(toolset, "none", "no tools are available")
        recalling = signals is not None and signals.intent in RECALL_INTENTS
        matched = [t.name for t in toolset if t.use_when is not None and t.wanted_for(message)]
        if matched:
            offer = toolset.filtered(lambda t: t.wanted_for(message)) if self.narrow else toolset
            return self._decision(offer, toolset, recalling, "keywords", f"matched {', '.join(matched)}")
        if recalling and signals is not None and signals.speech_act == QUESTION and signals.entities:
            memory = toolset.filtered(lambda t: t.name in self.memory_tools)
            if len(memory):
                why = f"a recall question about {', '.join(signals.entities[:3])}"
                return self._decision(memory, toolset, recalling, "recall", why)
        if self.judge is not None and await self._judge_says_yes(message, toolset, cancel):
            return self._decision(toolset, toolset, recalling, "model", "the fast model said yes")
        return GateDecision(Toolset(), "none", "no stage asked for a tool")

    def _decision(
        self, offer: Toolset, toolset: Toolset, recalling: bool, stage: str, reason: str
    ) -> GateDecision:
        """`offer`, with memory search in place of web search while the user is recalling."""
        if not recalling or not any(t.name in self.memory_tools for t in toolset):
            return GateDecision(offer, stage, reason)
        kept = [t for t in toolset if (t.name in offer or t.name in self.memory_tools)]
        preferred = Toolset(t for t in kept if t.name not in self.web_tools)
        return GateDecision(preferred, stage, f"{reason}; recalling: memory search before web search")

    async def _judge_says_yes(self, message: str, toolset: Toolset, cancel: asyncio.Event | None) -> bool:
        assert self.judge is not None
        request = ChatRequest(
            (Message("system", GATE_PROMPT.format(tools=_listing(toolset))), Message("user", message)),
            max_tokens=4,
            temperature=0.0,
        )
        reply = await side_call(
            self.judge,
            request,
            timeout_s=self.timeout_s,
            what="the tool gate's yes/no call",
            otherwise="no tools offered",
            cancel=cancel,
        )
        return reply.text.casefold().lstrip(" *\"'`").startswith("yes")


def requested_in_notes(messages: Sequence[Message], toolset: Toolset) -> GateDecision | None:
    """The tools a note from Daemon's own code asks for by name (`search_memory` in backticks), when one
    does: a system message after the first, such as the uncertainty retry's "call the `search_memory`
    tool". Such a note is ours, not the user's or a tool's, so it opens the gate for the tools it names."""
    notes = " ".join(m.content for m in messages[1:] if m.role == "system")
    named = {t.name for t in toolset if f"`{t.name}`" in notes}
    if not named:
        return None
    return GateDecision(
        toolset.filtered(lambda t: t.name in named), "requested", f"a note asks for {sorted(named)}"
    )


def _listing(tools: Iterable[Tool]) -> str:
    return "\n".join(f"- {t.name}: {t.description.splitlines()[0][:160]}" for t in tools)
