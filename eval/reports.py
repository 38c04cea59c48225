"""Reports of an evaluation run, in markdown and in HTML with plots, written to the data dir's `eval` folder.

One report per run of `eval locomo --report`: the per-category table (end to end, the answer proper, and
`bench answers`' method on the same questions), the run's retrieval recall, memory tokens and latency, and
every question with its gold and answer. The HTML page draws the table as grouped bars (inline SVG: no
plotting library, no script, nothing fetched) and escapes every text it shows: answers are model output.
"""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EVAL_FOLDER = "eval"
_STYLE = (
    "body{font-family:sans-serif;max-width:60rem;margin:2rem auto}"
    "td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}"
)
_SERIES = (
    ("end to end", "#3b6ea8"),
    ("answer proper", "#7aa6d6"),
    ("bench answers: span", "#c2803a"),
)


def write_locomo_report(
    result: dict[str, Any], data_dir: Path, *, now: float | None = None
) -> tuple[Path, Path]:
    """Write `result` (of `eval locomo`) as `eval/locomo-<time>.md` and `.html` in `data_dir`; their paths."""
    folder = data_dir / EVAL_FOLDER
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    markdown, page = folder / f"locomo-{stamp}.md", folder / f"locomo-{stamp}.html"
    markdown.write_text(locomo_markdown(result), encoding="utf-8")
    page.write_text(locomo_html(result), encoding="utf-8")
    return markdown, page


def _table_rows(result: dict[str, Any]) -> list[tuple[str, int, list[dict[str, Any]]]]:
    """(category, n, [end to end, answer proper, bench span, bench reply]) for overall and each category."""
    proper, bench = result["answer_proper"], result["bench_answers"]
    names = ["overall", *result["categories"]]

    def pick(blocks: dict[str, Any], name: str) -> dict[str, Any]:
        return blocks["overall"] if name == "overall" else blocks["categories"][name]

    rows = []
    for name in names:
        own = result["overall"] if name == "overall" else result["categories"][name]
        rows.append(
            (name, own["n"], [own, pick(proper, name), pick(bench["span"], name), pick(bench["reply"], name)])
        )
    return rows


def locomo_markdown(result: dict[str, Any]) -> str:
    """The report as markdown."""
    lines = [
        "# LoCoMo answered end to end",
        "",
        f"{result['overall']['n']} questions from {result['conversations']} conversation(s), answered by "
        f"`{result['model']}` through the orchestrator; question sample seed {result['seed']}.",
        "",
        "| category (n) | end to end: reply | answer proper | bench answers: span | bench answers: reply |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, n, blocks in _table_rows(result):
        cells = " | ".join(f"{b['f1']:.3f} / {b['contains_gold']:.3f}" for b in blocks)
        lines.append(f"| {name} ({n}) | {cells} |")
    latency = result["latency_ms"]
    lines += [
        "",
        "Each cell is token F1 / contains-gold.",
        "",
        f"- retrieval recall (evidence turns among the prompt's items): {result['retrieval_recall']:.3f}",
        f"- memory tokens per turn: {result['memory_tokens_per_turn']:.0f}",
        f"- turn latency: p50 {latency['p50']:.0f} ms, p95 {latency['p95']:.0f} ms",
        f"- failed turns: {result['failed']}",
        "",
        "## Questions",
        "",
        "| category | question | gold | answer |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['category']} | {_cell(r['question'])} | {_cell(r['gold'])} | {_cell(r['answer'])} |"
        for r in result["rows"]
    ]
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    # escaped too: a markdown viewer may render HTML, and an answer is model output
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")[:300]


def locomo_html(result: dict[str, Any]) -> str:
    """The report as one self-contained HTML page: the table, a bar chart of it, and the questions."""
    rows = _table_rows(result)
    head = "".join(
        f"<th>{html.escape(h)}</th>"
        for h in (
            "category (n)",
            "end to end: reply",
            "answer proper",
            "bench answers: span",
            "bench answers: reply",
        )
    )
    body = "".join(
        f"<tr><td>{html.escape(name)} ({n})</td>"
        + "".join(f"<td>{b['f1']:.3f} / {b['contains_gold']:.3f}</td>" for b in blocks)
        + "</tr>"
        for name, n, blocks in rows
    )
    questions = "".join(
        "<tr>"
        + "".join(f"<td>{html.escape(str(r[k]))}</td>" for k in ("category", "question", "gold", "answer"))
        + "</tr>"
        for r in result["rows"]
    )
    latency = result["latency_ms"]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>LoCoMo answered end to end</title>
<style>{_STYLE}</style>
</head><body>
<h1>LoCoMo answered end to end</h1>
<p>{result["overall"]["n"]} questions from {result["conversations"]} conversation(s), answered by
<code>{html.escape(str(result["model"]))}</code> through the orchestrator; seed {result["seed"]}.
Cells are token F1 / contains-gold.</p>
<table><tr>{head}</tr>{body}</table>
<h2>Contains-gold per category</h2>
{bar_chart([(name, [b["contains_gold"] for b in blocks[:3]]) for name, _, blocks in rows])}
<p>Retrieval recall {result["retrieval_recall"]:.3f};
memory tokens per turn {result["memory_tokens_per_turn"]:.0f};
turn latency p50 {latency["p50"]:.0f} ms, p95 {latency["p95"]:.0f} ms;
failed turns {result["failed"]}.</p>
<h2>Questions</h2>
<table><tr><th>category</th><th>question</th><th>gold</th><th>answer</th></tr>{questions}</table>
</body></html>
"""


def bar_chart(groups: Sequence[tuple[str, Sequence[float]]], *, height: int = 180) -> str:
    """Grouped bars (values 0-1), one group per label and one bar per `_SERIES`, as inline SVG."""
    bar, gap, left = 18, 26, 40
    width = left + len(groups) * (len(_SERIES) * bar + gap) + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height + 60}" role="img">']
    for tick in (0.0, 0.5, 1.0):
        y = 10 + height * (1 - tick)
        parts.append(f'<line x1="{left}" x2="{width}" y1="{y}" y2="{y}" stroke="#ccc"/>')
        parts.append(f'<text x="4" y="{y + 4}" font-size="11">{tick:.1f}</text>')
    for g, (label, values) in enumerate(groups):
        x0 = left + g * (len(_SERIES) * bar + gap)
        for s, value in enumerate(values[: len(_SERIES)]):
            h = max(0.0, min(1.0, value)) * height
            color = _SERIES[s][1]
            parts.append(
                f'<rect x="{x0 + s * bar}" y="{10 + height - h:.1f}" width="{bar - 2}" height="{h:.1f}"'
                f' fill="{color}">'
                f"<title>{html.escape(_SERIES[s][0])}: {value:.3f}</title></rect>"
            )
        parts.append(f'<text x="{x0}" y="{height + 28}" font-size="11">{html.escape(label)}</text>')
    legend = "".join(
        f'<rect x="{left + i * 150}" y="{height + 40}" width="10" height="10" fill="{color}"/>'
        f'<text x="{left + i * 150 + 14}" y="{height + 49}" font-size="11">{html.escape(name)}</text>'
        for i, (name, color) in enumerate(_SERIES)
    )
    return "".join(parts) + legend + "</svg>"
