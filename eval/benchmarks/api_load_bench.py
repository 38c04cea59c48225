"""`bench api`: many clients at once on the OpenAI-compatible API, beside one client alone, over real HTTP.

The API app is served by uvicorn on a free loopback port, in a thread of its own, over the whole app in a
temporary data dir, answered by the echo provider (no model's time hides the pipeline's). Each client is
an OpenAI-style client: it resends its whole conversation each time, names itself in the `user` field
(the API derives its session from that and the first message), and says a canary of its own in every
message ("code word C07-3"). After one warm-up turn (the models load on the first), one client sends its
turns alone (the baseline), then `sessions` clients send theirs at once. Held, and reported: no request
fails, each reply carries its own canary and no other (no answer crosses to another client), and the
journal holds each client's messages in exactly one session of its own, in order, each once and answered.
The figures are request latency p50/p95, concurrent beside alone (ratios). The API runs at most four turns
at once (`ui/api/server.py`); the others wait for a slot, so the concurrent latency is mostly that wait.
"""

from __future__ import annotations

import asyncio
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from core.metrics import percentiles
from core.ports import TurnRecord

CANARY = re.compile(r"\bC\d{2}-\d+\b")
History = Callable[[], Sequence[TurnRecord]]  # every turn of the journal


def run_api_load_benchmark(
    app: Any, token: str, history: History, *, sessions: int = 20, turns: int = 5
) -> dict[str, Any]:
    """Serve `app`, run the clients, check what they got and what the journal kept."""
    with _Served(app) as base_url:
        asyncio.run(_warm_up(base_url, token))  # the models load on the first turn: not a latency
        alone, alone_failures = asyncio.run(_clients(base_url, token, [0], turns))
        together, failures = asyncio.run(_clients(base_url, token, list(range(1, sessions + 1)), turns))
    crossed = sorted(set(alone_failures + failures))
    mixed = _journal_problems(history(), sessions + 1, turns)
    alone_ms, together_ms = percentiles(alone), percentiles(together)
    return {
        "sessions": sessions,
        "turns_per_session": turns,
        "requests": len(alone) + len(together) + len(crossed),
        "failures": crossed,
        "journal_problems": mixed,
        "isolated": not crossed and not mixed,
        "alone_ms": alone_ms,
        "concurrent_ms": together_ms,
        "ratio_p50": round(together_ms["p50"] / max(alone_ms["p50"], 1e-9), 2),
        "ratio_p95": round(together_ms["p95"] / max(alone_ms["p95"], 1e-9), 2),
    }


def api_load_headline(result: dict[str, Any]) -> str:
    """The benchmark as a small table."""
    alone, together = result["alone_ms"], result["concurrent_ms"]
    held = "yes" if result["isolated"] else f"NO: {result['failures'][:3]} {result['journal_problems'][:3]}"
    return "\n".join(
        [
            f"{result['sessions']} clients × {result['turns_per_session']} turns at once, echo model, HTTP",
            "requests            p50 ms    p95 ms",
            f"one client alone {alone['p50']:>9.1f} {alone['p95']:>9.1f}   (baseline)",
            f"{result['sessions']:>2} at once       {together['p50']:>9.1f} {together['p95']:>9.1f}   "
            f"ratio p50 {result['ratio_p50']:.2f}, p95 {result['ratio_p95']:.2f}",
            f"failed requests: {len(result['failures'])}; each client's turns its own, once, in order: "
            f"{held}",
        ]
    )


async def _warm_up(base_url: str, token: str) -> None:
    import httpx

    body = {"model": "daemon", "messages": [{"role": "user", "content": "Hello."}], "user": "warm-up"}
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=300) as web:
        reply = await web.post("/v1/chat/completions", json=body)
        reply.raise_for_status()


def _message(client: int, turn: int) -> str:
    return f"Client {client}, message {turn}: my code word is C{client:02d}-{turn}."


async def _clients(
    base_url: str, token: str, clients: list[int], turns: int
) -> tuple[list[float], list[str]]:
    """Run `clients` at once, each sending `turns` messages in sequence; (latencies in ms, failures)."""
    import httpx

    latencies: list[float] = []
    failures: list[str] = []
    limits = httpx.Limits(max_connections=len(clients) + 1)
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base_url, headers=headers, limits=limits, timeout=300) as web:

        async def one(client: int) -> None:
            conversation: list[dict[str, str]] = []
            for turn in range(1, turns + 1):
                conversation.append({"role": "user", "content": _message(client, turn)})
                body = {"model": "daemon", "messages": conversation, "user": f"client-{client}"}
                started = time.perf_counter()
                try:
                    reply = await web.post("/v1/chat/completions", json=body)
                except httpx.HTTPError as error:
                    failures.append(f"client {client} turn {turn}: {type(error).__name__}")
                    return
                latencies.append((time.perf_counter() - started) * 1000)
                if reply.status_code != 200:
                    failures.append(f"client {client} turn {turn}: HTTP {reply.status_code}")
                    return
                answer = reply.json()["choices"][0]["message"]["content"]
                if set(CANARY.findall(answer)) != {f"C{client:02d}-{turn}"}:
                    failures.append(f"client {client} turn {turn}: another client's reply")
                conversation.append({"role": "assistant", "content": answer})

        await asyncio.gather(*(one(client) for client in clients))
    return latencies, failures


def _journal_problems(turns: Sequence[TurnRecord], clients: int, per_client: int) -> list[str]:
    """What the journal got wrong: a session holding two clients' messages, a client in two sessions, a
    message missing, doubled, out of order or unanswered."""
    problems: list[str] = []
    by_session: dict[str, list[TurnRecord]] = {}
    for turn in turns:
        by_session.setdefault(turn.session_id, []).append(turn)
    seen: dict[int, str] = {}
    for session, held in by_session.items():
        owners = {int(c[1:3]) for t in held for c in CANARY.findall(t.user)}
        if not owners:  # the warm-up's
            continue
        if len(owners) != 1:
            problems.append(f"session {session} holds the messages of clients {sorted(owners)}")
            continue
        client = owners.pop()
        if client in seen:
            problems.append(f"client {client} is in two sessions")
        seen[client] = session
        said = [t.user for t in sorted(held, key=lambda t: t.seq)]
        if said != [_message(client, n) for n in range(1, per_client + 1)]:
            numbers = [int(c.split("-")[1]) for text in said for c in CANARY.findall(text)]
            problems.append(f"client {client}'s session holds its messages {numbers}, not 1 to {per_client}")
        if any(t.status != "complete" for t in held):
            problems.append(f"client {client} has an unanswered turn")
    missing = sorted(set(range(clients)) - set(seen))
    if missing:
        problems.append(f"clients {missing} have no session")
    return problems


class _Served:
    """`app` served by uvicorn on a free loopback port in a thread; the base URL while inside."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(256)
        config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=lambda: asyncio.run(self._server.serve(sockets=[self._listener])), daemon=True
        )

    def __enter__(self) -> str:
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the API server did not start")
            time.sleep(0.05)
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)
        self._listener.close()
