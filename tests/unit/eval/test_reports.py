"""Reports of `eval locomo`: the per-category table in markdown and HTML, a bar per series and category,
and model output escaped (an answer is untrusted text)."""

from __future__ import annotations

from pathlib import Path

from eval.benchmarks.locomo import LocomoQuestion
from eval.locomo_eval import Asked, report
from eval.reports import EVAL_FOLDER, write_locomo_report


def result() -> dict[str, object]:
    cello = LocomoQuestion("What does Dana play?", "cello", ("D1:1",), 4)
    when = LocomoQuestion("When did Dana adopt Pixel?", "16 April 2024", ("D2:4",), 2)
    asked = [
        Asked(cello, "Dana", "You told me: you play the cello.", 120.0, 1.0, 300, span="the cello"),
        Asked(when, "Dana", "<script>alert('x')</script> | not sure", 900.0, 0.0, 280),
    ]
    asked[0].baseline = ("cello", "You told me: cello.")
    return report(asked, model="local", seed=19, conversations=1)


def test_a_report_is_written_as_markdown_and_html_in_the_eval_folder(tmp_path: Path) -> None:
    markdown, page = write_locomo_report(result(), tmp_path, now=1_700_000_000.0)
    assert markdown.parent == page.parent == tmp_path / EVAL_FOLDER
    text = markdown.read_text()
    # the reply scores its whole wording; the answer proper and bench answers' span the value alone
    assert "| single-hop (1) | 0.286 / 1.000 | 1.000 / 1.000 | 1.000 / 1.000 | 0.400 / 1.000 |" in text
    assert "| overall (2) | 0.143 / 0.500 |" in text
    assert "\\| not sure" in text and "<script>" not in text  # a pipe or a tag in an answer stays text
    html = page.read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.count("<rect") >= 3 * 3 and "<svg" in html  # a bar per series for overall and each category
