"""The engine registry (packata_sql/engines.py) is the only list of engines: every engine it
holds is wired everywhere (dialect, session, URLs, server types, CLI, doctor, plan traits, test
matrices), and an engine taken out of it disappears from all of them."""

from __future__ import annotations

import ast
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from packata_sql import engines
from packata_sql.api import contract_dialect, dialect_name
from packata_sql.cli.main import DIALECT_NAMES, main
from packata_sql.contracts.model import Contract, Server
from packata_sql.dialects import BINDER_DIALECTS, COMPILE_DIALECTS, Dialect, get_dialect
from packata_sql.engines import ENGINES, FILE, NETWORK, EngineSpec
from packata_sql.run.inspect import login_lines
from packata_sql.sessions.base import TimedSession
from packata_sql.sessions.endpoint import FILE_ENGINES, NETWORK_ENGINES, Endpoint, from_server, parse_url

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "tests" / "golden" / "contract.yaml"
SESSIONS = [spec for spec in ENGINES if spec.session is not None]


def _module(path: Path, name: str) -> ModuleType:
    found = importlib.util.spec_from_file_location(name, path)
    assert found is not None and found.loader is not None
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module  # dataclasses look their module up while being made
    found.loader.exec_module(module)
    return module


def _sample_url(spec: EngineSpec, scheme: str) -> str:
    return f"{scheme}:///x.db" if spec.kind == FILE else f"{scheme}://h/"


def _server(server_type: str, **settings: object) -> Contract:
    defaults = {"host": "h", "database": "d", "path": "p.db"} | settings
    return Contract("c.yaml", (), servers=(Server("s", server_type, tuple(defaults.items())),))


# --- every engine is wired ----------------------------------------------------------------

def test_names_and_aliases_are_unique():
    words = engines.names_and_aliases()
    assert len(words) == len(set(words))
    schemes = [scheme for spec in ENGINES for scheme in spec.url_schemes]
    assert len(schemes) == len(set(schemes))
    types = [kind for spec in ENGINES for kind in spec.server_types]
    assert len(types) == len(set(types))


@pytest.mark.parametrize("spec", ENGINES, ids=lambda spec: spec.name)
def test_dialect_resolves_and_agrees_with_its_spec(spec):
    dialect = get_dialect(spec.name)
    assert isinstance(dialect, Dialect) and dialect.name == spec.name
    assert dialect.authored_sql is spec.authored_sql
    if spec.variant_of is not None:  # it binds with the other engine's pinned lexical rules
        base = get_dialect(spec.variant_of)
        assert (dialect.lexical, dialect.deny) == (base.lexical, base.deny)
    for alias in spec.aliases:
        with pytest.raises(KeyError):
            get_dialect(alias)  # aliases are read at the edge (--dialect, server types)
        assert dialect_name(alias.upper()) == spec.name


@pytest.mark.parametrize("spec", SESSIONS, ids=lambda spec: spec.name)
def test_session_class_imports_and_the_engine_is_reachable(spec):
    assert spec.session is not None
    assert issubclass(engines.load(spec.session), TimedSession)
    assert spec.kind in (FILE, NETWORK) and spec.url_schemes and spec.server_types
    for scheme in spec.url_schemes:
        assert engines.for_scheme(scheme) == spec
        endpoint = parse_url(_sample_url(spec, scheme))
        assert endpoint.engine == spec.name
        if spec.kind == NETWORK:
            assert spec.default_port is not None and endpoint.port == spec.default_port
    for server_type in spec.server_types:
        assert from_server(_server(server_type), None).engine == spec.name
        assert contract_dialect(_server(server_type)) in COMPILE_DIALECTS


@pytest.mark.parametrize("spec", [s for s in ENGINES if s.session is None],
                         ids=lambda spec: spec.name)
def test_compile_only_engines_have_no_connection_traits(spec):
    assert (spec.kind, spec.url_schemes, spec.server_types, spec.url_reader) == (None, (), (), None)


def test_network_engines_read_by_make_url_check_their_url_parameters():
    for spec in ENGINES:
        if spec.kind == NETWORK and spec.url_reader is None:
            assert spec.url_options is not None and callable(engines.load(spec.url_options))
        for path in (spec.url_reader, spec.server_reader):
            assert path is None or callable(engines.load(path))


def test_a_custom_server_reaches_the_engines_odcs_has_no_type_for():
    custom = engines.custom_server_engines()
    assert custom
    for name in custom:
        for settings in ({"engine": name.upper()},
                         {"customProperties": [{"property": "x", "value": name}]}):
            assert from_server(_server("custom", **settings), None).engine == name


def test_databricks_compiles_as_itself_and_runs_on_spark():
    contract = _server("databricks")
    assert contract_dialect(contract) == "databricks"
    assert from_server(contract, None).engine == "spark"


@pytest.mark.parametrize("word", engines.names_and_aliases())
def test_compile_works_for_every_dialect_and_alias(word, capsys):
    assert main(["compile", str(CONTRACT), "--dialect", word, "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    expected = engines.named(word)
    assert expected is not None and document["dialect"] == expected.name


def test_compile_help_lists_exactly_the_registered_dialects(capsys):
    with pytest.raises(SystemExit):
        main(["compile", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    listed = re.search(r"one of: (.*?) \(default", help_text)
    assert listed is not None
    assert tuple(listed.group(1).split(", ")) == engines.names_and_aliases() == DIALECT_NAMES


def test_help_imports_no_dialect_driver_or_sqlglot():
    code = ("import sys\nfrom packata_sql.cli.main import main\ntry:\n    main(['compile', '--help'])\n"
            "except SystemExit:\n    pass\nprint(' '.join(sorted(sys.modules)), file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    loaded = done.stderr.split()
    heavy = ("sqlglot", "duckdb", "psycopg", "pymysql", "sqlalchemy", "pyspark", "dataclasses",
             "packata_sql.dialects", "packata_sql.sessions")
    assert "packata_sql.engines" in loaded
    assert [name for name in loaded if name.startswith(heavy)] == []


def test_doctor_names_each_network_engines_login_origin():
    for spec in ENGINES:
        if spec.kind == NETWORK:
            lines = login_lines(Endpoint(spec.name, "d", host="h", port=1), from_url=True)
            assert spec.login_origin in lines[0]


def test_derived_lists_equal_the_registry():
    assert engines.names() == COMPILE_DIALECTS
    assert tuple(s.name for s in ENGINES if s.authored_sql and not s.variant_of) == BINDER_DIALECTS
    assert set(FILE_ENGINES) == {s.name for s in ENGINES if s.kind == FILE}
    assert set(NETWORK_ENGINES) == {s.name for s in ENGINES if s.kind == NETWORK}
    unit = _module(ROOT / "tests" / "conftest.py", "registry_unit_conftest")
    assert tuple(unit.ENGINES) == FILE_ENGINES
    servers = _module(ROOT / "integration" / "conftest.py", "registry_integration_conftest")
    assert set(servers.SERVER_ENGINES) == {
        s.name for s in SESSIONS if s.kind == NETWORK and s.url_reader is None}


# --- nothing else names engines -----------------------------------------------------------

#: Where an engine's name may appear outside the registry and the engine's own modules.
JUSTIFIED = {
    ("packata_sql/plans/gate.py", "duckdb"): "dbt adapter types and the default adapters",
    ("packata_sql/plans/gate.py", "postgres"): "dbt adapter types and the default adapters",
    ("packata_sql/demo/__init__.py", "duckdb"): "the demo warehouse is a DuckDB file",
    ("packata_sql/api.py", "duckdb"): "lint's dialect when a contract names no server",
    ("packata_sql/dialects/regex.py", "postgres"): "the name of a regex flavor",
    ("packata_sql/sessions/mysql.py", "mssql"): "a MySQL sql_mode (MSSQL)",
    ("packata_sql/sessions/mysql.py", "postgresql"): "a MySQL sql_mode (POSTGRESQL)",
    **{("packata_sql/history/store.py", word): "the history store's SQLAlchemy backends: "
       "where runs are kept, never a checked engine" for word in
       ("sqlite", "duckdb", "postgresql", "postgres")},
}


def _own_places() -> dict[str, set[tuple[str, str | None]]]:
    """word → (file, function or None for the whole file) where it may appear: the modules
    the engine's spec names; a module several engines' functions live in (endpoint.py), only
    inside the named function."""
    owners: dict[str, set[str]] = {}
    for spec in ENGINES:
        for path in filter(None, (spec.dialect, spec.session, spec.url_reader,
                                  spec.server_reader, spec.url_options)):
            owners.setdefault(path.partition(":")[0], set()).add(spec.name)
    places: dict[str, set[tuple[str, str | None]]] = {}
    for spec in ENGINES:
        own: set[tuple[str, str | None]] = set()
        for path in filter(None, (spec.dialect, spec.session, spec.url_reader,
                                  spec.server_reader, spec.url_options)):
            module, _, attribute = path.partition(":")
            file = module.replace(".", "/") + ".py"
            whole = path in (spec.dialect, spec.session) or len(owners[module]) == 1
            own.add((file, None if whole else attribute))
        for word in (spec.name, *spec.aliases, *spec.url_schemes, *spec.server_types):
            places.setdefault(word, set()).update(own)
    return places


def _engine_words(source: str, words: set[str]) -> list[tuple[str, str | None, int]]:
    """String constants equal to an engine word (any case), with their enclosing top-level
    function; docstrings and messages that merely mention an engine are not constants equal
    to its name."""
    found = []
    for top in ast.parse(source).body:
        function = top.name if isinstance(top, (ast.FunctionDef, ast.ClassDef)) else None
        for node in ast.walk(top):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.lower() in words:
                found.append((node.value.lower(), function, node.lineno))
    return found


def test_engine_names_appear_only_in_the_registry_and_their_own_modules():
    places = _own_places()
    stray = []
    for path in sorted((ROOT / "packata_sql").rglob("*.py")):
        file = path.relative_to(ROOT).as_posix()
        if file == "packata_sql/engines.py":
            continue
        for word, function, line in _engine_words(path.read_text(encoding="utf-8"), set(places)):
            allowed = (file, None) in places[word] or (file, function) in places[word]
            if not allowed and (file, word) not in JUSTIFIED:
                stray.append(f"{file}:{line} names '{word}'")
    assert stray == [], "derive these from packata_sql/engines.py instead"


def test_the_stray_name_check_finds_a_branch_on_an_engine():
    places = _own_places()
    source = 'def run(endpoint):\n    if endpoint.engine == "spark":\n        return 1\n'
    found = _engine_words(source, set(places))
    assert found == [("spark", "run", 2)]
    assert ("packata_sql/run/runner.py", "run") not in places["spark"]
    assert ("packata_sql/sessions/endpoint.py", "postgres_options") in places["postgresql"]
    assert ("packata_sql/sessions/endpoint.py", None) not in places["postgresql"]


# --- an engine taken out of the registry is gone everywhere -------------------------------

_WITHOUT = r"""
import json, sys
import packata_sql.engines as engines
removed = engines.spec(sys.argv[1])
engines.ENGINES = tuple(spec for spec in engines.ENGINES if spec != removed)

import io, contextlib, importlib.util
from packata_sql import dialects
from packata_sql import api
from packata_sql.run import inspect as doctor
from packata_sql.cli import main as cli
from packata_sql.sessions import base as session
from packata_sql.sessions import endpoint
from packata_sql.contracts.model import Contract, Server

def loaded(path, name):
    found = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(found)
    sys.modules[name] = module  # dataclasses look their module up while being made
    found.loader.exec_module(module)
    return module

def refused(action, *errors):
    try:
        action()
    except errors as error:
        return type(error).__name__ + ":" + str(error)
    return None

help_text = io.StringIO()
with contextlib.redirect_stdout(help_text):
    try:
        cli.main(["compile", "--help"])
    except SystemExit:
        pass
words = [removed.name, *removed.aliases]
servers = [Contract("c.yaml", (), servers=(Server("s", kind, (("host", "h"), ("database", "d"),
           ("path", "p"))),)) for kind in removed.server_types]
print(json.dumps({
    "lists": {
        "DIALECT_NAMES": list(cli.DIALECT_NAMES),
        "COMPILE_DIALECTS": list(dialects.COMPILE_DIALECTS),
        "BINDER_DIALECTS": list(dialects.BINDER_DIALECTS),
        "FILE_ENGINES": list(endpoint.FILE_ENGINES),
        "NETWORK_ENGINES": list(endpoint.NETWORK_ENGINES),
        "unit ENGINES": list(loaded("tests/conftest.py", "unit_conftest").ENGINES),
        "SERVER_ENGINES": list(loaded("integration/conftest.py", "it_conftest").SERVER_ENGINES),
    },
    "help": " ".join(help_text.getvalue().split()),
    "dialect": refused(lambda: dialects.get_dialect(removed.name), KeyError),
    "compile names": [api.dialect_name(word) for word in words],
    "urls": [refused(lambda: endpoint.parse_url(scheme + ":///x.db" if removed.kind == "file"
                                                else scheme + "://h/"), endpoint.EndpointError)
             for scheme in removed.url_schemes],
    "servers": [refused(lambda: endpoint.from_server(contract, None), endpoint.EndpointError)
                for contract in servers],
    "session": refused(lambda: session.open_session(endpoint.Endpoint(removed.name, "x.db"),
                                                    trust_environment=True),
                       session.ProviderError),
    "login": doctor._driver_default(removed.name),
}))
"""


@pytest.mark.parametrize("spec", ENGINES, ids=lambda spec: spec.name)
def test_an_engine_removed_from_the_registry_is_gone_everywhere(spec):
    done = subprocess.run([sys.executable, "-c", _WITHOUT, spec.name], capture_output=True,
                          text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    words = {spec.name, *spec.aliases}
    for name, listed in seen["lists"].items():
        assert not words & set(listed), name
    assert seen["lists"]["COMPILE_DIALECTS"], "only the one engine was removed"
    assert not words & set(re.findall(r"[a-z]+", seen["help"].partition("--dialect")[2]))
    assert seen["dialect"] is not None
    assert seen["compile names"] == [None] * len(words)
    assert all(seen["urls"]) and all(seen["servers"])
    assert seen["session"] is not None and seen["login"] == "the driver's default"
