"""`prompt TEXT [--budget N] [--session ID] [--json] [--explain]`: the prompt a message would get."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from core.orchestrator import Orchestrator
from core.prompt.assembly import AssembledPrompt
from ui.shared.payloads import print_json


def prompt_command(
    orchestrator: Orchestrator,
    text: str,
    *,
    session_id: str | None,
    budget: int | None,
    as_json: bool,
    explain: bool,
    keep: Callable[[AssembledPrompt], None] | None = None,
) -> int:
    """Assemble (no model call, nothing stored) and print the prompt or its anatomy; `keep` also receives
    it (`prompt --snapshot` saves it)."""
    prompt = asyncio.run(orchestrator.preview(text, session_id=session_id, budget=budget))
    if keep is not None:
        keep(prompt)
    return show_prompt(prompt, as_json=as_json, explain=explain)


def show_prompt(prompt: AssembledPrompt, *, as_json: bool, explain: bool) -> int:
    """Print a prompt: as JSON, its anatomy (`explain`), or exactly the messages it sends."""
    if as_json:
        print_json(prompt.as_dict(explain=explain))
    elif explain:
        print(explain_text(prompt))
    else:
        print("\n\n".join(f"[{m.role}]\n{m.content}" for m in prompt.messages()))  # exactly what is sent
    return 0


def explain_text(prompt: AssembledPrompt) -> str:
    """Why each section and item is there, what was dropped and why, and the token accounting."""
    lines = [f"budget {prompt.budget} tokens, used {prompt.total_tokens} ({prompt.counter})"]
    for section in prompt.sections:
        lines.append(f"\n{section.header}  [{section.key}, {section.tokens} tokens] {section.why}".rstrip())
        for item in section.items:
            head = " ".join(item.text.split())[:90]
            lines.append(f"  + {item.cite + ' ' if item.cite else ''}{head}  <- {item.why}".rstrip())
        for what, reason in section.dropped:
            lines.append(f"  - dropped {what[:60]!r}: {reason}")
    absent = ", ".join(f"{key} ({why})" for key, why in prompt.omitted.items() if why != "nothing to show")
    if absent:
        lines.append(f"\nleft out: {absent}")
    return "\n".join(lines)
