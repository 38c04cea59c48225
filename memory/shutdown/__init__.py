"""Session-end ("shutdown") processing: a crash-safe, resumable job framework the session-end steps run in."""

from memory.shutdown.jobs import JobRecord, JobTable
from memory.shutdown.processor import (
    ShutdownProcessor,
    ShutdownReport,
    Step,
    StepContext,
    StepOutcome,
    StepSkipped,
)

__all__ = [
    "JobRecord",
    "JobTable",
    "ShutdownProcessor",
    "ShutdownReport",
    "Step",
    "StepContext",
    "StepOutcome",
    "StepSkipped",
]
