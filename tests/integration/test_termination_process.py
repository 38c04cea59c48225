"""SIGTERM ends the process with 143 even when it lands inside a finalizer, where Python ignores exceptions
(it once left a REPL running after `kill`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import os, signal, sys, time, weakref
sys.path.insert(0, {root!r})
from ui.shared.termination import install_termination, _terminate
if {with_hook}:
    install_termination()
else:
    signal.signal(signal.SIGTERM, _terminate)

class Thing:
    pass

def finalizer(_):
    os.kill(os.getpid(), signal.SIGTERM)  # handled inside this callback, on its next bytecode
    sum(range(1000))

thing = Thing()
ref = weakref.ref(thing, finalizer)
del thing
for _ in range(200):
    time.sleep(0.01)
print("still running")
"""


def run(with_hook: bool) -> subprocess.CompletedProcess[str]:
    code = SCRIPT.format(root=str(ROOT), with_hook=with_hook)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


def test_a_sigterm_raised_inside_a_finalizer_still_ends_the_process() -> None:
    result = run(with_hook=True)
    assert result.returncode == 143, result.stderr
    assert "still running" not in result.stdout


def test_without_the_hook_the_signal_would_be_lost() -> None:
    # The failure the hook exists for: the SystemExit is swallowed and the process carries on.
    result = run(with_hook=False)
    assert result.returncode == 0 and "still running" in result.stdout
    assert "SystemExit: 143" in result.stderr
