# Two entry points for a newcomer: `make run` and `make test`.
PYTHON ?= python3
# `make run HOST=0.0.0.0` serves your home network (friends open http://<this computer's address>:8000).
HOST ?= 127.0.0.1
PORT ?= 8000
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-web

.PHONY: run test system-deps lint types pytest pytest-postgres openspiel-native bench bench-server clean

$(STAMP): pyproject.toml hatch_build.py src/ttr_nordic/rl/_fastobs.c src/ttr_nordic/fast/_core.c $(wildcard src/ttr_nordic/fast/*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# What `make run` needs: the package with its web extra only (the tests need much more).
$(RUN_STAMP): pyproject.toml hatch_build.py src/ttr_nordic/rl/_fastobs.c src/ttr_nordic/fast/_core.c $(wildcard src/ttr_nordic/fast/*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[web]'
	touch $(RUN_STAMP)

## Set up and start the game: open http://127.0.0.1:8000 in a browser (SQLite, nothing else to start).
## HOST=0.0.0.0 to play with friends on your network (see docs/playing.md, "With friends").
run: $(RUN_STAMP)
	$(BIN)/ttr-nordic serve --host $(HOST) --port $(PORT)

## Set up everything the tests need, then lint, type-check and run all tests.
# The tests need Chromium (browser tests) and PostgreSQL (storage tests, against a
# throwaway cluster that scripts/with-postgres.sh starts and always stops).
test: system-deps $(STAMP) lint types pytest-postgres

## System packages (apt-get, only when missing): chromium, postgresql.
system-deps:
	bash scripts/system-deps.sh

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks scripts examples hatch_build.py
	$(BIN)/ruff format --check src tests benchmarks scripts examples hatch_build.py

types: $(STAMP)
	$(BIN)/mypy

## The OpenSpiel game in C++ (ttr_nordic_native): compiled against the installed OpenSpiel's
## source release (downloaded once from PyPI); a no-op when it is up to date.
openspiel-native: $(STAMP)
	$(BIN)/python -m ttr_nordic.rl.openspiel_native build

# pytest exits 5 when it collects no test: that is a failure here, never a pass.
pytest: $(STAMP) openspiel-native
	$(BIN)/python -m pytest -n 2 -p no:cacheprovider --durations=25; status=$$?; \
	if [ $$status -eq 5 ]; then echo "no tests were collected"; exit 1; fi; exit $$status

# pytest with TTR_TEST_POSTGRES_URL set to a throwaway PostgreSQL server.
pytest-postgres: $(STAMP)
	bash scripts/with-postgres.sh $(MAKE) --no-print-directory pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/engine_speed.py

## Load test: 100 online games over WebSockets against a real server, then kill -9 and check.
bench-server: $(STAMP)
	$(BIN)/python benchmarks/server_load.py

clean:
	rm -rf $(VENV) build dist .mypy_cache .ruff_cache src/ttr_nordic/rl/_fastobs*.so src/ttr_nordic/fast/_core*.so \
		src/ttr_nordic/rl/_spiel_game*.so src/ttr_nordic/rl/_spiel_game.stamp
