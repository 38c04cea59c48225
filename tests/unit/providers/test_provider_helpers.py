"""Shared adapter helpers: Retry-After parsing, error messages, key scrubbing, tool-argument decoding."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from core.providers.openai_compat import (
    INVALID_ARGUMENTS_KEY,
    ErrorContext,
    is_retryable_status,
    parse_retry_after,
    parse_tool_arguments,
)

NOW = 1_750_000_000.0
CTX = ErrorContext("openai", "gpt-4o", "OPENAI_API_KEY", 30.0, secret="sk-live-abcdef123456")


def test_retry_after_in_seconds_http_date_and_milliseconds() -> None:
    assert parse_retry_after({"retry-after": "7"}) == 7.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    later = format_datetime(datetime.fromtimestamp(NOW + 42, tz=UTC), usegmt=True)
    assert parse_retry_after({"retry-after": later}, now=NOW) == pytest.approx(42.0)
    assert parse_retry_after({"retry-after-ms": "2500", "retry-after": "9"}) == 2.5


@pytest.mark.parametrize("headers", [None, {}, {"retry-after": "soon"}, {"retry-after": ""}])
def test_retry_after_absent_or_unreadable_is_none(headers: dict[str, str] | None) -> None:
    assert parse_retry_after(headers) is None


def test_retry_after_in_the_past_is_zero() -> None:
    earlier = format_datetime(datetime.fromtimestamp(NOW - 60, tz=UTC), usegmt=True)
    assert parse_retry_after({"retry-after": earlier}, now=NOW) == 0.0


@pytest.mark.parametrize(
    ("status", "retryable"),
    [
        (408, True),
        (409, True),
        (429, True),
        (500, True),
        (529, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (422, False),
        (None, False),
    ],
)
def test_retryable_statuses(status: int | None, retryable: bool) -> None:
    assert is_retryable_status(status) is retryable


def test_auth_errors_name_the_variable_and_never_the_key() -> None:
    unauthorized = CTX.http(401, "Incorrect API key provided: sk-live-abc***456", None)
    assert str(unauthorized) == "openai rejected the API key (HTTP 401); set OPENAI_API_KEY to a valid key"
    forbidden = CTX.http(403, "key sk-live-abcdef123456 lacks access", None)
    assert "sk-live-abcdef123456" not in str(forbidden) and "OPENAI_API_KEY" in str(forbidden)
    assert "gpt-4o" in str(forbidden) and not forbidden.retryable


def test_server_error_detail_is_scrubbed_and_retryable() -> None:
    error = CTX.http(502, "upstream echoed sk-live-abcdef123456", None)
    assert error.retryable and error.status == 502 and "***" in str(error)
    assert "sk-live-abcdef123456" not in str(error) and "sk-live-abcdef123456" not in repr(CTX)


def test_rate_limit_message_mentions_the_wait() -> None:
    error = CTX.http(429, "Too many requests", 3.0)
    assert str(error) == "openai rate limit reached (HTTP 429, retry after 3s): Too many requests"
    assert error.retry_after == 3.0


def test_tool_arguments_decode_or_flag_invalid_json() -> None:
    assert parse_tool_arguments('{"q": "x", "k": 3}') == {"q": "x", "k": 3}
    assert parse_tool_arguments("") == {} and parse_tool_arguments(None) == {}
    assert parse_tool_arguments('{"q": ') == {INVALID_ARGUMENTS_KEY: '{"q": '}
    assert parse_tool_arguments("[1, 2]") == {INVALID_ARGUMENTS_KEY: "[1, 2]"}
