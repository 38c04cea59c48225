"""Generation modes: Agents that wrap Agents, so the orchestrator runs them unchanged.

- `BestOfN`: N answers out of sight, a judge model picks one; only it is shown.
- `Duel`: two models answer concurrently, a judge picks A or B.
- `Ensemble`: N models answer, a voter picks one or writes the final answer from them.
- `PlannedGeneration`: a second model plans the answer; an optional reviewer triggers one rewrite.
- `UncertaintyRetry`: a non-answer about the user's own past gets one retry that searches memory first.

Shared contract (the agent loop's): each run ends with exactly one `Done` or `RunError`; the cancel event
ends it with `Done(exit_reason="cancelled")`, task cancellation propagates; `max_tokens` is passed to the
wrapped agents; every judge/voter/planner/reviewer call is one bounded call with a timeout; a model's
failure never raises (a candidate is dropped, a side call is skipped, all failed → `RunError`); `Done.usage`
sums every call the mode made and `Done.extra["mode"]` names the mode.
"""

from core.generation.ensemble import Ensemble
from core.generation.panel import BestOfN, Duel
from core.generation.planned import PlannedGeneration
from core.generation.uncertainty import UncertaintyDetector, UncertaintyRetry

__all__ = ["BestOfN", "Duel", "Ensemble", "PlannedGeneration", "UncertaintyDetector", "UncertaintyRetry"]
