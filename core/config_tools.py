"""Configuration of the agent's optional tools. The values live only in config.yaml (no defaults here).

A tool whose key or program is missing is listed as unavailable with the reason ("needs TAVILY_API_KEY");
keys are read from the environment by name (`*_env`), never stored in the config.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from core.config_memory import _Frozen


class WebSearchConfig(_Frozen):
    """`web_search` through Tavily: sub-queries, a cache and a daily credit limit that survives restarts."""

    api_key_env: str
    base_url_env: str  # an override of the Tavily endpoint (tests point it at a local fake server)
    max_subqueries: int = Field(ge=1, le=4)
    max_results: int = Field(ge=1, le=20)  # per sub-query
    cache_ttl_s: float = Field(ge=0)
    daily_credit_limit: int = Field(ge=0)  # 0: no searches at all
    timeout_s: float = Field(gt=0)


class WolframConfig(_Frozen):
    """`wolfram_alpha` through the Wolfram|Alpha LLM API."""

    app_id_env: str
    base_url_env: str
    max_chars: int = Field(ge=100)
    timeout_s: float = Field(gt=0)


class CodeExecConfig(_Frozen):
    """`execute_python`: E2B when its key is set, else a local bubblewrap sandbox; none -> the tool is off."""

    sandbox: Literal["auto", "e2b", "bubblewrap", "off"]
    e2b_api_key_env: str
    cpu_seconds: int = Field(ge=1, le=600)
    memory_mb: int = Field(ge=32, le=8192)
    max_processes: int = Field(ge=1, le=256)
    max_output_chars: int = Field(ge=100)
    wall_timeout_s: float = Field(gt=0)


class GitStatsConfig(_Frozen):
    """`git_stats`: read-only questions about the repositories listed in `session.git_repos`."""

    timeout_s: float = Field(gt=0)
    max_output_chars: int = Field(ge=100)


class ToolsConfig(_Frozen):
    """Every optional tool's settings, and the tools whose side effects need the user's approval."""

    web_search: WebSearchConfig
    wolfram_alpha: WolframConfig
    execute_python: CodeExecConfig
    git_stats: GitStatsConfig
    max_calls_per_turn: dict[str, int]  # per-tool budget in one turn; tools not named get agent.max_rounds
