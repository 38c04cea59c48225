"""Which part answers a turn when the embedded model is the one chosen.

SmolLM2-135M can word a short reply to small talk; it cannot use tools, recall the user's memory or read a
document. So for it, in order: a time, unit or arithmetic question is answered by the tool itself
(`direct_tools.py`); a question about the user, their people or their documents is answered from memory
(`extractive.py`); only what is left reaches the model, with its reply checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.generation.direct_tools import DirectToolAgent, DirectTools
from core.generation.extractive import ExtractiveRecall
from core.prompt.assembly import AssembledPrompt
from core.turn_context import TurnContext

if TYPE_CHECKING:
    from core.orchestrator import Agent


class EmbeddedAnswers:
    """The orchestrator's `RecallAnswerer` for the embedded model (see the module docstring)."""

    def __init__(self, recall: ExtractiveRecall, tools: DirectTools | None = None) -> None:
        self._recall = recall
        self._tools = tools or DirectTools()

    def agent_for(self, context: TurnContext, prompt: AssembledPrompt, agent: Agent) -> Agent:
        """The agent for this turn: a tool's answer, memory's, or the model's checked reply."""
        if (done := self._tools.answer(context.text)) is not None:
            return DirectToolAgent(done)
        return self._recall.agent_for(context, prompt, agent)
