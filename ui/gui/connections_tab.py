"""The Connections tab: synthesis's blind review queue.

Each waiting connection is shown without who found it or how (the audit must not favour a generator):
the two ideas and the bridge, three yes/no screens and a 1-5 rating. An accepted one is kept in memory at
once and can come back, cited, in a later conversation. When more than half of at least ten reviews are
false positives, runs halt; the tab says so and offers to resume. "Look for connections now" runs the
generators within the configured budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from core.errors import UserInputError
from knowledge.synthesis.book import RATING_QUESTION, SCREENS, Grade
from ui.gui.widgets import empty_note, refusal, said
from ui.shared.render import markdown_text

if TYPE_CHECKING:
    from knowledge.synthesis.engine import SynthesisEngine
    from ui.shared.background import BackgroundRunner

ACCEPTED_HEADERS = ["connection", "your rating"]
YES, NO = "Yes", "No"


def review_card(engine: SynthesisEngine) -> tuple[str, str, str]:
    """The next waiting connection, blind (Markdown), its id, and a line about the queue and the halt."""
    book = engine.book
    shown = book.next_for_audit()
    stats = book.stats()
    queued, waiting = stats["by_status"]["queued"], stats["by_status"]["waiting"]
    line = f"{queued} connection{'s' if queued != 1 else ''} wait for your review."
    if waiting:
        judge = "a judge model's reading" if engine.judged else "a judge model (connect one in Settings)"
        line += f" {waiting} more wait for {judge}."
    if stats["halted"]:
        line = f"**Halted:** {markdown_text(stats['halt_reason'])}. " + line
    if shown is None:
        return "_Nothing waits for your review._", "", line
    card = "\n\n".join(
        [
            f"**A.** {markdown_text(shown.left.text)}",
            f"**B.** {markdown_text(shown.right.text)}",
            f"**The connection:** {markdown_text(shown.bridge)}",
        ]
    )
    return card, shown.id, line


def grade_card(engine: SynthesisEngine, candidate_id: str, *answers: Any) -> tuple[str, bool]:
    """Grade the shown connection (three Yes/No answers and a rating): a status line, and whether a grade
    was recorded (nothing is without all four answers, and the answers given stay on screen)."""
    *screens, rating = answers
    if not candidate_id:
        return "Nothing to review.", False
    if any(a not in (YES, NO) for a in screens) or rating is None:
        return "Answer the three questions and pick a rating first.", False
    try:
        graded = engine.grade(candidate_id, Grade.of([a == YES for a in screens], int(rating)))
    except UserInputError as problem:
        return refusal(problem), True
    if graded.status == "accepted":
        return f"Kept ({graded.grade}): Daemon may bring it up when it fits a conversation.", True
    return f"Declined ({graded.grade}); it counts towards the false-positive rate.", True


def accepted_rows(engine: SynthesisEngine) -> list[list[str]]:
    return [[c.bridge, c.grade] for c in engine.book.candidates("accepted", 100)]


async def run_now(engine: SynthesisEngine, seconds: float) -> str:
    """One run within `seconds`, summarised in a line (or why it cannot run)."""
    from knowledge.synthesis.engine import RunBudget

    try:
        report = await engine.run(RunBudget(seconds=seconds))
    except UserInputError as problem:
        return refusal(problem)
    found = sum(g["candidates"] for g in report["generated"].values())
    text = f"Looked at {report['pool']} memories: {found} candidates, {report['queued']} new for your review"
    text += f", {report['waiting']} waiting for a judge." if report["waiting"] else "."
    return markdown_text(text) + "".join(f"\n\n_{markdown_text(n)}_" for n in report["notes"])


def start_in_background(runner: BackgroundRunner) -> str:
    """Queue a run as a background task (its progress in the task list, cancellable, resumed after a
    crash); what happened, in words."""
    from knowledge.synthesis.job import SYNTHESIS_JOB, TITLE

    def start() -> str:
        task = runner.submit(TITLE, SYNTHESIS_JOB, origin="gui", title=TITLE)
        budget = markdown_text(runner.budget_of(SYNTHESIS_JOB))
        return (
            f"Started in the background ({budget}, task `{task.id}`): its progress shows under Reminders → "
            "background tasks, and new connections appear here."
        )

    return said(start)


def resume(engine: SynthesisEngine) -> str:
    engine.book.resume()
    return "Resumed: runs may look for connections again (earlier reviews no longer count towards a halt)."


def build_connections_tab(
    gr: Any, engine: SynthesisEngine | None, *, run_seconds: float, runner: BackgroundRunner | None = None
) -> dict[str, Any] | None:
    """The tab's widgets and handlers; a note when this build has no synthesis. With `runner`, a run is a
    background task; without, it runs while the page waits (bounded by `run_seconds`)."""
    if engine is None:
        gr.Markdown("Connections are not available in this build.")
        return None
    c: dict[str, Any] = {}
    gr.Markdown(
        "Daemon looks for links between distant ideas in your memory (a habit and a hobby that follow the "
        "same pattern) and shows you the few that pass its filter. Review them here without knowing how they "
        "were found; what you keep can come back in a later conversation, with where it came from."
    )
    c["queue"] = gr.Markdown("", elem_id="connection-queue")
    c["card"] = gr.Markdown("", elem_id="connection-card")
    c["id"] = gr.State("")
    c["screens"] = [gr.Radio([YES, NO], label=question, elem_id=f"screen-{key}") for key, question in SCREENS]
    c["rating"] = gr.Radio(["1", "2", "3", "4", "5"], label=RATING_QUESTION, elem_id="connection-rating")
    with gr.Row():
        c["grade"] = gr.Button("Save my review", variant="primary", elem_id="connection-grade")
        c["run"] = gr.Button("Look for connections now", elem_id="connection-run")
        c["resume"] = gr.Button("Resume after a halt", elem_id="connection-resume", visible=False)
    c["status"] = gr.Markdown("", elem_id="connection-status")
    c["accepted"] = gr.Dataframe(
        headers=ACCEPTED_HEADERS, elem_id="connection-kept", interactive=False, wrap=True
    )
    empty_note(gr, c["accepted"], "The connections you keep are listed here.", "connection-kept-empty")
    cleared = [gr.update(value=None) for _ in range(len(SCREENS) + 1)]
    view = [c["card"], c["id"], c["queue"], *c["screens"], c["rating"], c["accepted"], c["resume"]]

    def reload() -> list[Any]:
        halted = gr.update(visible=engine.book.halt().halted)  # the button only while runs are halted
        return [*review_card(engine), *cleared, accepted_rows(engine), halted]

    def graded(candidate_id: str, *answers: Any) -> list[Any]:
        status, recorded = grade_card(engine, candidate_id, *answers)
        return [status, *(reload() if recorded else [gr.update() for _ in view])]

    async def ran() -> list[Any]:
        if runner is not None:
            return [start_in_background(runner), *reload()]
        return [await run_now(engine, run_seconds), *reload()]

    c["grade"].click(graded, [c["id"], *c["screens"], c["rating"]], [c["status"], *view])
    c["run"].click(ran, None, [c["status"], *view])
    c["resume"].click(lambda: [resume(engine), *reload()], None, [c["status"], *view])
    c["reload"] = reload
    c["reload_outputs"] = view
    return c
