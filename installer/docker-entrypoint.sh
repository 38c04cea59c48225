#!/bin/sh
# The Docker image's entrypoint (PID 1 is tini, which forwards SIGTERM to this process and reaps the
# sandbox's and background jobs' children). It replaces itself with Daemon (`exec`), so `docker stop`'s
# SIGTERM reaches Daemon itself: it unwinds like Ctrl-C and the GUI's sessions run their session-end steps
# before the process exits (ui/shared/termination.py). A shell left in between would swallow the signal.
#
#   docker run … IMAGE                 -> the GUI (DAEMON_GUI__HOST=0.0.0.0 needs DAEMON_GUI_AUTH)
#   docker run … IMAGE ask "hi" --json -> any other command of main.py
set -eu

app_dir="${DAEMON_APP_DIR:-$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)}"
python="${DAEMON_PYTHON:-python}"

exec "$python" "$app_dir/main.py" "$@"
