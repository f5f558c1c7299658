# The two set-up commands of the README. Each bootstraps .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CLI_STAMP := $(VENV)/.installed-cli

.PHONY: demo test lint typecheck unit bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,postgres,mysql,dbt]'
	touch $(STAMP)

# The demo needs only the CLI itself (no test tools, no server drivers). Twice quiet: pip
# shows errors only, not setuptools' notice that every flat-layout editable install gets
# (an install that fails still prints its error and stops make).
$(CLI_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --quiet -e .
	touch $(CLI_STAMP)

# The CLI exits 1 on the demo's deliberate failures; the demo target itself succeeds.
demo: $(CLI_STAMP)
	@$(BIN)/packata-sql demo; code=$$?; \
	if [ $$code -eq 1 ]; then echo "(packata-sql exited 1 because of the demo's deliberate failures; make demo succeeds)"; \
	elif [ $$code -ne 0 ]; then exit $$code; fi

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict packata_sql
	$(BIN)/lint-imports

# Without database URLs in the environment, the machine's own PostgreSQL and MariaDB are
# prepared and used when their client tools are installed, and a Spark Connect server is
# started for the run (and stopped after it) when Java is (what `.ci/run` does explicitly).
test: lint
	@if [ -z "$$PACKATA_TEST_POSTGRES_URL$$PACKATA_TEST_MYSQL_URL" ] \
	    && command -v pg_isready >/dev/null 2>&1 && command -v mysqladmin >/dev/null 2>&1; then \
	  if bash .ci/services.sh; then . ./.ci/test-env.sh; \
	  else echo "make test: the local servers could not be prepared; their suites skip"; fi; \
	fi; \
	bash .ci/chromium.sh || echo "make test: chromium is missing; its tests skip"; \
	spark=; if [ -z "$$PACKATA_TEST_SPARK_URL" ] && command -v java >/dev/null 2>&1; then \
	  if bash .ci/spark.sh start; then spark=1; PACKATA_TEST_SPARK_URL=$$(cat .ci-spark/url); \
	    export PACKATA_TEST_SPARK_URL; \
	  else echo "make test: the Spark Connect server could not be started; its suites skip"; fi; \
	fi; \
	$(BIN)/python -m pytest --durations=30; code=$$?; \
	if [ -n "$$spark" ]; then bash .ci/spark.sh stop; fi; exit $$code

# Every section of benchmarks/README.md; BENCH_ARGS picks some (BENCH_ARGS="--only mariadb").
# Without database URLs the machine's own PostgreSQL and MariaDB are prepared and used, as for
# `make test` (their tables are the benchmark's: use scratch databases).
BENCH_ARGS ?=
bench: $(STAMP)
	@if [ -z "$$PACKATA_TEST_POSTGRES_URL$$PACKATA_TEST_MYSQL_URL" ] \
	    && command -v pg_isready >/dev/null 2>&1 && command -v mysqladmin >/dev/null 2>&1; then \
	  if bash .ci/services.sh; then . ./.ci/test-env.sh; \
	  else echo "make bench: the local servers could not be prepared; their tables are left out"; fi; \
	fi; \
	$(BIN)/python benchmarks/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
