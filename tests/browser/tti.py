"""GUI time-to-interactive: page load → chat box usable, in a real browser, beside a static page's load.

Each run opens a fresh browser context (nothing cached), goes to the page and waits until the message box
is visible and editable; the figure is the page's own `performance.now()` at that moment (ms since its
navigation started). The baseline is a static HTML page holding only a textarea, served from 127.0.0.1 in
the same run, so the ratio says what the GUI costs over the browser's own floor.

    .venv/bin/python -m tests.browser.tti --runs 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

STATIC = "<!doctype html><title>static</title><textarea id=msg></textarea>"


def _time_to_box(browser: Any, url: str, selector: str) -> float:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(url, wait_until="commit")
        page.locator(selector).wait_for(state="visible", timeout=60_000)
        page.wait_for_function(f"() => !document.querySelector('{selector}').disabled")
        return float(page.evaluate("performance.now()"))
    finally:
        context.close()


def _summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 1),
        "min": round(ordered[0], 1),
        "max": round(ordered[-1], 1),
    }


class QuietHandler(SimpleHTTPRequestHandler):
    """Serves the static page without logging each request."""

    def log_message(self, format: str, *args: Any) -> None:
        pass


def measure(browser: Any, gui_url: str, folder: Path, runs: int = 5) -> dict[str, Any]:
    """Median (and range) of the GUI's and the static page's time to a usable text box, and their ratio."""
    (folder / "static.html").write_text(STATIC)
    handler = partial(QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        static_url = f"http://127.0.0.1:{server.server_address[1]}/static.html"
        static, gui = [], []
        for _ in range(runs):  # interleaved, so a busy moment of the machine hits both alike
            static.append(_time_to_box(browser, static_url, "#msg"))
            gui.append(_time_to_box(browser, gui_url, "#msg textarea"))
    finally:
        server.shutdown()
        server.server_close()
    result: dict[str, Any] = {"runs": runs, "gui_ms": _summary(gui), "static_ms": _summary(static)}
    result["ratio_p50"] = round(result["gui_ms"]["p50"] / max(result["static_ms"]["p50"], 0.1), 1)
    return result


def main() -> None:
    """Serve the GUI over the test back end (tests/browser/gui_stack.py), measure, print one JSON object."""
    from playwright.sync_api import sync_playwright

    from tests.browser.conftest import CHROMIUM, CHROMIUM_ARGS
    from tests.browser.gui_stack import build_stack
    from ui.gui.app import build_app, launch

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        data.mkdir()
        stack = build_stack(data)
        app = build_app(stack.orchestrator, backends=stack.backends)
        url = launch(app, "127.0.0.1", _port(), None, block=False, quiet=True, blocked_paths=[data])
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
                try:
                    print(json.dumps(measure(browser, url, Path(tmp), args.runs)))
                finally:
                    browser.close()
        finally:
            app.close()
            stack.close()


def _port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


if __name__ == "__main__":
    main()
