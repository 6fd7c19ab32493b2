# The two commands of the README: `make run` and `make test`. Both install what they need.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CHROMIUM := /usr/bin/chromium

.PHONY: run test test-partitions test-fast spec bench-clocks lint install bytecode browser bench bench-quick bench-followers bench-costs clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

# Bytecode for the project's own modules, as a non-editable install writes it: an editable install
# does not, and where PYTHONDONTWRITEBYTECODE is set every process would compile them again
# (`gambit verify` of a short export spends most of its time there).
bytecode: $(STAMP)
	@$(BIN)/python -m compileall -q domain projections service gambit >/dev/null

install: $(STAMP)

# The browser tests drive Debian's Chromium through Playwright (never a browser download).
# As root it is installed here; otherwise those tests skip and say why (and fail under CI=true).
browser:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing Debian's chromium for the browser tests"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "note: $(CHROMIUM) is missing; install Debian's chromium to run the browser tests"; \
	  fi; \
	fi

run: $(STAMP) bytecode
	$(BIN)/gambit serve

# The whole suite, both stores and the browser. Most tests wait on PostgreSQL, subprocesses or
# gunicorn, so more workers than cores pay (measured on 2 cores: see README); each module runs
# whole on one worker (--dist loadfile, tests/conftest.py). The browser tests run afterwards on
# their own, two modules at a time: they drive Chromium against live servers and wait for what the
# page shows, which the parallel run's load on two cores made fail; two browser workers alone ran
# 4:16 where one ran 5:32 (both at load 10). Bytecode is written even where PYTHONDONTWRITEBYTECODE
# is set, so the workers and the servers they start do not compile every module again.
TEST_WORKERS ?= 4
BROWSER_WORKERS ?= 2
PARALLEL := -n $(TEST_WORKERS) --dist loadfile
test: $(STAMP) browser
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest $(PARALLEL) --ignore=tests/browser
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n $(BROWSER_WORKERS) --dist loadfile tests/browser

# The store's promises again with matches partitioned four ways (issue 34): GAMBIT_TEST_PARTITIONS=4 runs the
# tests' app (and the crash test's server) on two schemas of each of two PostgreSQL servers (the second at
# GAMBIT_TEST_SECOND_POSTGRES_URL, which .ci/run starts; without it, four schemas of the one), PostgreSQL only.
# A chosen subset, to keep CI's time reasonable: the partition tests, the followers', the index and scrub, one
# game played over HTTP, receipts and the log, clocks, streams, tournaments, and the SIGKILL crash test (the test that
# stops a partition's server for real, tests/store/test_partition_server_down.py, makes its own two partitions
# whatever GAMBIT_TEST_PARTITIONS says, so `make test` runs it once). Tests that
# edit the store's tables by its URL (tests/support/tamper.py) reach only the first partition and are left out;
# tests/store/test_verify_tampering.py has its own test of a match in partition 1 (verified, then tampered with).
PARTITIONED_TESTS := tests/store/test_partitions.py tests/store/test_followers_see_every_record.py \
  tests/store/test_projector.py tests/store/test_match_store.py \
  tests/http/test_partitions_over_http.py tests/tlog/test_partition_logs.py tests/http/test_gambitz_over_http.py \
  tests/http/test_receipts.py tests/http/test_clocks.py tests/http/test_stream_hub.py tests/http/test_tournaments.py \
  tests/hardening/test_crash_safety.py
test-partitions: $(STAMP)
	PYTHONDONTWRITEBYTECODE= GAMBIT_TEST_PARTITIONS=4 GAMBIT_TEST_BACKENDS=postgres $(BIN)/python -m pytest $(PARALLEL) \
	  $(PARTITIONED_TESTS)

# Quick feedback while working: the service layer on SQLite, no browser, no PostgreSQL, no slow checks, no
# generated clients (they build and run clients in Python and TypeScript) and a smaller legal-move sample;
# `make test` runs them all, in full. Bytecode is written even where PYTHONDONTWRITEBYTECODE is set: each
# worker otherwise rewrites and compiles every test module again (about 18 s of CPU per worker per run).
test-fast: $(STAMP)
	PYTHONDONTWRITEBYTECODE= GAMBIT_TEST_BACKENDS=sqlite GAMBIT_LEGAL_MOVES_SAMPLE=100 $(BIN)/python -m pytest $(PARALLEL) \
	  -m "not browser and not postgres and not slow and not generated_clients" --ignore=tests/browser

# How late the clock keeper records expiries (target: within 1 s of the deadline, never before), both stores.
bench-clocks: $(STAMP) bytecode
	$(BIN)/python -m bench.clock_lateness --matches 100

# The generated part of api-spec/openapi.yaml, written anew from the games' declarations (service/spec.py).
spec: $(STAMP)
	$(BIN)/gambit spec --write

# Lint, format and types of the product packages (configured in pyproject.toml); CI runs it first.
lint: $(STAMP)
	$(BIN)/ruff check domain projections service gambit
	$(BIN)/ruff format --check domain projections service gambit
	$(BIN)/mypy

# Benchmarks live apart from the tests: they print the table and rewrite docs/benchmarks.{md,png}.
bench: $(STAMP) bytecode
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m bench.run

bench-quick: $(STAMP) bytecode
	$(BIN)/pip install --quiet -e '.[dev,bench]'
	$(BIN)/python -m bench.run --quick

# 1,000 idle SSE followers against command p99 and /healthz, on both stores (issue 17's target).
# What the proofs cost (issues 32 and 33): signed seats, re-deciding in `gambit verify`, the transparency log
# and its proofs at 1,000,000 leaves; writes bench/costs.md and its section of docs/benchmarks.md (~30 min).
bench-costs: $(STAMP) bytecode
	$(BIN)/python -m bench.costs --write-docs

bench-followers: $(STAMP)
	$(BIN)/python -m bench.followers --write-docs

clean:
	rm -rf $(VENV) var .pytest_cache test-artifacts
