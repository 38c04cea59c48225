"""LoginThrottle: wrong passwords from one address lock it out for a doubling while; the right one clears."""

from __future__ import annotations

from collections.abc import MutableMapping
from typing import Any

import httpx
import pytest

from ui.shared.security import LoginThrottle

PASSWORD = "right horse battery"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def login_app(scope: MutableMapping[str, Any], receive: Any, send: Any) -> None:
    """A stand-in for Gradio's /login: 200 for the right password, 400 otherwise; counts its checks."""
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    login_app.checks += 1  # type: ignore[attr-defined]
    status = 200 if body == f"password={PASSWORD}".encode() else 400
    await send({"type": "http.response.start", "status": status, "headers": []})
    await send({"type": "http.response.body", "body": b""})


def client(throttle: LoginThrottle, address: str = "203.0.113.7") -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=throttle, client=(address, 5555))
    return httpx.AsyncClient(transport=transport, base_url="http://daemon")


@pytest.fixture
def clock() -> Clock:
    login_app.checks = 0  # type: ignore[attr-defined]
    return Clock()


async def test_five_wrong_passwords_lock_the_address_out_before_any_password_is_checked(clock: Clock) -> None:
    throttle = LoginThrottle(login_app, clock=clock)
    async with client(throttle) as web:
        for _ in range(5):
            assert (await web.post("/login", content="password=guess")).status_code == 400
        refused = await web.post("/login/", content=f"password={PASSWORD}")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "30"
        assert "try again in 30 s" in refused.json()["detail"]
        assert login_app.checks == 5  # type: ignore[attr-defined] # the sixth never reached the password
        async with client(throttle, address="198.51.100.2") as other:  # another address is not locked
            assert (await other.post("/login", content=f"password={PASSWORD}")).status_code == 200


async def test_each_further_failure_doubles_the_lock_up_to_its_longest(clock: Clock) -> None:
    throttle = LoginThrottle(login_app, clock=clock, longest_s=100.0)
    waits = []
    async with client(throttle) as web:
        for _ in range(5):
            await web.post("/login", content="password=guess")
        for _ in range(4):
            clock.now += float((await web.post("/login", content="x")).headers["retry-after"])
            assert (await web.post("/login", content="password=guess")).status_code == 400  # the lock ended
            waits.append(int((await web.post("/login", content="x")).headers["retry-after"]))
    assert waits == [60, 100, 100, 100]


async def test_the_right_password_after_a_lock_ends_clears_the_address(clock: Clock) -> None:
    throttle = LoginThrottle(login_app, clock=clock)
    async with client(throttle) as web:
        for _ in range(5):
            await web.post("/login", content="password=guess")
        clock.now += 30
        assert (await web.post("/login", content=f"password={PASSWORD}")).status_code == 200
        for _ in range(4):  # the count starts again from zero
            assert (await web.post("/login", content="password=guess")).status_code == 400
        assert (await web.post("/login", content=f"password={PASSWORD}")).status_code == 200


async def test_other_routes_and_methods_pass_untouched(clock: Clock) -> None:
    throttle = LoginThrottle(login_app, allowed=1, clock=clock)
    async with client(throttle) as web:
        await web.post("/login", content="password=guess")
        assert (await web.post("/login", content="password=guess")).status_code == 429
        assert (await web.post("/gradio_api/queue/join", content="x")).status_code == 400  # the app's answer
        assert (await web.get("/login")).status_code == 400


async def test_a_flood_of_addresses_is_forgotten_oldest_first(clock: Clock) -> None:
    throttle = LoginThrottle(login_app, allowed=1, remembered=3, clock=clock)
    for number in range(5):
        async with client(throttle, address=f"192.0.2.{number}") as web:
            await web.post("/login", content="password=guess")
    async with client(throttle, address="192.0.2.0") as first:  # forgotten: checked again
        assert (await first.post("/login", content=f"password={PASSWORD}")).status_code == 200
    async with client(throttle, address="192.0.2.4") as last:  # remembered: still locked
        assert (await last.post("/login", content=f"password={PASSWORD}")).status_code == 429
