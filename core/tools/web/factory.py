"""Build `web_search` and `wolfram_alpha` from config and the environment, or say why each is off.

The composition root composes: `web_tools(config.tools, os.environ, data_dir, nlp=..., side_model=...)`. Keys
are read from the environment by the names the config gives (`api_key_env`, `app_id_env`); a missing key
yields an `UnavailableTool` whose reason names the variable ("needs TAVILY_API_KEY"). The `*_base_url_env`
variables point a tool at another endpoint (tests use local fake servers).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

from core.config_tools import ToolsConfig, WebSearchConfig, WolframConfig
from core.providers.base import ChatProvider
from core.tools.base import Tool
from core.tools.catalog import UnavailableTool
from core.tools.web.decompose import QueryDecomposer
from core.tools.web.search import Topic, WebSearch
from core.tools.web.store import CACHE_FILE, CREDITS_FILE, DailyCredits, SearchCache
from core.tools.web.wolfram import DEFAULT_BASE_URL, WolframAlpha

# Offered to small models only when the message asks for current or online information.
# The tools take their names from their functions below; the agent's gate withdraws both while the user
# is recalling something they said (a web answer is not a memory).
WEB_SEARCH = "web_search"
WOLFRAM_ALPHA = "wolfram_alpha"
WEB_TOOL_NAMES = frozenset({WEB_SEARCH, WOLFRAM_ALPHA})
WEB_HINT = (
    r"\b(search|google|look(ed|ing)? (it |this |that |them )?up|online|on the (web|internet|net)|internet|"
    r"web ?site|web|url|links?|sources?|latest|newest|current(ly)?|up[- ]to[- ]date|right now|nowadays|"
    r"today'?s|this (week|month|year)|news|headlines?|recent(ly)?|new release|released?|announced?|"
    r"weather|forecast|price|prices|stock|shares|exchange rate|score|who won|election|trending|"
    r"20[2-9]\d)\b"
)
# Computation and data Wolfram|Alpha answers: math, units, science and quantitative facts.
WOLFRAM_HINT = (
    r"\d\s*[-+*/^=]\s*\d|\b(wolfram|integral|integrate|derivative|differentiate|solve|equation|"
    r"simplify|factori[sz]e|limit of|plot|matrix|eigen\w*|convert|conversion|how many \w+ (in|are in)|"
    r"units?|distance (from|between)|population of|calories|molar|mass of|boiling point|melting point|"
    r"speed of|density of|half[- ]life|prime|square root|logarithm)\b"
)
WEB_SEARCH_DESCRIPTION = (
    "Search the web for current or online information (news, prices, releases, events, facts that "
    "change). Returns numbered results [WEB_n] with title, URL and snippet; cite them as [WEB_n]."
)
WOLFRAM_DESCRIPTION = (
    "Ask Wolfram|Alpha to compute or look up exact data: math (solve, integrate, simplify), unit "
    "conversions, science and quantitative facts about the world."
)
_SIDE_TIMEOUT_S = 4.0


def web_tools(
    tools: ToolsConfig,
    env: Mapping[str, str],
    data_dir: Path,
    *,
    nlp: Callable[[str], Any] | None = None,
    side_model: ChatProvider | None = None,
    side_timeout_s: float = _SIDE_TIMEOUT_S,
    clock: Callable[[], float] = time.time,
    today: Callable[[], date] = date.today,
) -> tuple[Tool | UnavailableTool, ...]:
    """`web_search` and `wolfram_alpha`, each a `Tool` or an `UnavailableTool` with the reason.

    `nlp` (a `core.nlp.SpacyPipeline`) and `side_model` (the fast model) split multi-part queries; both
    optional. `clock` (epoch seconds, for the cache TTL) and `today` (the local date, for the daily
    credit limit) are injectable for tests.
    """
    search_cfg = tools.web_search
    decomposer = QueryDecomposer(
        search_cfg.max_subqueries, nlp=nlp, side_model=side_model, side_timeout_s=side_timeout_s
    )
    return (
        _web_search(search_cfg, env, data_dir, decomposer, clock=clock, today=today, extra_s=side_timeout_s),
        _wolfram(tools.wolfram_alpha, env),
    )


def _web_search(
    cfg: WebSearchConfig,
    env: Mapping[str, str],
    data_dir: Path,
    decomposer: QueryDecomposer,
    *,
    clock: Callable[[], float],
    today: Callable[[], date],
    extra_s: float,
) -> Tool | UnavailableTool:
    key = env.get(cfg.api_key_env, "").strip()
    base_url = env.get(cfg.base_url_env, "").strip() or None
    reason = _missing(key, cfg.api_key_env, base_url, cfg.base_url_env)
    if reason is None and cfg.daily_credit_limit == 0:
        reason = "off: tools.web_search.daily_credit_limit is 0 in config.yaml"
    if reason is not None:
        return UnavailableTool(WEB_SEARCH, WEB_SEARCH_DESCRIPTION, reason)
    engine = WebSearch(
        cfg,
        api_key=key,
        base_url=base_url,
        cache=SearchCache(data_dir / CACHE_FILE, cfg.cache_ttl_s, clock),
        credits=DailyCredits(data_dir / CREDITS_FILE, cfg.daily_credit_limit, today),
        decomposer=decomposer,
    )

    async def web_search(query: str, topic: Topic = "general") -> str:
        """Search the web.

        Args:
            query: what to look up, in plain words; a question with several parts (a comparison, a
                list) is split into separate searches automatically
            topic: "news" for recent events and headlines, otherwise "general"
        """
        return await engine.search(query, topic)

    # The sub-queries run concurrently: one request timeout, plus the decomposition call, plus slack.
    timeout = cfg.timeout_s + extra_s + 5.0
    return Tool.from_function(
        web_search, description=WEB_SEARCH_DESCRIPTION, timeout_s=timeout, use_when=WEB_HINT
    )


def _wolfram(cfg: WolframConfig, env: Mapping[str, str]) -> Tool | UnavailableTool:
    app_id = env.get(cfg.app_id_env, "").strip()
    base_url = env.get(cfg.base_url_env, "").strip() or None
    reason = _missing(app_id, cfg.app_id_env, base_url, cfg.base_url_env)
    if reason is not None:
        return UnavailableTool(WOLFRAM_ALPHA, WOLFRAM_DESCRIPTION, reason)
    engine = WolframAlpha(cfg, app_id=app_id, base_url=base_url or DEFAULT_BASE_URL)

    async def wolfram_alpha(query: str) -> str:
        """Ask Wolfram|Alpha.

        Args:
            query: a short math expression or fact question in English, e.g. "integrate x^2 sin x",
                "population of France", "convert 30 mph to km/h"
        """
        return await engine.ask(query)

    return Tool.from_function(
        wolfram_alpha, description=WOLFRAM_DESCRIPTION, timeout_s=cfg.timeout_s + 5.0, use_when=WOLFRAM_HINT
    )


def _missing(secret: str, secret_env: str, base_url: str | None, base_env: str) -> str | None:
    """Why a tool cannot run: its key is not set, or its endpoint override is not an http(s) URL."""
    if not secret:
        return f"needs {secret_env}"
    if base_url is not None and not base_url.lower().startswith(("http://", "https://")):
        return f"{base_env} must be an http:// or https:// URL"
    return None
