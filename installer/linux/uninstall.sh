#!/usr/bin/env bash
# Remove the Daemon program installed by install.sh. Your data stays, unless you pass --purge:
#
#   ~/.local/lib/daemon/uninstall.sh            # the program, the menu entry, the icon, the `daemon` link
#   ~/.local/lib/daemon/uninstall.sh --purge    # and the data folder (conversations, memory) as well
set -euo pipefail

lib="$(cd "$(dirname "$0")" && pwd)"
prefix="$(cd "$lib/../.." && pwd)"
data="${DAEMON_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/daemon}"  # installer/pyi_rth_daemon.py

if [ "$(readlink "$prefix/bin/daemon" 2>/dev/null)" = "$lib/Daemon/Daemon" ]; then
    rm -f "$prefix/bin/daemon"
fi
rm -f "$prefix/share/applications/daemon.desktop" "$prefix/share/icons/hicolor/scalable/apps/daemon.svg"
rm -rf "$lib"
echo "Removed the Daemon program from $lib"

if [ "${1:-}" = "--purge" ]; then
    rm -rf "$data"
    echo "Deleted your Daemon data in $data"
else
    echo "Your data is kept in $data (delete it with: rm -rf '$data')"
fi
