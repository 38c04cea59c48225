"""Canonical URLs, so the same page found by two sub-queries (or with tracking tags) is listed once."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

# Query parameters that only say where a click came from; the page is the same without them.
_TRACKING_PARAMS = frozenset(
    {"fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "mc_cid", "mc_eid", "igshid", "_ga"}
)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def canonical_url(url: str) -> str:
    """`url` in one canonical spelling: lowercase scheme and host, no default port, no fragment, no
    tracking parameters (utm_*, fbclid, gclid…), no trailing slash on the path. Unparsable text is
    returned stripped, unchanged otherwise."""
    text = url.strip()
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        return text
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if not scheme or not host:
        return text
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    if parts.username:  # keep credentials as given (rare in results, but dropping them changes the page)
        auth = parts.username + (f":{parts.password}" if parts.password else "")
        netloc = f"{auth}@{netloc}"
    query = urlencode([(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _tracking(k)])
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), query, ""))


def _tracking(name: str) -> bool:
    lowered = name.lower()
    return lowered.startswith("utm_") or lowered in _TRACKING_PARAMS
