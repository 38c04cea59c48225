"""The user's time zone, as a named zone so that daylight-saving changes are followed.

A fixed offset (what `datetime.now().astimezone()` gives) would keep "every Monday at 8" at 8 only until the
clocks change. In order: `user.timezone` in the config, the `TZ` variable, the zone `/etc/localtime` links
to (Linux, macOS), and UTC when none names one (the caller shows which was used).
"""

from __future__ import annotations

import os
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from core.errors import ConfigError

_LOCALTIME = Path("/etc/localtime")


def user_zone(configured: str, env: dict[str, str], *, localtime: Path = _LOCALTIME) -> ZoneInfo:
    """The zone to read and show times in; a configured name that is not a zone is a `ConfigError`."""
    if configured.strip():
        try:
            return ZoneInfo(configured.strip())
        except (ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"user.timezone {configured!r} is not a time zone; use an IANA name such as 'Europe/Paris'"
            ) from None
    for name in (env.get("TZ", "").lstrip(":"), _linked_zone(localtime)):
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def _linked_zone(localtime: Path) -> str:
    """ "Europe/Paris" from /etc/localtime -> /usr/share/zoneinfo/Europe/Paris; "" when it is no link."""
    try:
        target = os.readlink(localtime)
    except OSError:
        return ""
    marker = "zoneinfo/"
    return target.split(marker, 1)[1] if marker in target else ""
