#!/usr/bin/env bash
# Install the Daemon desktop build for this user (no root needed):
#
#   ./install.sh                   # into ~/.local (program in ~/.local/lib/daemon, `daemon` in ~/.local/bin)
#   ./install.sh --prefix DIR      # anywhere else (PREFIX=DIR works too)
#
# Installs the program folder, a `daemon` command, a menu entry and its icon. Your data is not here: it
# lives in ${XDG_DATA_HOME:-~/.local/share}/daemon and survives updates and uninstalling.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
prefix="${PREFIX:-$HOME/.local}"
if [ "${1:-}" = "--prefix" ]; then
    prefix="${2:?--prefix needs a directory}"
fi
if [ ! -x "$here/Daemon/Daemon" ]; then
    echo "error: $here/Daemon/Daemon is missing; run this script from the unpacked tarball" >&2
    exit 2
fi
mkdir -p "$prefix"
prefix="$(cd "$prefix" && pwd)"
lib="$prefix/lib/daemon"

# Copy next to the old version, then swap: an interrupted update leaves the old program working.
rm -rf "$lib.new" "$lib.old"
mkdir -p "$lib.new"
cp -a "$here/Daemon" "$lib.new/Daemon"
install -m 0755 "$here/daemon-gui" "$here/uninstall.sh" "$lib.new/"
if [ -d "$lib" ]; then mv "$lib" "$lib.old"; fi
mv "$lib.new" "$lib"
rm -rf "$lib.old"

mkdir -p "$prefix/bin" "$prefix/share/applications" "$prefix/share/icons/hicolor/scalable/apps"
ln -sfn "$lib/Daemon/Daemon" "$prefix/bin/daemon"
sed "s|@LIBDIR@|$lib|g" "$here/daemon.desktop.in" > "$prefix/share/applications/daemon.desktop"
install -m 0644 "$here/daemon.svg" "$prefix/share/icons/hicolor/scalable/apps/daemon.svg"
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q "$prefix/share/applications" 2>/dev/null || true
fi

echo "Installed Daemon in $lib"
echo "  menu: Daemon (opens the GUI in your browser)   terminal: $prefix/bin/daemon --help"
echo "  uninstall: $lib/uninstall.sh  (keeps your data; --purge deletes it too)"
