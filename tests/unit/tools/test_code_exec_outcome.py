"""How a sandboxed run reads back to the model: the output budget, the limit lines and the layout."""

from __future__ import annotations

from core.tools.code_exec.outcome import NETWORK_NOTE, RunOutcome, fit_output, limit_notes, render


def test_output_within_the_budget_is_kept_whole() -> None:
    assert fit_output("out", "err", 6) == ("out", "err", False)


def test_stdout_keeps_its_start_and_stderr_its_end_when_both_overflow() -> None:
    stdout, stderr, cut = fit_output("a" * 50 + "Z", "Traceback…" + "b" * 50 + "ValueError: x", 40)
    assert cut
    assert stdout == "a" * 20
    assert stderr == "b" * 7 + "ValueError: x"


def test_a_short_stream_leaves_its_share_of_the_budget_to_the_other() -> None:
    stdout, stderr, cut = fit_output("x" * 100, "err", 20)
    assert (stdout, stderr, cut) == ("x" * 17, "err", True)
    stdout, stderr, cut = fit_output("ok", "e" * 100, 20)
    assert (stdout, stderr, cut) == ("ok", "e" * 18, True)


def test_tracebacks_name_the_limit_that_stopped_the_code() -> None:
    stopped, notes = limit_notes(
        "Traceback (most recent call last):\nMemoryError\n", memory="512 MB", processes="32 processes"
    )
    assert stopped == ("memory limit (512 MB)",)
    assert notes == ()
    stopped, _ = limit_notes(
        "BlockingIOError: [Errno 11] Resource temporarily unavailable\n", memory="m", processes="32 processes"
    )
    assert stopped == ("process limit (32 processes)",)
    stopped, _ = limit_notes("OSError: [Errno 27] File too large\n", memory="m", processes="p")
    assert stopped == ("file size limit",)


def test_a_user_error_mentioning_memory_is_not_taken_for_the_limit() -> None:
    stopped, _ = limit_notes("ValueError: not a MemoryError, just text\n", memory="m", processes="p")
    assert stopped == ()


def test_connection_and_name_errors_say_there_is_no_network() -> None:
    for stderr in (
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "socket.gaierror: [Errno -3] Temporary failure in name resolution",
        "OSError: [Errno 101] Network is unreachable",
    ):
        assert limit_notes(stderr, memory="m", processes="p")[1] == (NETWORK_NOTE,)


def test_the_text_has_status_limits_and_both_streams_in_order() -> None:
    text = render(
        RunOutcome(
            stdout="partial\n",
            stderr="",
            exit_status=152,
            stopped=("CPU time limit (10 s)",),
            truncated_at=8000,
            notes=(NETWORK_NOTE,),
        )
    )
    assert text.splitlines() == [
        "exit status: 152",
        "stopped: CPU time limit (10 s)",
        "output truncated at 8000 chars",
        "network is not available in the sandbox",
        "stdout:",
        "partial",
        "stderr: (empty)",
    ]


def test_a_run_stopped_from_outside_has_no_exit_status() -> None:
    text = render(RunOutcome(stdout="", stderr="", exit_status=None, stopped=("wall-clock limit (30 s)",)))
    assert text.startswith("exit status: none (stopped before it finished)\nstopped: wall-clock limit (30 s)")
