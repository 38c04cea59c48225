"""The remote sandbox: a fresh E2B code-interpreter sandbox per call, through the `e2b-code-interpreter` SDK.

Each call creates a sandbox without internet access (`POST {api}/v2/sandboxes`), streams one execution
from its Jupyter server (`POST {sandbox}/execute`, JSON lines: stdout, stderr, result, error) and kills the
sandbox (`DELETE {api}/sandboxes/{id}`) whatever happened, so no state or cost outlives the call.

The SDK addresses the control plane at `https://api.<domain>` and each sandbox at
`https://<port>-<id>.<domain>`; `E2B_DOMAIN`, `E2B_API_URL` and `E2B_SANDBOX_URL` override them (a
self-hosted E2B, or the tests' fake server on 127.0.0.1). CPU, memory and process limits are those of
the E2B template; this side enforces the wall-clock limit and the output cap. The output is taken from
the stream callbacks, which stop the stream (and the sandbox) once the cap is reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.config_tools import CodeExecConfig
from core.errors import ToolError
from core.tools.code_exec.outcome import RunOutcome, fit_output, limit_notes

# A sandbox lives this much longer than the code may run, so E2B never kills it mid-answer.
_SANDBOX_GRACE_S = 30
_REQUEST_TIMEOUT_S = 30.0


class _OutputCapReached(Exception):
    """Raised from a stream callback to stop reading once the output cap is reached."""


@dataclass
class _Capture:
    """stdout and stderr as they stream in, up to a character budget shared by both."""

    budget: int
    stdout: list[str] = field(default_factory=list)
    stderr: list[str] = field(default_factory=list)
    used: int = 0

    def add(self, parts: list[str], text: str) -> None:
        room = self.budget - self.used
        parts.append(text[: max(room, 0)])
        self.used += len(text)
        if self.used > self.budget:
            raise _OutputCapReached


@dataclass(frozen=True)
class E2BSandbox:
    """Runs one Python program per call in a new E2B sandbox (`api_url`/`sandbox_url`/`domain`: overrides)."""

    config: CodeExecConfig
    api_key: str
    domain: str | None = None
    api_url: str | None = None
    sandbox_url: str | None = None
    retries: int = 1  # the SDK's retries of 429/502/503/504 on the control plane

    def run(self, code: str) -> RunOutcome:
        """Run `code` in a fresh sandbox and say what it printed and which limits stopped it."""
        from e2b.exceptions import TimeoutException

        sandbox = self._create()
        capture = _Capture(self.config.max_output_chars)
        try:
            execution = sandbox.run_code(
                code,
                timeout=self.config.wall_timeout_s,
                on_stdout=lambda m: capture.add(capture.stdout, m.line),
                on_stderr=lambda m: capture.add(capture.stderr, m.line),
            )
        except _OutputCapReached:
            return self._outcome(
                capture, None, stopped=(f"too much output (more than {capture.budget} chars)",)
            )
        except TimeoutException:
            return self._outcome(
                capture, None, stopped=(f"wall-clock limit ({self.config.wall_timeout_s:g} s)",)
            )
        except Exception as error:
            raise ToolError(f"E2B could not run the code: {_describe(error)}") from None
        finally:
            self._kill(sandbox)
        return self._outcome(capture, execution)

    def _create(self) -> Any:
        from e2b.exceptions import AuthenticationException, RateLimitException
        from e2b_code_interpreter import Sandbox

        try:
            return Sandbox.create(
                timeout=int(self.config.wall_timeout_s) + _SANDBOX_GRACE_S,
                allow_internet_access=False,
                api_key=self.api_key,
                domain=self.domain,
                api_url=self.api_url,
                sandbox_url=self.sandbox_url,
                request_timeout=_REQUEST_TIMEOUT_S,
                retries=self.retries,
            )
        except RateLimitException:
            raise ToolError("E2B is rate-limiting this key (HTTP 429); try again in a minute") from None
        except AuthenticationException:
            raise ToolError(f"E2B rejected the API key ({self.config.e2b_api_key_env})") from None
        except Exception as error:
            raise ToolError(f"E2B could not create a sandbox: {_describe(error)}") from None

    def _kill(self, sandbox: Any) -> None:
        try:
            sandbox.kill()
        except Exception:  # noqa: BLE001 - the sandbox also dies on its own timeout; the answer matters more
            return

    def _outcome(self, capture: _Capture, execution: Any, stopped: tuple[str, ...] = ()) -> RunOutcome:
        cfg = self.config
        error = getattr(execution, "error", None)
        stderr = "".join(capture.stderr)
        if error is not None:  # the kernel reports an exception apart from stderr; show it as Python would
            stderr = f"{stderr}{error.traceback or f'{error.name}: {error.value}'}\n"
        stdout = "".join(capture.stdout)
        if execution is not None and execution.text:  # the value of the last expression, as in a notebook
            stdout = f"{stdout}{execution.text}\n"
        stdout, stderr, cut = fit_output(stdout, stderr, cfg.max_output_chars)
        found, notes = limit_notes(stderr, memory="the E2B sandbox's", processes="the E2B sandbox's")
        ended = execution is not None
        return RunOutcome(
            stdout=stdout,
            stderr=stderr,
            exit_status=(1 if error is not None else 0) if ended else None,
            stopped=(*stopped, *found),
            truncated_at=cfg.max_output_chars if (cut or capture.used > capture.budget) else None,
            notes=notes,
        )


def _describe(error: Exception) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__
