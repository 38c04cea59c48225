"""One rooted error hierarchy. Front ends catch `DaemonError` and show `str(error)`, never a traceback."""

from __future__ import annotations


class DaemonError(Exception):
    """Base of every error Daemon raises on purpose; its message is meant for the user."""


class ConfigError(DaemonError):
    """A configuration file, variable or flag is invalid. The message names where and what is expected."""


class UserInputError(DaemonError):
    """The user's input (arguments, a file, JSON) cannot be used as given."""


class ProviderError(DaemonError):
    """A model provider failed. `retryable` errors (429, 5xx, timeouts, connection drops) may be retried."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        retryable: bool = False,
        retry_after: float | None = None,
        provider: str = "",
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.retry_after = retry_after
        self.provider = provider


class TruncatedStreamError(ProviderError):
    """A stream ended without its finish marker: the partial text is not an answer."""

    def __init__(
        self,
        message: str = "the model's stream ended before it finished",
        *,
        status: int | None = None,
        retryable: bool = True,  # another attempt may well finish
        retry_after: float | None = None,
        provider: str = "",
    ) -> None:
        super().__init__(
            message, status=status, retryable=retryable, retry_after=retry_after, provider=provider
        )


class BudgetExceeded(DaemonError):
    """The configured spending budget would be exceeded by another model call."""


class ToolError(DaemonError):
    """A tool failed; the message goes back to the model as the tool result."""


class ToolRetry(DaemonError):
    """Raised by a tool to ask the model to call it again differently; the message is the hint."""


class RunCancelled(DaemonError):
    """The user cancelled the running turn (Ctrl-C in the CLI, Stop in the GUI)."""


class StorageError(DaemonError):
    """The journal or another durable store could not be read or written."""
