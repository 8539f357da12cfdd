# Sammy Desktop: the two commands a person needs are `make run` and `make test`.
#
#   make run      create .venv if missing, install the app into it, launch it
#   make test     install what the tests need (system packages as root, the venv with dev
#                 extras), start private services (PulseAudio, D-Bus + gnome-keyring, Xvfb),
#                 run ruff, mypy, lint-imports and pytest, stop the services
#   make check    the same checks without starting services (you provide them)
#   make package  build the PyInstaller one-folder app into dist/
#   make bench    run the benchmarks and print the performance table

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PYTEST_ARGS ?=
# Small packages under tests/ installed into the test venv (an entry-point tool plugin).
TEST_PLUGINS := $(wildcard tests/plugins/*/pyproject.toml)

.PHONY: run test check lint typecheck importlint pytest package bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(VENV)/.installed-run: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(TEST_PLUGINS) | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[dev]'
	$(foreach p,$(TEST_PLUGINS),$(BIN)/python -m pip install -q -e $(dir $(p)) &&) true
	touch $@ $(VENV)/.installed-run

run: $(VENV)/.installed-run
	scripts/system-deps.sh run
	$(BIN)/sammy-desktop $(ARGS)

test: $(VENV)/.installed-dev
	scripts/system-deps.sh test
	scripts/with-test-services.sh $(MAKE) --no-print-directory check

check: lint typecheck importlint pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

importlint: $(VENV)/.installed-dev
	$(BIN)/lint-imports

# A crash of pytest itself (a signal, not a failing test) is reported last, where CI's log
# shows it: which test ran, the crashing thread's stack (tests/helpers/crash_report.py).
CRASH_DIR := build/test-output/crash
pytest: $(VENV)/.installed-dev
	SAMMY_TEST_CRASH_DIR=$(CRASH_DIR) $(BIN)/pytest $(PYTEST_ARGS) \
		|| { status=$$?; scripts/report-test-crash.sh $(CRASH_DIR); exit $$status; }

package: $(VENV)/.installed-dev
	scripts/system-deps.sh run
	packaging/build.sh

# The benchmarks need the same private services as the tests (virtual mic and speaker, Xvfb).
# BENCH_ARGS: e.g. --smoke, --only voice,tools, --bundle, --strict (see bench/run.py --help).
BENCH_ARGS ?=
bench: $(VENV)/.installed-dev
	scripts/system-deps.sh test
	$(BIN)/python -m pip install -q -e '.[bench]'
	scripts/with-test-services.sh $(BIN)/python bench/run.py $(BENCH_ARGS)

clean:
	rm -rf build dist .mypy_cache .pytest_cache .ruff_cache
