"""`web_search`: Tavily searches for each sub-query, cached, counted against a daily credit limit,
merged with canonical-URL dedupe and returned as numbered untrusted results.

One request per sub-query (a basic search costs one Tavily credit). Credits are reserved before the
requests go out and returned when a request fails (the service charges only answered searches); a cached
sub-query costs nothing. Failures become plain sentences the model can pass on: a `ToolError` when
nothing could be searched, a note under the results when only some parts failed.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from core.config_tools import WebSearchConfig
from core.errors import ToolError, ToolRetry
from core.tools.web.decompose import QueryDecomposer
from core.tools.web.render import WebResult, clean_field, render_results
from core.tools.web.store import DailyCredits, SearchCache, cache_key
from core.tools.web.urls import canonical_url

logger = logging.getLogger(__name__)

Topic = Literal["general", "news"]
RATE_LIMITED = "the web search service is rate-limiting; try later"
_SNIPPET_CHARS = 500


@dataclass(frozen=True)
class _Part:
    """One sub-query's outcome: its results, or why it has none."""

    query: str
    results: tuple[WebResult, ...] = ()
    problem: str | None = None


class WebSearch:
    """Searches the web through Tavily (`base_url` None: Tavily's own endpoint)."""

    def __init__(
        self,
        config: WebSearchConfig,
        *,
        api_key: str,
        base_url: str | None,
        cache: SearchCache,
        credits: DailyCredits,
        decomposer: QueryDecomposer,
    ) -> None:
        self._config = config
        self._api_key = api_key
        self._base_url = base_url
        self._cache = cache
        self._credits = credits
        self._decomposer = decomposer

    async def search(self, query: str, topic: Topic = "general") -> str:
        """The numbered, untrusted results for `query`; raises ToolError/ToolRetry when nothing was found."""
        if not query.strip():
            raise ToolRetry("give the words to search for in `query`")
        subqueries = await self._decomposer.split(query)
        options = {"max_results": self._config.max_results, "topic": topic, "depth": "basic"}
        keys = [cache_key(q, options) for q in subqueries]
        cached = {q: self._cache.get(k) for q, k in zip(subqueries, keys, strict=True)}
        misses = [q for q in subqueries if cached[q] is None]
        granted = self._credits.take(len(misses)) if misses else 0
        if misses and granted == 0 and len(misses) == len(subqueries):
            raise ToolError(self._limit_sentence())
        # A cancelled call keeps its reserved credits: its requests may have been answered (and charged).
        fetched = await asyncio.gather(*(self._fetch(q, topic) for q in misses[:granted]))
        self._credits.give_back(sum(1 for part in fetched if part.problem is not None))
        for part in fetched:
            if part.problem is None:
                self._cache.put(keys[subqueries.index(part.query)], [_as_json(r) for r in part.results])
        parts = self._in_order(subqueries, cached, fetched, skipped=misses[granted:])
        return self._render(query, parts)

    def _in_order(
        self,
        subqueries: Sequence[str],
        cached: dict[str, Any],
        fetched: Sequence[_Part],
        *,
        skipped: Sequence[str],
    ) -> list[_Part]:
        by_query = {part.query: part for part in fetched}
        for q in skipped:
            by_query[q] = _Part(q, problem=self._limit_sentence())
        for q, value in cached.items():
            if value is not None:
                by_query[q] = _Part(q, tuple(_from_json(v) for v in value if isinstance(v, dict)))
        return [by_query[q] for q in subqueries]

    def _render(self, query: str, parts: Sequence[_Part]) -> str:
        answered = [p for p in parts if p.problem is None]
        if not answered:
            raise ToolError(parts[0].problem or "the web search failed")
        results = merge_results(p.results for p in answered)
        searched = " | ".join(clean_field(p.query, 200) for p in parts)
        header = (
            f"Web search for {clean_field(query, 300)!r} (searched as: {searched}): {len(results)} results."
        )
        if not results:
            header += " Nothing was found; say so rather than guessing."
        notes = [f"No results for {clean_field(p.query, 200)!r}: {p.problem}." for p in parts if p.problem]
        return render_results(header, results, snippet_chars=_SNIPPET_CHARS, notes=notes)

    async def _fetch(self, query: str, topic: Topic) -> _Part:
        from tavily import AsyncTavilyClient

        try:
            async with AsyncTavilyClient(api_key=self._api_key, api_base_url=self._base_url) as client:
                body = await client.search(
                    query,
                    search_depth="basic",
                    topic=topic,
                    max_results=self._config.max_results,
                    timeout=self._config.timeout_s,
                )
        except Exception as error:  # noqa: BLE001 - every failure becomes a sentence for the model
            problem = describe_failure(error, self._config)
            logger.info("web search for %r failed: %s (%s)", query, problem, type(error).__name__)
            return _Part(query, problem=problem)
        return _Part(query, tuple(_results_of(body)))

    def _limit_sentence(self) -> str:
        limit = self._credits.limit
        return (
            f"the daily web search limit ({limit} searches) is used up; it resets at midnight. "
            "No search was made: answer from what you know and say it could not be checked online"
        )


def describe_failure(error: BaseException, config: WebSearchConfig) -> str:
    """A plain sentence for a failed Tavily request (never the key, never a traceback)."""
    import httpx
    from tavily import errors

    if isinstance(error, errors.UsageLimitExceededError):
        return RATE_LIMITED
    if isinstance(error, errors.InvalidAPIKeyError | errors.MissingAPIKeyError):
        return f"the web search service rejected the API key; check {config.api_key_env}"
    if isinstance(error, errors.ForbiddenError):
        return "the web search service refused the request (the plan's usage limit may be reached)"
    if isinstance(error, errors.BadRequestError):
        return f"the web search service rejected the query ({clean_field(str(error), 200) or 'bad request'})"
    if isinstance(error, errors.TimeoutError | httpx.TimeoutException):
        return f"the web search service did not answer within {config.timeout_s:g} s; try later"
    if isinstance(error, httpx.HTTPStatusError):
        return f"the web search service failed (HTTP {error.response.status_code}); try later"
    if isinstance(error, httpx.TransportError | OSError):
        return "cannot reach the web search service (is the network down?); try later"
    return f"the web search failed ({type(error).__name__})"


def merge_results(groups: Iterable[Iterable[WebResult]]) -> list[WebResult]:
    """The results of every group in order, each page (by canonical URL) once."""
    seen: set[str] = set()
    merged: list[WebResult] = []
    for group in groups:
        for result in group:
            key = canonical_url(result.url)
            if key in seen:
                continue
            seen.add(key)
            merged.append(result)
    return merged


def _results_of(body: Any) -> list[WebResult]:
    """Tavily's `results` as `WebResult`s; entries without an http(s) URL are dropped."""
    raw = body.get("results") if isinstance(body, dict) else None
    out: list[WebResult] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            continue
        url = str(item.get("url") or "").strip()
        if not url.lower().startswith(("http://", "https://")):
            continue
        out.append(WebResult(str(item.get("title") or ""), url, str(item.get("content") or "")))
    return out


def _as_json(result: WebResult) -> dict[str, str]:
    return {"title": result.title, "url": result.url, "snippet": result.snippet}


def _from_json(value: dict[str, Any]) -> WebResult:
    return WebResult(str(value.get("title", "")), str(value.get("url", "")), str(value.get("snippet", "")))
