# The two set-up commands of the README. Each bootstraps .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck unit bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[dev,postgres,mysql,dbt]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/packata-sql demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy --strict packata_sql

# Without database URLs in the environment, the machine's own PostgreSQL and MariaDB are
# prepared and used when their client tools are installed (what `.ci/run` does explicitly).
test: lint
	@if [ -z "$$PACKATA_TEST_POSTGRES_URL$$PACKATA_TEST_MYSQL_URL" ] \
	    && command -v pg_isready >/dev/null 2>&1 && command -v mysqladmin >/dev/null 2>&1; then \
	  if bash .ci/services.sh; then . ./.ci/test-env.sh; \
	  else echo "make test: the local servers could not be prepared; their suites skip"; fi; \
	fi; \
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .mypy_cache .ruff_cache
