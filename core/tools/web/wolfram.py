"""`wolfram_alpha`: the Wolfram|Alpha LLM API (computation, math, units, data about the world).

`GET {base}/api/v1/llm-api?input=…&appid=…&maxchars=…` answers plain text written for language models.
501 means Wolfram|Alpha could not interpret the input (the model should rephrase it: `ToolRetry`); 403 a
bad or missing app id. The answer comes from a third party, so it is returned as untrusted data with
images removed, like web results. The app id travels in the URL, so no error text quotes the URL.
"""

from __future__ import annotations

import logging

from core.config_tools import WolframConfig
from core.errors import ToolError, ToolRetry
from core.tools.web.render import clean_block, clean_field, wrap_untrusted

logger = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://www.wolframalpha.com"
_PATH = "/api/v1/llm-api"
_MAX_INPUT_CHARS = 500


class WolframAlpha:
    """Asks the Wolfram|Alpha LLM API at `base_url` with `app_id`."""

    def __init__(self, config: WolframConfig, *, app_id: str, base_url: str = DEFAULT_BASE_URL) -> None:
        self._config = config
        self._app_id = app_id
        self._url = base_url.rstrip("/") + _PATH

    async def ask(self, query: str) -> str:
        """Wolfram|Alpha's answer to `query`, marked as untrusted data; ToolError/ToolRetry on failure."""
        import httpx

        query = " ".join(query.split())
        if not query:
            raise ToolRetry("give the question or expression in `query`")
        if len(query) > _MAX_INPUT_CHARS:
            raise ToolRetry(
                f"shorten the input to at most {_MAX_INPUT_CHARS} characters (a query, not a text)"
            )
        params = {"input": query, "appid": self._app_id, "maxchars": str(self._config.max_chars)}
        try:
            async with httpx.AsyncClient(timeout=self._config.timeout_s) as client:
                response = await client.get(self._url, params=params)
        except httpx.TimeoutException:
            raise ToolError(
                f"Wolfram|Alpha did not answer within {self._config.timeout_s:g} s; try later"
            ) from None
        except httpx.TransportError as error:
            logger.info("Wolfram|Alpha unreachable: %s", type(error).__name__)
            raise ToolError("cannot reach Wolfram|Alpha (is the network down?); try later") from None
        return self._answer(query, response.status_code, response.text)

    def _answer(self, query: str, status: int, text: str) -> str:
        if status == 200:
            header = f"Wolfram|Alpha result for {clean_field(query, 300)!r}:"
            return wrap_untrusted(header, [clean_block(text, self._config.max_chars)])
        if status == 501:
            hint = clean_field(text, 400)
            raise ToolRetry(
                "Wolfram|Alpha could not interpret this input; rephrase it as a short math expression or "
                "fact query (e.g. 'integrate x^2 sin x', 'distance from Paris to Berlin')"
                + (f". It said: {hint}" if hint else "")
            )
        if status == 400:
            raise ToolRetry(
                "Wolfram|Alpha refused the input as malformed; send a short question or expression"
            )
        if status in (401, 403):
            raise ToolError(f"Wolfram|Alpha rejected the app id; check {self._config.app_id_env}")
        if status == 429:
            raise ToolError("Wolfram|Alpha is rate-limiting; try later")
        raise ToolError(f"Wolfram|Alpha failed (HTTP {status}); try later")
