"""Tools that reach outside: `web_search` (Tavily) and `wolfram_alpha` (the Wolfram|Alpha LLM API).

`web_tools` builds both (or says why each is off); see `factory.py`.
"""

from core.tools.web.factory import web_tools

__all__ = ["web_tools"]
