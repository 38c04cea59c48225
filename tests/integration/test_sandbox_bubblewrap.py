"""The local sandbox under attack: each escape or exhaustion attempt comes back as a clear tool result and
leaves the host untouched. The code runs through the real `execute_python` tool in real bubblewrap."""

from __future__ import annotations

import os
import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.config_tools import CodeExecConfig
from core.tools.base import Tool
from core.tools.code_exec import code_tools
from core.tools.code_exec.bubblewrap import BWRAP_PATH

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not os.access(BWRAP_PATH, os.X_OK), reason="needs bubblewrap (apt install bubblewrap)"
    ),
]

CONFIG = CodeExecConfig(
    sandbox="bubblewrap",
    e2b_api_key_env="E2B_API_KEY",
    cpu_seconds=2,
    memory_mb=256,
    max_processes=16,
    max_output_chars=2000,
    wall_timeout_s=5.0,
)

SANDBOXED_ARGV = b"\0-E\0-s\0/work/main.py\0"


@pytest.fixture(scope="module")
def execute_python() -> Tool:
    """The tool on bubblewrap; CI installs bubblewrap, so a failed probe here is a failure, not a skip."""
    (tool,) = code_tools(CONFIG, {})
    assert isinstance(tool, Tool), f"the sandbox does not work here: {tool}"
    return tool


def run(tool: Tool, code: str) -> str:
    return tool(code=textwrap.dedent(code))


def sandboxed_programs_running() -> list[int]:
    """PIDs of host processes still running a sandboxed program (argv ending `-E -s /work/main.py`)."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes().endswith(SANDBOXED_ARGV):
                pids.append(int(entry.name))
        except OSError:
            continue  # exited while we looked
    return pids


# --- normal code works ---------------------------------------------------------------------------------


def test_print_and_math_come_back_with_exit_status_zero(execute_python: Tool) -> None:
    result = run(execute_python, "import math\nprint(sum(range(101)), math.factorial(20))")
    assert result.startswith("exit status: 0")
    assert "5050 2432902008176640000" in result
    assert "stopped:" not in result


def test_a_traceback_is_returned_as_text(execute_python: Tool) -> None:
    result = run(execute_python, "def f():\n    return 1 / 0\nf()")
    assert "exit status: 1" in result
    assert 'File "/work/main.py", line 2, in f' in result
    assert "ZeroDivisionError: division by zero" in result


def test_files_written_in_the_work_dir_do_not_outlive_the_run(execute_python: Tool) -> None:
    first = run(execute_python, "open('notes.txt', 'w').write('kept?'); print(open('notes.txt').read())")
    second = run(execute_python, "import os; print(os.path.exists('notes.txt'), os.getcwd())")
    assert "kept?" in first
    assert "False /work" in second


# --- nothing of the host is visible --------------------------------------------------------------------


def test_a_file_outside_the_work_dir_cannot_be_read(execute_python: Tool, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the user's secret")
    result = run(
        execute_python,
        f"""
        for path in [{str(secret)!r}, "/etc/shadow", "/etc/passwd", "/root/.bashrc", {str(Path.home())!r}]:
            try:
                open(path).read()
                print("READ", path)
            except OSError as error:
                print("blocked", path, type(error).__name__)
        """,
    )
    assert "READ" not in result
    assert result.count("blocked") == 5
    assert "the user's secret" not in result


def test_the_data_dir_cannot_be_written(execute_python: Tool, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    journal = data_dir / "journal.sqlite3"
    journal.write_bytes(b"journal")
    result = run(
        execute_python,
        f"""
        for path in [{str(journal)!r}, {str(data_dir / "new.txt")!r}, "/usr/evil.txt", "/evil.txt"]:
            try:
                open(path, "w").write("overwritten")
                print("WROTE", path)
            except OSError as error:
                print("blocked", path, type(error).__name__)
        """,
    )
    assert "WROTE" not in result
    assert result.count("blocked") == 4
    assert journal.read_bytes() == b"journal"
    assert sorted(p.name for p in data_dir.iterdir()) == ["journal.sqlite3"]


def test_daemons_environment_does_not_reach_the_code(
    execute_python: Tool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("E2B_API_KEY", "e2b_must_not_leak")
    result = run(execute_python, "import os; print(sorted(os.environ))")
    assert "e2b_must_not_leak" not in result
    assert "E2B_API_KEY" not in result


def test_host_processes_cannot_be_signalled(execute_python: Tool) -> None:
    result = run(execute_python, f"import os, signal; os.kill({os.getpid()}, signal.SIGTERM)")
    assert "ProcessLookupError" in result  # the PID namespace holds only the sandbox's own processes


# --- no network ----------------------------------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.setblocking(False)
    yield server
    server.close()


def test_a_socket_to_a_host_listener_is_refused(execute_python: Tool, listener: socket.socket) -> None:
    port = listener.getsockname()[1]
    result = run(execute_python, f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)")
    assert "network is not available in the sandbox" in result
    assert "ConnectionRefusedError" in result
    with pytest.raises(BlockingIOError):  # nothing ever connected to the listener
        listener.accept()


def test_an_abstract_unix_socket_on_the_host_is_unreachable(execute_python: Tool) -> None:
    """Abstract sockets (D-Bus, X11 use them) belong to the network namespace, not to a path."""
    name = f"\0daemon-sandbox-test-{os.getpid()}"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(name)
    server.listen()
    server.setblocking(False)
    try:
        result = run(execute_python, f"import socket; socket.socket(socket.AF_UNIX).connect({name!r})")
        assert "ConnectionRefusedError" in result
        with pytest.raises(BlockingIOError):
            server.accept()
    finally:
        server.close()


def test_names_do_not_resolve(execute_python: Tool) -> None:
    result = run(execute_python, "import socket; socket.getaddrinfo('example.com', 443)")
    assert "network is not available in the sandbox" in result


# --- limits --------------------------------------------------------------------------------------------


def test_a_fork_bomb_is_stopped_by_the_process_limit(execute_python: Tool) -> None:
    result = run(execute_python, "import os\nwhile True:\n    os.fork()")
    assert "stopped: process limit (16 processes)" in result
    assert sandboxed_programs_running() == []


def test_the_process_limit_binds_even_when_daemon_runs_as_root(execute_python: Tool) -> None:
    """RLIMIT_NPROC never binds root: this counts how many children the code really gets."""
    result = run(
        execute_python,
        """
        import os, time
        children = 0
        for _ in range(200):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(2)
                os._exit(0)
            children += 1
        print("children", children)
        """,
    )
    children = int(result.split("children ")[1].split()[0])
    assert 1 <= children < CONFIG.max_processes


@pytest.mark.slow
def test_an_infinite_loop_is_stopped_by_the_cpu_limit() -> None:
    # A wall-clock limit far above the CPU limit: on a busy machine CPU seconds accrue slower than real ones.
    (tool,) = code_tools(CONFIG.model_copy(update={"wall_timeout_s": 120.0}), {})
    assert isinstance(tool, Tool)
    result = run(tool, "while True:\n    pass")
    assert "stopped: CPU time limit (2 s)" in result


@pytest.mark.slow
def test_a_sleeping_program_is_stopped_by_the_wall_clock_limit(execute_python: Tool) -> None:
    result = run(
        execute_python,
        """
        import os, time
        for _ in range(3):
            if os.fork() == 0:
                break
        time.sleep(600)
        """,
    )
    assert "exit status: none (stopped before it finished)" in result
    assert "stopped: wall-clock limit (5 s)" in result
    assert sandboxed_programs_running() == []


def test_a_gigabyte_of_output_is_cut_at_the_cap(execute_python: Tool) -> None:
    result = run(execute_python, "import sys\nfor _ in range(1024):\n    sys.stdout.write('x' * 2**20)")
    assert "output truncated at 2000 chars" in result
    assert "stopped: too much output (more than 2000 chars)" in result
    printed = result.split("stdout:\n")[1].split("\nstderr:")[0]
    assert printed == "x" * 2000
    assert sandboxed_programs_running() == []


def test_four_gigabytes_of_memory_are_refused(execute_python: Tool) -> None:
    result = run(execute_python, "block = bytearray(4 * 1024**3)\nprint(len(block))")
    assert "stopped: memory limit (256 MB)" in result
    assert "MemoryError" in result


def test_the_work_dir_is_capped_in_file_size_and_in_total(execute_python: Tool) -> None:
    """Files in the tmpfs use memory the address-space limit does not see, so both are capped."""
    write = """
    def write(name, mb):
        with open(name, "wb") as f:
            for _ in range(mb):
                f.write(b"x" * 2**20)
    """
    write = textwrap.dedent(write)
    one_big_file = run(execute_python, write + "write('big', 300)")
    many_files = run(execute_python, write + "write('a', 200)\nwrite('b', 200)")
    assert "stopped: file size limit" in one_big_file
    assert "File too large" in one_big_file
    assert "No space left on device" in many_files
