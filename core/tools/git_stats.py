"""`git_stats`: read-only questions about the user's own repositories (those listed in `session.git_repos`).

The model picks a question, never a command line: each question maps to one fixed, read-only git
invocation (`log`, `shortlog`, `rev-list --count`, `log --numstat` summed up, `show --stat`). `blame` is
left out on purpose: it prints file contents line by line (what a stats tool should not leak into a
conversation), its output grows with the file, and "who changed this" is answered by `log` with a path.

Hardening, because a repository's own `.git/config` is not trusted (a cloned repository can carry one):
- only configured repositories, by name or by their exact path; an argument with `..` is refused;
- `-c` overrides that beat the repository's config: no fsmonitor program, hooks from `/dev/null`, no
  pager, no credential helper, no network transport (`protocol.allow=never`, which also stops the lazy
  fetches of a partial clone), no signature checking (`gpg.program` would run), no mailmap file from the
  config; `--no-ext-diff --no-textconv` so no diff driver runs; none of these commands touches the index,
  so no index-refresh hook can fire either;
- a clean environment: no inherited `GIT_*` variable (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`...), no system
  config, no prompts (`GIT_TERMINAL_PROMPT=0`, no askpass), `GIT_CEILING_DIRECTORIES` so a configured path
  that is not itself a repository never reaches a parent one, literal pathspecs;
- stdin closed, a timeout that kills the process group, and at most `RAW_CAP_BYTES` read from git.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from core.config_tools import GitStatsConfig
from core.errors import ToolError, ToolRetry
from core.text import clip
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool

RAW_CAP_BYTES = 2_000_000  # read from git at most; `diffstat` sums this much, the others show far less
_TOP_FILES = 15
_HARDENING = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "credential.helper=",
    "protocol.allow=never",
    "log.showSignature=false",
    "mailmap.file=/dev/null",
    "diff.external=",
    "color.ui=false",
)
_KEPT_ENV = ("PATH", "HOME", "LANG", "TZ", "USER", "LOGNAME", "TMPDIR", "SYSTEMROOT")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$")
_AGO = re.compile(r"^\d{1,4} (?:minute|hour|day|week|month|year)s? ago$")
_REVISION = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/~^-]{0,99}$")
_DESCRIPTION = (
    "Answer questions about the user's own git repositories: recent commits (log), commits per author "
    "(shortlog), how many commits (count), which files changed most and lines added/removed (diffstat), "
    "or one commit's changed files (show). Read-only."
)
GIT_HINT = r"\b(git|commits?|repo(sitory)?|branch|merged?|pushed|diffstat|shortlog|code ?base)\b"

_NO_COMMIT = ("does not have any commits", "unknown revision", "bad revision", "bad default revision")
Question = Literal["log", "shortlog", "count", "diffstat", "show"]


@dataclass(frozen=True)
class GitResult:
    """What one git run gave: exit status, bounded stdout, the head of stderr, and how it ended."""

    returncode: int
    stdout: str
    stderr: str
    truncated: bool = False
    timed_out: bool = False


def git_stats_tool(
    config: GitStatsConfig,
    repos: Sequence[Path],
    *,
    git: str | None = None,
    env: Mapping[str, str] | None = None,
) -> Tool | UnavailableTool:
    """The `git_stats` tool over `repos`, or why it cannot run (no repositories configured, no git).

    `git` is the program (default: `git` found on PATH); `env` the environment to draw PATH/HOME from
    (default: this process's).
    """
    base_env = dict(os.environ if env is None else env)
    program = shutil.which(git or "git", path=base_env.get("PATH", ""))
    allowed = _existing(repos)
    if not repos:
        return UnavailableTool("git_stats", _DESCRIPTION, "no repositories configured (session.git_repos)")
    if not allowed:
        return UnavailableTool(
            "git_stats", _DESCRIPTION, "none of the repositories in session.git_repos exists"
        )
    if program is None:
        return UnavailableTool("git_stats", _DESCRIPTION, "needs git installed (not found on PATH)")
    names = ", ".join(sorted(k for k in allowed if "/" not in k))

    def git_stats(
        repo: str = "",
        question: Question = "log",
        since: str = "",
        until: str = "",
        path: str = "",
        revision: str = "",
        limit: int = 30,
    ) -> str:
        """Answer a question about one of the user's git repositories (read-only).

        Args:
            repo: the repository's name (or its configured path); may be empty when only one is configured
            question: log (commits), shortlog (commits per author), count (number of commits), diffstat
                (files changed most, lines added/removed), show (one commit's changed files)
            since: start of the time window: YYYY-MM-DD, "YYYY-MM-DD HH:MM" or "N days/weeks/months ago"
            until: end of the time window, same forms; empty for now
            path: only changes under this path inside the repository
            revision: the commit to show or to count back from (a hash, a branch or HEAD~N); empty for HEAD
            limit: commits to list for "log", 1 to 100
        """
        root = resolve_repo(repo, allowed)
        args = question_args(question, _window(since, until), _pathspec(path), revision, limit)
        result = run_git(program, root, args, timeout_s=config.timeout_s, env=git_env(base_env, root))
        text = render(question, result)
        window = "" if question == "show" else _window_note(since, until)
        title = f"git {question} of {root.name}{window}"
        return clip(f"{title}:\n{text}", config.max_output_chars, keep_tail=False)

    # Its own timeout (config.timeout_s) kills git first; the loop's is only a backstop.
    tool = Tool.from_function(
        git_stats, description=_DESCRIPTION, timeout_s=config.timeout_s + 5, use_when=GIT_HINT
    )
    properties = tool.parameters["properties"]
    properties["repo"]["description"] = f"one of: {names}"
    properties["limit"].update({"minimum": 1, "maximum": 100})
    return tool


def _existing(repos: Sequence[Path]) -> dict[str, Path]:
    """Configured repositories that exist, by name (a shared name keeps the first; the path still works)."""
    out: dict[str, Path] = {}
    for repo in repos:
        path = Path(repo).expanduser().resolve()
        if path.is_dir():
            out.setdefault(path.name, path)
            out.setdefault(str(path), path)
    return out


def resolve_repo(repo: str, allowed: Mapping[str, Path]) -> Path:
    """The configured repository `repo` names (its name or its path; empty: the only one configured);
    anything else is refused."""
    text = repo.strip()
    if not text and len(set(allowed.values())) == 1:
        return next(iter(allowed.values()))
    if ".." in PurePosixPath(text.replace("\\", "/")).parts:
        raise ToolError("a repository is named, not reached through '..'")
    found = allowed.get(text) or allowed.get(text.rstrip("/"))
    if found is None and text.startswith(("/", "~")):
        found = allowed.get(str(Path(text).expanduser().resolve()))
    if found is None:
        names = ", ".join(sorted(k for k in allowed if "/" not in k))
        raise ToolRetry(f"{repo!r} is not one of the configured repositories: {names}")
    return found


def _window(since: str, until: str) -> list[str]:
    args = []
    for flag, value in (("--since", since), ("--until", until)):
        value = value.strip()
        if not value:
            continue
        if not (_DATE.match(value) or _AGO.match(value)):
            raise ToolRetry(f'{flag[2:]}: use YYYY-MM-DD, "YYYY-MM-DD HH:MM" or "N days ago", not {value!r}')
        args.append(f"{flag}={value}")
    return args


def _window_note(since: str, until: str) -> str:
    parts = [
        f"since {since.strip()}" if since.strip() else "",
        f"until {until.strip()}" if until.strip() else "",
    ]
    shown = " ".join(p for p in parts if p)
    return f" ({shown})" if shown else ""


def _pathspec(path: str) -> list[str]:
    """`-- PATH` for a relative path inside the repository (literal, no '..', no pathspec magic)."""
    text = path.strip().replace("\\", "/")
    if not text:
        return []
    if text.startswith(("/", ":", "~")) or ".." in PurePosixPath(text).parts:
        raise ToolError("path must be relative to the repository, without '..'")
    return ["--", text]


def question_args(
    question: str, window: list[str], pathspec: list[str], revision: str, limit: int
) -> list[str]:
    """The fixed, read-only git arguments of one question, starting from `revision` (default HEAD)."""
    start = ["--end-of-options", _revision(revision)]
    paths = pathspec or ["--"]
    if question == "log":
        count = f"--max-count={max(1, min(100, limit))}"
        pretty = "--pretty=format:%h %ad %an: %s"
        return ["log", "--no-show-signature", "--date=short", pretty, count, *window, *start, *paths]
    if question == "shortlog":
        return ["shortlog", "--summary", "--numbered", "--email", "--no-merges", *window, *start, *paths]
    if question == "count":
        return ["rev-list", "--count", *window, *start, *paths]
    if question == "diffstat":
        diff = ["--no-ext-diff", "--no-textconv", "--no-renames", "--numstat"]
        return ["log", "--no-show-signature", *diff, "--format=@%h", *window, *start, *paths]
    if question == "show":
        stat = ["--stat=120", "--no-ext-diff", "--no-textconv", "--no-show-signature"]
        return ["show", *stat, "--date=short", "--format=%h %ad %an%n%s%n", *start, *paths]
    raise ToolRetry(f"unknown question {question!r}: log, shortlog, count, diffstat or show")


def _revision(revision: str) -> str:
    """One commit: a hash, a branch or tag, HEAD~N; peeled to a commit (`^{commit}`) so a blob or tree
    hash never prints file contents. Ranges and option-like text are refused."""
    rev = (revision or "HEAD").strip()
    if not _REVISION.match(rev) or ".." in rev:
        raise ToolRetry(f"revision must be one commit (a hash, a branch or HEAD~N), not {revision!r}")
    return f"{rev}^{{commit}}"


def git_env(base: Mapping[str, str], repo: Path) -> dict[str, str]:
    """A clean environment for git: a few inherited basics, no `GIT_*` from outside, no prompts."""
    env = {key: base[key] for key in _KEPT_ENV if key in base}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_ASKPASS="",
        GIT_PAGER="cat",
        PAGER="cat",
        GIT_EDITOR=":",
        GIT_OPTIONAL_LOCKS="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_LITERAL_PATHSPECS="1",
        GIT_NO_LAZY_FETCH="1",
        GIT_CEILING_DIRECTORIES=str(repo.parent),
        LC_ALL="C",
    )
    return env


def run_git(
    git: str,
    repo: Path,
    args: Sequence[str],
    *,
    timeout_s: float,
    env: Mapping[str, str],
    max_bytes: int = RAW_CAP_BYTES,
) -> GitResult:
    """Run `git <hardening> -C repo <args>`: stdin closed, at most `max_bytes` of stdout read, the process
    group killed on timeout or when the cap is reached."""
    configs = [part for item in _HARDENING for part in ("-c", item)]
    argv = [git, "--no-pager", *configs, "-C", str(repo), *args]
    with tempfile.TemporaryFile() as err:
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=err,
                env=dict(env),
                cwd=repo,
                start_new_session=True,  # its own process group, so a kill reaches anything it started
            )
        except OSError as error:
            raise ToolError(f"could not run git: {error}") from None
        timed_out = threading.Event()

        def expire() -> None:
            timed_out.set()
            _kill(proc)

        timer = threading.Timer(timeout_s, expire)
        timer.start()
        try:
            out, truncated = _read_bounded(proc, max_bytes)
            proc.wait()
        finally:
            timer.cancel()
        err.seek(0)
        stderr = err.read(4000).decode("utf-8", "replace")
    return GitResult(proc.returncode, out, stderr, truncated, timed_out.is_set())


def _read_bounded(proc: subprocess.Popen[bytes], max_bytes: int) -> tuple[str, bool]:
    # A pipe opened with Popen's default buffering is a BufferedReader, whose read1 returns what is there.
    assert isinstance(proc.stdout, io.BufferedReader)
    chunks: list[bytes] = []
    size = 0
    with proc.stdout:
        while piece := proc.stdout.read1(65536):
            chunks.append(piece)
            size += len(piece)
            if size >= max_bytes:
                _kill(proc)  # stop git writing what would only be thrown away
                return b"".join(chunks)[:max_bytes].decode("utf-8", "replace"), True
    return b"".join(chunks).decode("utf-8", "replace"), False


def _kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill git's process group (ours: started with its own session), unless git was already reaped."""
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)


def render(question: str, result: GitResult) -> str:
    """The text the model reads for one git run (errors as plain sentences)."""
    if result.timed_out:
        raise ToolError("git took too long and was stopped; ask about a shorter time window")
    if result.returncode != 0 and not result.truncated:
        first = next((line for line in result.stderr.splitlines() if line.strip()), "git failed")
        if any(sign in result.stderr for sign in _NO_COMMIT):
            return "No such commit (the repository is empty or the revision does not exist)."
        raise ToolError(first.removeprefix("fatal: ").strip())
    text = diffstat_summary(result.stdout) if question == "diffstat" else result.stdout.strip()
    if not text or (question == "count" and text == "0"):
        text = "0 commits" if question == "count" else "No commits in that window."
    elif question == "count":
        text = f"{text} commits"
    if result.truncated:
        text += f"\n(git printed more than {RAW_CAP_BYTES:,} bytes; this covers the newest part only)"
    return text


def diffstat_summary(numstat: str) -> str:
    """`log --numstat --format=@%h` summed up: commits, lines added/removed, files changed most."""
    commits = 0
    per_file: dict[str, list[int]] = {}
    for line in numstat.splitlines():
        if line.startswith("@"):
            commits += 1
            continue
        parts = line.split("\t", 2)
        if len(parts) != 3:
            continue
        added, removed, name = parts
        counts = per_file.setdefault(name, [0, 0])
        counts[0] += int(added) if added.isdigit() else 0  # "-" marks a binary file
        counts[1] += int(removed) if removed.isdigit() else 0
    if not commits:
        return ""
    total_add = sum(c[0] for c in per_file.values())
    total_del = sum(c[1] for c in per_file.values())
    lines = [f"{commits} commits, {len(per_file)} files changed, +{total_add} -{total_del} lines"]
    ranked = sorted(per_file.items(), key=lambda kv: (-(kv[1][0] + kv[1][1]), kv[0]))
    lines += [f"  {name}: +{add} -{rem}" for name, (add, rem) in ranked[:_TOP_FILES]]
    if len(ranked) > _TOP_FILES:
        lines.append(f"  … and {len(ranked) - _TOP_FILES} more files")
    return "\n".join(lines)
