"""Canonical URLs: the spellings of one page that web results use compare equal."""

from __future__ import annotations

import pytest

from core.tools.web.urls import canonical_url


@pytest.mark.parametrize(
    ("url", "canonical"),
    [
        ("HTTPS://Example.ORG/Path/", "https://example.org/Path"),  # host case only: paths are case-sensitive
        ("https://example.org:443/a", "https://example.org/a"),
        ("http://example.org:80/a", "http://example.org/a"),
        ("http://example.org:8080/a", "http://example.org:8080/a"),
        ("https://example.org/a#section-2", "https://example.org/a"),
        (
            "https://example.org/a?utm_source=x&UTM_Medium=y&id=7&fbclid=z&gclid=q",
            "https://example.org/a?id=7",
        ),
        ("https://example.org/", "https://example.org"),
        ("https://[2001:DB8::1]:443/x/", "https://[2001:db8::1]/x"),
        ("not a url", "not a url"),
    ],
)
def test_canonical_url(url: str, canonical: str) -> None:
    assert canonical_url(url) == canonical


def test_a_meaningful_query_parameter_keeps_pages_apart() -> None:
    assert canonical_url("https://example.org/item?id=1") != canonical_url("https://example.org/item?id=2")
