"""The local sandbox: the system's Python inside Debian's bubblewrap, with no network and nothing of the host.

What the code sees: /usr read-only (and the /bin, /lib, /lib64 links into it), /etc/localtime, a fresh /proc
of its own PID namespace, a minimal read-only /dev, and a private size-capped tmpfs at /work (its cwd,
HOME and TMPDIR) that holds the program. Every namespace is new (user, PID, network with only a down
loopback, IPC, UTS, cgroup) and nested user namespaces are refused. Nothing else of the host exists inside:
no home, no data folder, no /etc/passwd or /etc/shadow, no sockets.

Limits are set inside the sandbox by util-linux `prlimit` right before Python starts, so the program
inherits them and cannot lift them: CPU seconds (SIGXCPU, then SIGKILL one second later), address space,
processes, file size, open files, no core dumps. The process limit is set *inside* the new user namespace,
so it counts only the sandbox's own processes. RLIMIT_NPROC never binds root, so when Daemon runs as root
bubblewrap is started as an unprivileged uid (65534, "nobody") and the sandbox's processes are owned by
that uid on the host. The wall-clock limit and the output cap kill the whole process group
(`bounded.run_bounded`); `--die-with-parent` and the PID namespace take every sandboxed process with it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from core.config_tools import CodeExecConfig
from core.tools.code_exec.bounded import Launch, ProcessOutput, run_bounded
from core.tools.code_exec.outcome import RunOutcome, fit_output, limit_notes

BWRAP_PATH = "/usr/bin/bwrap"
PYTHON_PATH = "/usr/bin/python3"  # the system's Python: the venv lives under the user's home, never mounted
PRLIMIT_PATH = "/usr/bin/prlimit"
UNPRIVILEGED_ID = 65534  # "nobody": the uid bubblewrap runs as when Daemon runs as root
SANDBOX_ID = 1000  # the uid and gid the code sees inside
WORK_DIR = "/work"
_PROGRAM = f"{WORK_DIR}/main.py"
_OPEN_FILES = 256
_SIGXCPU_EXIT = 128 + 24  # bubblewrap exits 128+N when its child dies of signal N
_SIGKILL_EXIT = 128 + 9
_PROBE_CODE = "print('ok')"


@dataclass(frozen=True)
class BubblewrapSandbox:
    """Runs one Python program per call in a fresh bubblewrap sandbox with the configured limits."""

    config: CodeExecConfig
    bwrap_path: str = BWRAP_PATH
    python_path: str = PYTHON_PATH
    prlimit_path: str = PRLIMIT_PATH

    def missing(self) -> str | None:
        """The first program this sandbox needs that is not installed, or None."""
        for path in (self.bwrap_path, self.python_path, self.prlimit_path):
            if not os.access(path, os.X_OK):
                return path
        return None

    def probe(self) -> str | None:
        """Run a one-line program once; None when the sandbox works here, else what went wrong.

        Run before the tool is offered, so a host where bubblewrap cannot create its namespaces (a
        container without user namespaces, a kernel that forbids them) gets no tool rather than a tool
        that fails on every call, or one that runs code without the sandbox.
        """
        try:
            out = self._execute(_PROBE_CODE)
        except OSError as error:
            return f"cannot start bubblewrap: {error}"
        if out.returncode == 0 and out.stdout.strip() == b"ok":
            return None
        detail = out.stderr.decode("utf-8", "replace").strip().splitlines()
        return detail[-1] if detail else f"exit status {out.returncode}"

    def run(self, code: str) -> RunOutcome:
        """Run `code` as a program and say what it printed and which limits stopped it."""
        return self._outcome(self._execute(code))

    def argv(self, code_fd: int) -> list[str]:
        """The full command: bubblewrap's mounts and namespaces, then prlimit, then Python on the program."""
        options = [arg for option in self._isolation(code_fd) for arg in option]
        return [self.bwrap_path, *options, "--", *self._limits(), self.python_path, "-E", "-s", _PROGRAM]

    def _isolation(self, code_fd: int) -> tuple[tuple[str, ...], ...]:
        """bubblewrap's options, one per tuple, applied in this order (the read-only remounts come last)."""
        return (
            ("--unshare-all",),  # user, PID, network, IPC, UTS, cgroup
            ("--unshare-user",),
            ("--disable-userns",),  # no nested user namespaces: the usual first step of a kernel exploit
            ("--die-with-parent",),
            ("--new-session",),  # no TIOCSTI into the caller's terminal
            ("--uid", str(SANDBOX_ID)),
            ("--gid", str(SANDBOX_ID)),
            ("--hostname", "sandbox"),
            ("--ro-bind", "/usr", "/usr"),
            ("--symlink", "usr/bin", "/bin"),
            ("--symlink", "usr/lib", "/lib"),
            ("--symlink", "usr/lib64", "/lib64"),
            ("--ro-bind-try", "/etc/localtime", "/etc/localtime"),
            ("--proc", "/proc"),
            ("--dev", "/dev"),
            ("--size", str(self.config.memory_mb * 1024 * 1024), "--tmpfs", WORK_DIR),
            ("--ro-bind-data", str(code_fd), _PROGRAM),
            # / and /dev are tmpfs without a size limit: read-only, so every write lands in the capped /work.
            ("--remount-ro", "/dev"),
            ("--remount-ro", "/"),
            ("--chdir", WORK_DIR),
            ("--clearenv",),
            ("--setenv", "PATH", "/usr/bin:/bin"),
            ("--setenv", "HOME", WORK_DIR),
            ("--setenv", "TMPDIR", WORK_DIR),
            ("--setenv", "LANG", "C.UTF-8"),
            ("--setenv", "PYTHONDONTWRITEBYTECODE", "1"),
        )

    def _limits(self) -> list[str]:
        cfg = self.config
        memory = cfg.memory_mb * 1024 * 1024
        return [
            self.prlimit_path,
            f"--cpu={cfg.cpu_seconds}:{cfg.cpu_seconds + 1}",
            f"--as={memory}",
            # +1: bubblewrap's own init process (PID 1 of the namespace) counts against the limit too.
            f"--nproc={cfg.max_processes + 1}",
            f"--fsize={memory}",
            f"--nofile={_OPEN_FILES}",
            "--core=0",
        ]

    def _execute(self, code: str) -> ProcessOutput:
        # The program travels in a memfd that bubblewrap copies to a read-only file: no host path at all.
        code_fd = os.memfd_create("daemon-code", os.MFD_CLOEXEC)
        try:
            os.write(code_fd, code.encode("utf-8"))
            os.lseek(code_fd, 0, os.SEEK_SET)
            launch = Launch(
                argv=self.argv(code_fd),
                env={"PATH": "/usr/bin:/bin"},  # Daemon's environment (API keys) never reaches bubblewrap
                pass_fds=(code_fd,),
                user=UNPRIVILEGED_ID if os.geteuid() == 0 else None,
            )
            # UTF-8 takes at most 4 bytes a character: this many bytes always hold the character budget.
            return run_bounded(
                launch, max_bytes=4 * self.config.max_output_chars, wall_timeout_s=self.config.wall_timeout_s
            )
        finally:
            os.close(code_fd)

    def _outcome(self, out: ProcessOutput) -> RunOutcome:
        cfg = self.config
        stdout, stderr, cut = fit_output(
            out.stdout.decode("utf-8", "replace"), out.stderr.decode("utf-8", "replace"), cfg.max_output_chars
        )
        stopped, notes = limit_notes(
            stderr, memory=f"{cfg.memory_mb} MB", processes=f"{cfg.max_processes} processes"
        )
        if out.timed_out:
            stopped = (f"wall-clock limit ({cfg.wall_timeout_s:g} s)", *stopped)
        elif out.overflowed:
            stopped = (f"too much output (more than {cfg.max_output_chars} chars)", *stopped)
        elif out.returncode == _SIGXCPU_EXIT:
            stopped = (f"CPU time limit ({cfg.cpu_seconds} s)", *stopped)
        elif out.returncode == _SIGKILL_EXIT:
            # The CPU limit's hard stop, one second after SIGXCPU when the code ignores that signal.
            stopped = (f"CPU time limit ({cfg.cpu_seconds} s) or out of memory (killed)", *stopped)
        killed_by_us = out.timed_out or out.overflowed
        return RunOutcome(
            stdout=stdout,
            stderr=stderr,
            exit_status=None if killed_by_us else out.returncode,
            stopped=stopped,
            truncated_at=cfg.max_output_chars if (cut or out.overflowed) else None,
            notes=notes,
        )
