"""A throw-away dbt project driven in-process by dbtRunner (one invocation at a time), on a
DuckDB file and on the test PostgreSQL (own schema, dropped at the end). Shared by the dbt suites.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest

from packata_sql.cli.main import main as packata_main

FIXTURE = Path(__file__).parent / "dbt_fixture"
DBT_PAGE = Path(__file__).resolve().parents[1] / "docs" / "dbt.md"
PROJECT = "packata_dbt_test"
CONTRACT = "orders.odcs.yaml"
WRITER_CONTRACT = "writer.odcs.yaml"


def runner_class() -> Any:
    """dbt's runner; a missing dbt skips, except in CI where it fails."""
    try:
        from dbt.cli.main import dbtRunner
    except ImportError:
        reason = "dbt is not installed: pip install -e '.[dbt]'"
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI requires the dbt suites: {reason}")
        pytest.skip(reason)
    return dbtRunner


def readme_hook() -> str:
    """The post-hook line exactly as docs/dbt.md shows it."""
    found = re.search(r'# dbt_project.yml\nmodels:\n  my_project:\n    \+post-hook: "(.*)"\n',
                      DBT_PAGE.read_text(encoding="utf-8"))
    assert found, "docs/dbt.md lost its dbt_project.yml example"
    return found.group(1)


@dataclass
class Outcome:
    """What one dbt invocation did: node statuses and messages, and packata-sql's lines."""

    success: bool
    statuses: dict[str, str] = field(default_factory=dict)
    messages: dict[str, str] = field(default_factory=dict)
    infos: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)
    mark: str = ""  # written into every row this invocation builds

    def rules(self, model: str = "orders") -> dict[str, tuple[str, Any, str | None]]:
        """rule key → (status, value, diagnostic) from the PACKATA_SQL_RESULT debug lines."""
        return {r["result"]["key"]: (r["result"]["status"], r["result"]["value"],
                                     r["result"]["diagnostic"])
                for r in self.results if r["model"].endswith("." + model)}

    def statuses_of(self, model: str = "orders") -> dict[str, str]:
        return {key: status for key, (status, _, _) in self.rules(model).items()}


@dataclass
class Project:
    root: Path
    target: str  # duckdb | postgres
    runner: Any
    admin_url: str | None = None
    schema: str = "main"
    reader_url: str | None = None
    owner: str | None = None

    @property
    def defaults(self) -> dict[str, Any]:
        """The vars of most runs: SQL rules may run (DuckDB needs trust; PostgreSQL's default
        login is a plain schema owner), min_amount (a SQL rule's) and floor (an Expressif
        rule's @floor) have a value."""
        trust = {"packata_sql_trust_environment": True} if self.target == "duckdb" else {}
        return {"packata_sql_params": {"min_amount": 0, "floor": 0}, **trust}

    def generate(self, *extra: str) -> int:
        contracts = [str(self.root / CONTRACT)]
        if self.target == "postgres":
            contracts.append(str(self.root / WRITER_CONTRACT))
        return packata_main(["dbt", "generate", *contracts, "--project-dir", str(self.root),
                             "--object", "odd=odd_orders", "--object", "late=late", *extra])

    def invoke(self, *args: str, defects: tuple[str, ...] = (),
               variables: dict[str, Any] | None = None, target: str | None = None) -> Outcome:
        """One `dbt run`: `defects` switch the fixture data, `variables` override the defaults."""
        outcome = Outcome(False, mark=uuid.uuid4().hex[:12])

        def collect(event: Any) -> None:
            name, message = event.info.name, event.info.msg
            if name == "JinjaLogInfo" and message.startswith("packata-sql"):
                outcome.infos.append(message)
            elif name == "JinjaLogWarning" and "packata-sql" in message:
                outcome.warnings.append(message)
            elif name == "JinjaLogDebug" and message.startswith("PACKATA_SQL_RESULT "):
                outcome.results.append(json.loads(message.split(" ", 1)[1]))
            elif name == "JinjaLogDebug" and message.startswith("PACKATA_SQL_RUN "):
                outcome.runs.append(json.loads(message.split(" ", 1)[1]))

        for name in [n for n in os.environ if n.startswith("PACKATA_DBT_")]:
            del os.environ[name]
        os.environ.update({f"PACKATA_DBT_{d.upper()}": "true" for d in defects})
        os.environ["PACKATA_DBT_MARK"] = outcome.mark
        merged = {**self.defaults, **(variables or {})}
        argv = ["run", "--project-dir", str(self.root), "--profiles-dir", str(self.root),
                "--target", target or self.target, *args,
                "--vars", json.dumps(merged, sort_keys=True)]  # unchanged vars: no full re-parse
        try:
            done = self.runner(callbacks=[collect]).invoke(argv)
        finally:
            for d in defects:
                os.environ.pop(f"PACKATA_DBT_{d.upper()}", None)
        outcome.success = bool(done.success)
        for result in getattr(done.result, "results", None) or []:
            outcome.statuses[result.node.name] = str(result.status)
            outcome.messages[result.node.name] = result.message or ""
        return outcome

    def marks(self, name: str = "orders") -> set[str]:
        """Which invocations built the rows of a table now committed (empty: no table)."""
        if not self.exists(name):
            return set()
        return {row[0] for row in self.query(f"SELECT DISTINCT mark FROM {self.relation(name)}")}

    def exists(self, name: str) -> bool:
        return bool(self.query(
            f"SELECT 1 FROM information_schema.tables WHERE table_schema = '{self.schema}' "
            f"AND table_name = '{name}'"))

    def relation(self, name: str, schema: str | None = None) -> str:
        return f'"{schema or self.schema}"."{name}"'

    def query(self, sql: str) -> list[tuple[Any, ...]]:
        """Reads with the test's own connection (DuckDB: in-process, dbt's own instance)."""
        if self.target == "duckdb":
            import duckdb

            connection = duckdb.connect(str(self.root / "warehouse.duckdb"))
            try:
                return [tuple(row) for row in connection.execute(sql).fetchall()]
            finally:
                connection.close()
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as connection:
            cursor = connection.execute(sql)
            return [tuple(row) for row in cursor.fetchall()] if cursor.description else []

    def table(self, name: str, schema: str | None = None) -> tuple[int, list[str]]:
        """Row count and column names of a table, as committed."""
        rows = self.query(f"SELECT COUNT(*) FROM {self.relation(name, schema)}")[0][0]
        if self.target == "duckdb":
            columns = [r[0] for r in self.query(f"DESCRIBE {self.relation(name, schema)}")]
        else:
            columns = [r[0] for r in self.query(
                "SELECT column_name FROM information_schema.columns WHERE table_schema = "
                f"'{schema or self.schema}' AND table_name = '{name}' ORDER BY ordinal_position")]
        return int(rows), columns

    def give_back(self, name: str) -> None:
        """PostgreSQL: after a run as the admin login, the owner login owns the table again."""
        self.query(f"ALTER TABLE {self.relation(name)} OWNER TO {self.owner}")

    def grant_reader(self) -> None:
        """PostgreSQL: the SELECT-only login may read what dbt just built."""
        for schema in (self.schema, f"{self.schema}_custom"):
            self.query(f"GRANT USAGE ON SCHEMA {schema} TO packata_ro")
            self.query(f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO packata_ro")

    def reader_copy(self, directory: Path) -> str:
        """DuckDB: dbt's instance holds the file in this process, so path 2 reads a copy taken
        after a checkpoint, under the same file name (the same catalog name)."""
        self.query("CHECKPOINT")
        directory.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.root / "warehouse.duckdb", directory / "warehouse.duckdb")
        return f"duckdb:///{directory / 'warehouse.duckdb'}"


def _profiles(target: str, root: Path, url: str | None, schema: str, owner: str | None) -> str:
    if target == "duckdb":
        return (f"{PROJECT}:\n  target: duckdb\n  outputs:\n    duckdb:\n      type: duckdb\n"
                f"      path: '{root / 'warehouse.duckdb'}'\n      threads: 1\n")
    assert url is not None
    parts = urlparse(url)
    common = (f"      type: postgres\n      host: '{parts.hostname}'\n      port: {parts.port or 5432}\n"
              f"      dbname: '{parts.path.lstrip('/')}'\n      schema: '{schema}'\n      threads: 1\n")
    # `postgres` logs in as the schema's owner, a plain login; `pg_super` as the admin URL's user.
    return (f"{PROJECT}:\n  target: postgres\n  outputs:\n"
            f"    postgres:\n{common}      user: '{owner}'\n      password: '{owner}'\n"
            f"    pg_super:\n{common}      user: '{unquote(parts.username or 'postgres')}'\n"
            f"      password: '{unquote(parts.password or '')}'\n")


def build_project(root: Path, target: str, url: str | None = None,
                  reader_url: str | None = None) -> Project:
    shutil.copytree(FIXTURE / "models", root / "models")
    shutil.copytree(FIXTURE / "macros", root / "macros")
    shutil.copy(FIXTURE / CONTRACT, root / CONTRACT)
    (root / "dbt_project.yml").write_text(
        f"name: {PROJECT}\nversion: '1.0.0'\nprofile: {PROJECT}\nconfig-version: 2\n"
        f"models:\n  {PROJECT}:\n    +materialized: table\n    +post-hook: \"{readme_hook()}\"\n",
        encoding="utf-8")
    schema, owner = "main", None
    if target == "postgres":
        token = uuid.uuid4().hex[:8]
        schema, owner = f"packata_dbt_{token}", f"packata_dbt_owner_{token}"
        (root / WRITER_CONTRACT).write_text(
            "apiVersion: v3.1.0\nkind: DataContract\nid: urn:example:dbt-writer\nname: writer\n"
            "version: 1.0.0\nstatus: active\nschema:\n  - name: writer\n    physicalName: writer\n"
            "    quality:\n      - id: hides_a_notify\n        type: sql\n"
            f"        query: SELECT {schema}.packata_run('SELECT pg_notify(''c'', ''x'')')\n"
            "        mustBe: 1\n"
            "      - id: writes_a_row\n        type: sql\n"
            f"        query: SELECT {schema}.packata_write()\n        mustBeGreaterThan: 0\n",
            encoding="utf-8")
    (root / "profiles.yml").write_text(_profiles(target, root, url, schema, owner), encoding="utf-8")
    return Project(root, target, runner_class(), url, schema, reader_url, owner)


def prepare_postgres(project: Project) -> None:
    """The schema (owned by a plain login, so its SQL rules may run) and a table to write."""
    assert project.owner is not None
    project.query(f"CREATE ROLE {project.owner} LOGIN PASSWORD '{project.owner}'")
    project.query(f"CREATE SCHEMA {project.schema} AUTHORIZATION {project.owner}")
    project.query(f"CREATE SCHEMA {project.schema}_custom AUTHORIZATION {project.owner}")
    project.query(f"CREATE TABLE {project.schema}.packata_log (n int)")
    project.query(f"ALTER TABLE {project.schema}.packata_log OWNER TO {project.owner}")
    project.query(f"CREATE FUNCTION {project.schema}.packata_write() RETURNS int LANGUAGE sql "
                  f"AS 'INSERT INTO {project.schema}.packata_log VALUES (1) RETURNING 1'")
    project.query(f"ALTER FUNCTION {project.schema}.packata_write() OWNER TO {project.owner}")
    # Runs its text argument: the deny-list cannot see the pg_notify in the string literal.
    project.query(f"CREATE FUNCTION {project.schema}.packata_run(q text) RETURNS int "
                  "LANGUAGE plpgsql AS $$ BEGIN EXECUTE q; RETURN 1; END $$")


def drop_postgres(project: Project) -> None:
    for schema in (project.schema, f"{project.schema}_custom"):
        project.query(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    project.query(f"DROP ROLE IF EXISTS {project.owner}")


def projects(kind: str, tmp: Path, postgres: Any = None) -> Iterator[Project]:
    if kind == "duckdb":
        project = build_project(tmp, "duckdb")
        assert project.generate() == 0
        yield project
        return
    project = build_project(tmp, "postgres", postgres.admin_url, postgres.reader_url)
    try:
        prepare_postgres(project)
        assert project.generate() == 0
        yield project
    finally:
        drop_postgres(project)


def gated_model(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                contract_file: str, contract: str, model: str, sql: str) -> Iterator[Project]:
    """A project on the engine `request.param` names, with one more contract and the model it
    gates (`models/<model>.sql`), its plan generated."""
    kind = str(request.param)
    server = request.getfixturevalue("postgres") if kind == "postgres" else None
    for built in projects(kind, tmp_path_factory.mktemp(f"dbt_{model}_{kind}"), server):
        (built.root / contract_file).write_text(contract, encoding="utf-8")
        (built.root / "models" / f"{model}.sql").write_text(sql, encoding="utf-8")
        assert packata_main(["dbt", "generate", str(built.root / contract_file),
                             "--project-dir", str(built.root)]) == 0
        yield built
