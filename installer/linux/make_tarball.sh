#!/usr/bin/env bash
# Pack the one-folder build (installer/build.py) with the install scripts into a tarball:
#
#   installer/linux/make_tarball.sh [DIST_DIR] [OUT_DIR]   # defaults: dist, dist
#   -> OUT_DIR/daemon-VERSION-linux-ARCH.tar.gz, unpacked by the user, then ./install.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
dist="${1:-$root/dist}"
out="${2:-$root/dist}"
if [ ! -x "$dist/Daemon/Daemon" ]; then
    echo "error: no build at $dist/Daemon; run installer/build.py first" >&2
    exit 2
fi
version="$("$dist/Daemon/Daemon" --version | awk '{print $NF}')"
name="daemon-$version-linux-$(uname -m)"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp -a "$dist/Daemon" "$stage/$name/Daemon"
cp -a "$here/install.sh" "$here/uninstall.sh" "$here/daemon-gui" "$here/daemon.desktop.in" "$here/daemon.svg" "$stage/$name/"
mkdir -p "$out"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "$out/$name.tar.gz"
