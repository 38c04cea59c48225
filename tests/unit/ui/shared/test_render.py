"""Pure formatting shared by the CLI and the GUI."""

from __future__ import annotations

import pytest

from core.types import ToolCall, Usage
from ui.shared import render


def test_tool_call_is_one_compact_line() -> None:
    call = ToolCall("c1", "search", {"query": "cats and dogs", "k": 5, "filters": {"a": [1, 2]}})
    assert render.format_tool_call(call) == "search(query='cats and dogs', k=5, filters={\"a\": [1, 2]})"
    long = ToolCall("c2", "write", {"text": "word\n" * 200, "b": 1, "c": 2, "d": 3})
    expected = "write(text='word word word word word word word word…', b=1, c=2, d=3)"
    assert render.format_tool_call(long) == expected
    line = render.format_tool_call(long, limit=30)
    assert len(line) == 30 and line.endswith("…") and "\n" not in line


def test_tool_call_without_arguments() -> None:
    assert render.format_tool_call(ToolCall("c", "now")) == "now()"


def test_tool_result_line() -> None:
    assert render.format_tool_result(True, "3 results\nfirst: x", 12.4) == "ok · 12 ms · 3 results first: x"
    assert render.format_tool_result(False, "") == "failed"
    assert len(render.format_tool_result(True, "y" * 500, limit=50)) < 70


def test_usage_line_leaves_out_empty_parts() -> None:
    usage = Usage(input_tokens=120, output_tokens=45, cost_usd=0.00123)
    line = render.format_usage(usage, model="gpt", elapsed_s=1.44)
    assert line == "gpt · 120 in / 45 out tokens · $0.0012 · 1.4 s"
    assert render.format_usage(Usage()) == ""
    assert render.format_usage(Usage(), model="local") == "local"


@pytest.mark.parametrize(
    ("reason", "expected"),
    [("answer", ""), ("cancelled", "Stopped."), ("weird", "Stopped (weird).")],
)
def test_exit_notice(reason: str, expected: str) -> None:
    assert render.exit_notice(reason) == expected


def test_budget_and_max_rounds_are_explained() -> None:
    assert "budget" in render.exit_notice("budget")
    assert "incomplete" in render.exit_notice("max_rounds")


def test_citations_are_numbered_with_best_label() -> None:
    text = render.render_citations(
        [{"title": "Doc A", "url": "https://a.example/x"}, {"collection": "facts", "id": "f1"}, {}]
    )
    assert text.splitlines() == ["[1] Doc A — https://a.example/x", "[2] facts", "[3] source"]
    assert render.render_citations([]) == ""


def test_markdown_images_and_html_cannot_fetch() -> None:
    text = 'See ![x](http://203.0.113.9/p.png?q=C) and <img src="http://203.0.113.9/q.png"> <svg/onload=1>'
    safe = render.neutralize_remote_media(text)
    assert "![" not in safe.replace("\\![", "")
    assert "<img" not in safe and "<svg" not in safe
    assert "&lt;img" in safe


def test_code_is_left_alone() -> None:
    text = "Use `<img>` like:\n```html\n<img src=x> ![a](b)\n```\nthen <b>bold</b>"
    safe = render.neutralize_remote_media(text)
    assert "`<img>`" in safe
    assert "```html\n<img src=x> ![a](b)\n```" in safe
    assert "&lt;b>bold&lt;/b>" in safe


def test_unclosed_fence_while_streaming_stays_code() -> None:
    assert render.neutralize_remote_media("```\n<div>") == "```\n<div>"


def test_plain_comparisons_survive() -> None:
    assert render.neutralize_remote_media("1 < 2 and a<=b") == "1 < 2 and a<=b"


def test_cited_memories_show_under_their_marker_with_the_cited_text() -> None:
    citations = [{"marker": "M2", "id": "fact_1", "text": "(2026-11-30)  Jo lives\nin Denver."}]
    assert render.render_citations(citations) == "[M2] (2026-11-30) Jo lives in Denver."
