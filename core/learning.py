"""The one path by which facts change: what a turn states, and what the user edits in the Memory tab.

Both go through the verified fact store first; what it accepts (or retracts) then feeds the knowledge graph,
so the profile, the graph and every later answer agree. A fact removed by the user ends its graph edge; one
restored states it again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

from core.ports import ExtractedFact, FactOutcome, FactPort, FactView, KnowledgePort, TurnRecord
from core.relations import USER_ID


class FactLearning:
    """Records facts in the fact store and the graph (see the module docstring). Either may be None: a
    data dir without a fact store still feeds the graph what the extractor read."""

    def __init__(self, facts: FactPort | None, knowledge: KnowledgePort | None) -> None:
        self._facts = facts
        self._knowledge = knowledge

    async def record(
        self,
        learned: Sequence[ExtractedFact],
        turn: TurnRecord,
        *,
        correcting: bool = False,
        previous_reply: str = "",
    ) -> FactOutcome:
        """Verify and store `learned` (stated in `turn`), then give the graph what was accepted."""
        outcome = FactOutcome(tuple(learned))
        if self._facts is not None:
            outcome = await self._facts.record(
                learned, turn, correcting=correcting, previous_reply=previous_reply
            )
        if outcome.learned and self._knowledge is not None:
            await asyncio.to_thread(
                self._knowledge.learn, list(outcome.learned), turn.turn_id, turn.created_at
            )
        return outcome

    async def set_current(self, fact: FactView, current: bool, reason: str) -> bool:
        """Retire or reinstate a stored fact by the user's decision; the graph's edge ends or returns with
        it. False when the store does not know the fact."""
        if self._facts is None:
            return False
        changed = await asyncio.to_thread(self._facts.set_current, fact.id, current, reason)
        if changed and self._knowledge is not None:
            stated = ExtractedFact(
                subject=fact.subject,
                predicate=fact.predicate,
                object=fact.object,
                category=fact.category or "other",
                scope="user" if fact.subject == USER_ID else "entity",
                excerpt=reason,
                confidence=1.0,
                negated=not current,
            )
            await asyncio.to_thread(self._knowledge.learn, [stated], f"edit-{fact.id}", time.time())
        return changed
