"""The Python API: what the CLI, `demo`, the dbt frontends, benchmarks and orchestrators call.

Three steps, each usable alone: `load` reads a declaration (any format) into a `Contract`;
`compile` turns it into immutable `Plans` for one dialect without touching a database or
importing a driver; `check` runs a contract or plans against one endpoint and returns the
`Report`. Plans are reusable: many runs, in several threads, may share one `Plans`; each run
opens its own session and owns its state. Errors that stop a run before it starts are
`packata_sql.errors.UsageError` (a `DeclarationError` for a file that cannot be read).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from packata_sql import engines
from packata_sql.authored.template import OBSERVATION_PARAMETER
from packata_sql.contracts import official
from packata_sql.contracts.formats import Declared, read_declaration
from packata_sql.contracts.model import Category, Contract, Finding, Rule
from packata_sql.contracts.official import Problem, distinct
from packata_sql.contracts.yaml_source import SourceError
from packata_sql.contracts.zones import ReadingZone, default_zone
from packata_sql.dialects import COMPILE_DIALECTS, get_dialect
from packata_sql.errors import DeclarationError, UsageError
from packata_sql.plans.compiler import Compiled, compile_contract
from packata_sql.plans.gate import DEFAULT_DIALECTS as GATE_DIALECTS
from packata_sql.report import Report, Selection
from packata_sql.run.inspect import Diagnosis
from packata_sql.run.run_state import DEFAULT_TIMEOUT_S, Progress, RunOptions
from packata_sql.run.runner import run
from packata_sql.sessions.endpoint import (
    Endpoint,
    EndpointError,
    from_server,
    parse_url,
    url_secret_warning,
)
from packata_sql.spelling import choice_hint, closest, is_pattern, matching

__all__ = [  # noqa: RUF022 (the calls, then the types they take and return)
    "CheckRequest", "Linted", "Plans", "check", "check_endpoint", "compile", "contract_dialect",
    "check_with_history", "history_store", "record_run", "read_history", "prune_history",
    "dialect_hint", "diff",
    "contract_problems", "dialect_name", "doctor", "gate_login_checks", "gate_plan",
    "gate_rules", "lint", "load", "load_source", "own_plans", "parse_parameters",
    "resolve_endpoint", "schema_problems",
    "url_password_warning",
    "snapshot", "init_contract", "import_sql", "import_dbt",
    "COMPILE_DIALECTS", "GATE_DIALECTS", "Category", "Contract", "Declared", "Diagnosis",
    "Endpoint", "Finding", "Problem", "Progress", "Report", "Rule", "Starter",
]

ODCS_BETWEEN = ("exclusive", "inclusive")


def load(path: str | Path, *, declaration: str | None = None, object_name: str | None = None,
         odcs_between: str = "exclusive") -> Contract:
    """Any declaration format (ODCS, JSON policy, pipeline `data_quality`), detected from the
    content unless `declaration` names it. Raises `DeclarationError` for a file that cannot be
    read or parsed; everything else a declaration gets wrong is a finding on the contract."""
    return load_source(path, declaration=declaration, object_name=object_name,
                       odcs_between=odcs_between).contract


def load_source(path: str | Path, *, declaration: str | None = None,
                object_name: str | None = None, odcs_between: str = "exclusive") -> Declared:
    """The contract and its parsed document, for callers that lint it too (one parse)."""
    if odcs_between not in ODCS_BETWEEN:
        raise UsageError(f"odcs_between must be one of {', '.join(ODCS_BETWEEN)}")
    try:
        return read_declaration(str(path), declaration=declaration, object_name=object_name,
                                inclusive_between=odcs_between == "inclusive")
    except SourceError as error:
        raise DeclarationError(str(error)) from None


@dataclass(frozen=True)
class Plans:
    """A contract compiled for one dialect: immutable, shared by any number of runs."""

    contract: Contract
    dialect: str
    compiled: Compiled
    prefix: tuple[str, ...] = ()
    select: tuple[str, ...] | None = None
    categories: tuple[Category, ...] | None = None
    parameters: frozenset[str] | None = None
    #: The zone values without one are read in where their property declares none.
    zone: ReadingZone = field(default_factory=ReadingZone)

    @property
    def findings(self) -> tuple[Finding, ...]:
        return self.compiled.findings

    def document(self, *, pretty: bool = False) -> dict[str, Any]:
        """The plan document `compile --format json` prints (format `packata-sql/plan@1`):
        every rule's SQL and parameters, each object's fused scans, the findings. `pretty`
        lays each statement out for reading (`compile --format sql`)."""
        from packata_sql.plans.document import plan_document

        return plan_document(self.contract, self.compiled, get_dialect(self.dialect),
                             pretty=pretty)


def compile(contract: Contract, dialect: str, *, schema: Sequence[str] | None = None,
            select: Iterable[str] | None = None,
            categories: Iterable[Category | str] | None = None,
            parameters: Iterable[str] | None = None, server: str | None = None) -> Plans:
    """Plans plus findings for `dialect` (a name or alias from the engine registry); no
    connection, no driver import. `schema` holds the database/schema segments placed before
    each object (default: those of the contract's first server of this dialect, as `check`
    reads them); `parameters` the names a run will bind (None: not checked here); `server`
    the contract's server whose `defaultTimezone` applies (default: its first server of this
    dialect; docs/semantics.md 1.1)."""
    name = dialect_name(dialect)
    if name is None or name not in COMPILE_DIALECTS:
        raise UsageError(dialect_hint(dialect))
    chosen = _known_selection(contract, tuple(select) if select is not None else None)
    kinds = _categories(categories)
    prefix = declared_schema(contract, name) if schema is None else tuple(schema)
    names = None if parameters is None else frozenset((*parameters, OBSERVATION_PARAMETER))
    zone = reading_zone(contract, name, server)
    compiled = compile_contract(contract, get_dialect(name), prefix=prefix, select=chosen,
                                parameters=names, categories=kinds, zone=zone)
    return Plans(contract, name, compiled, prefix, chosen, kinds, names, zone)


def reading_zone(contract: Contract, dialect: str, server: str | None) -> ReadingZone:
    """The zone for values without one whose property declares none: `server`'s (default:
    the contract's first server of `dialect`, whose schema `compile` and a `--url` run read),
    else the contract's, else UTC (contracts/zones.py)."""
    if server is None:
        spec = engines.spec(dialect)
        server = next((s.name for s in contract.servers
                       if spec.name in _server_dialects(contract, s.name, s.type)), None)
    return default_zone(contract.zone, contract.servers, server)


def _server_dialects(contract: Contract, server: str, server_type: str) -> tuple[str | None, ...]:
    """The dialects a server entry reads as: the engine a run connects to (a `custom` server
    names it), else the one `compile` renders for its type, with the engine it varies."""
    try:
        return (from_server(contract, server).engine,)
    except EndpointError:
        found = engines.dialect_for_server_type(server_type)
        return (found.name, found.variant_of) if found is not None else ()


def declared_schema(contract: Contract, dialect: str) -> tuple[str, ...]:
    """The schema segments `check` would prepend on the contract's first server of this
    dialect, so compiled plans hold the SQL a run executes. A server `check` cannot reach (an
    engine packata-sql only compiles for, or an entry without its host) gives its `schema`."""
    spec = engines.spec(dialect)
    for server in contract.servers:
        try:
            endpoint = from_server(contract, server.name)
        except EndpointError:
            rendered = engines.dialect_for_server_type(server.type)
            value = server.setting("schema")
            if rendered is spec and isinstance(value, str) and value:
                return (value,)
            continue
        if endpoint.engine in (spec.name, spec.variant_of):
            return endpoint.schema
    return ()


@dataclass(frozen=True)
class CheckRequest:
    """What one run asks for, named after the CLI's long options (`check --help`)."""

    select: tuple[str, ...] | None = None
    categories: tuple[Category | str, ...] | None = None
    #: Typed values for `{param:NAME}` (`--param`): bound through the driver, never as text.
    parameters: Mapping[str, object] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT_S
    budget: float | None = None
    trust_environment: bool = False
    show_sql: bool = False
    accept_unexecutable: bool = False
    samples: int = 0
    odcs_between: str = "exclusive"
    schema_drift: bool = False
    baseline: str | None = None
    drift: tuple[str, ...] = ()
    #: The run's one observation instant (default: its start, UTC): `{observation_time}` and
    #: everything else that depends on "now" reads it, so a run can be replayed.
    observed_at: datetime | None = None
    #: The values observation-scope Expressif rules judge, by rule key (a number, text,
    #: boolean or date): bound through the driver; a rule without one is inconclusive.
    observations: Mapping[str, object] = field(default_factory=dict)
    progress: Callable[[Progress], None] | None = None
    on_error: Callable[[str, str, str | None], None] | None = None
    #: `--samples`: per failed rule, its key and the sample's lines (a head line, then one
    #: per value); row values, so for the terminal only (never a report).
    on_samples: Callable[[str, tuple[str, ...]], None] | None = None
    #: A dbt project directory (`--dbt-project`): only the models dbt built in its last
    #: invocation are checked, each object on its model's relation (docs/dbt.md).
    dbt_project: str | None = None


_REQUEST_FIELDS = frozenset(f.name for f in fields(CheckRequest))


def parse_parameters(raw: Iterable[str]) -> dict[str, object]:
    """`NAME[:TYPE]=VALUE` texts (`--param`) as the typed values `CheckRequest.parameters`
    binds; a malformed one raises `UsageError` saying how to write it."""
    from packata_sql.authored.parameters import ParameterError, parse_parameter

    try:
        return dict(parse_parameter(text) for text in raw)
    except ParameterError as error:
        raise UsageError(str(error)) from None


def check(contract_or_plans: Contract | Plans, url: str | Endpoint | None = None, *,
          server: str | None = None, request: CheckRequest | None = None,
          **options: Any) -> Report:
    """Runs the rules against one endpoint (`url`, a URL or an `Endpoint`, else the contract's
    `server`, else its only server) and returns the report; `options` are `CheckRequest`
    fields. A finding never raises: it ends its rule `skipped` and the report `incomplete`."""
    unknown = sorted(set(options) - _REQUEST_FIELDS)
    if unknown:
        raise TypeError(f"check() got unknown option(s): {', '.join(unknown)}")
    chosen = replace(request or CheckRequest(), **options)
    plans = contract_or_plans if isinstance(contract_or_plans, Plans) else None
    contract = plans.contract if plans else contract_or_plans
    assert isinstance(contract, Contract)
    endpoint = resolve_endpoint(contract, url, server, chosen.trust_environment)
    return check_endpoint(contract, endpoint, chosen, plans)


def check_endpoint(contract: Contract, endpoint: Endpoint, request: CheckRequest,
                   plans: Plans | None = None) -> Report:
    """`check` on an endpoint already resolved (the CLI resolves it before the run starts)."""
    if OBSERVATION_PARAMETER in request.parameters:
        raise UsageError(f"the parameter name '{OBSERVATION_PARAMETER}' is reserved: "
                         "{observation_time} binds the run's observation time (--observed-at)")
    if request.observed_at is not None and request.observed_at.tzinfo is None:
        raise UsageError("observed_at needs a time zone (e.g. 2026-12-01T08:00:00Z)")
    if plans is not None and plans.dialect != endpoint.engine:
        raise UsageError(f"the plans were compiled for {plans.dialect}, the endpoint is "
                         f"{endpoint.engine}: compile for {endpoint.engine} or pass the contract")
    with_drift = _with_drift_rules(request, contract)
    select = _known_selection(with_drift, request.select) if request.select is not None \
        else (plans.select if plans else None)
    categories = _categories(request.categories) if request.categories is not None \
        else (plans.categories if plans else None)
    names = frozenset((*request.parameters, OBSERVATION_PARAMETER))
    zone = reading_zone(with_drift, endpoint.engine, endpoint.server)
    reusable = (plans is not None and with_drift is contract and request.dbt_project is None
                and plans.prefix == endpoint.schema and plans.select == select
                and plans.zone == zone
                and plans.categories == categories
                and (plans.parameters == names or (plans.parameters is None
                     and all(set(p.parameters) <= names for p in plans.compiled.sql_plans)
                     and all(set(p.parameters) <= names for p in plans.compiled.plans))))
    if plans is not None and reusable:
        compiled = plans.compiled
    elif request.dbt_project is not None:
        from packata_sql.contracts.dbt_manifest import relations
        from packata_sql.plans.relations import compile_on_relations

        _known_selection(with_drift, select)
        compiled = compile_on_relations(
            with_drift, get_dialect(endpoint.engine),
            relations(with_drift, request.dbt_project, endpoint.schema),
            select=select, parameters=names, categories=categories, zone=zone)
    else:
        compiled = compile(with_drift, endpoint.engine, schema=endpoint.schema, select=select,
                           categories=categories, parameters=request.parameters,
                           server=endpoint.server).compiled
    run_options = RunOptions(
        timeout_s=request.timeout, budget_s=request.budget,
        trust_environment=request.trust_environment, show_sql=request.show_sql,
        settings={"odcs_between": request.odcs_between, **zone.settings()},
        parameters=dict(request.parameters),
        accept_unexecutable=request.accept_unexecutable, progress=request.progress,
        on_error=request.on_error, samples=request.samples,
        on_samples=request.on_samples if request.samples else None,
        observed_at=request.observed_at, observations=dict(request.observations),
    )
    report = run(with_drift, compiled, endpoint, run_options)
    selection = _selection(with_drift, select, categories)
    return replace(report, selection=selection,
                   declaration=_declaration_record(with_drift, selection))


def _selection(contract: Contract, keys: Sequence[str] | None,
               categories: Sequence[Category] | None) -> Selection | None:
    """What `select`/`categories` kept of the declaration's rules (None when neither is given),
    counted from the same filter the compiler applies."""
    if not keys and not categories:
        return None
    wanted = set(keys) if keys else None
    kinds = set(categories) if categories else None
    selected = sum(1 for r in contract.rules if (wanted is None or r.key in wanted)
                   and (kinds is None or r.category in kinds))
    return Selection(tuple(keys or ()), tuple(c.value for c in categories or ()), selected,
                     len(contract.rules))


def _declaration_record(contract: Contract, selection: Selection | None) -> dict[str, str | None]:
    """The declaration's evidence (a policy's SHA-256) with its `scope`: `selection` when the
    run left rules out, so a partial run's record can never pass for a full validation of
    that hash; `full` otherwise. `complete` and the outcome stay about the selected rules
    (docs/semantics.md 1.3)."""
    record: dict[str, str | None] = dict(contract.declaration)
    if record:
        record["scope"] = "selection" if selection and selection.partial else "full"
    return record


def _known_selection(contract: Contract, select: Sequence[str] | None) -> tuple[str, ...] | None:
    """The rule keys `select` names: a key, or a glob (`*`, `?`) matched against each key and
    against `OBJECT.KEY`, so `orders.*` is every rule of `orders`. A name or glob that matches
    nothing is a usage error with the closest key and every key."""
    if not select:
        return None if select is None else ()
    keys = [rule.key for rule in contract.rules]
    dotted = {f"{rule.target.object_name}.{rule.key}": rule.key for rule in contract.rules}
    chosen: list[str] = []
    for name in select:
        if not is_pattern(name):
            found = [name] if name in keys else []
        else:
            found = [*matching(name, keys), *(dotted[d] for d in matching(name, dotted))]
        if not found:
            close = closest(name, keys)
            hint = f"; did you mean '{close}'?" if close else ""
            raise UsageError(f"select '{name}' {'matches' if is_pattern(name) else 'names'} no "
                             f"rule of the contract{hint} (rule keys: {', '.join(keys)}; a glob "
                             "such as 'orders.*' selects every rule of an object)")
        chosen.extend(key for key in found if key not in chosen)
    return tuple(chosen)


def _categories(chosen: Iterable[Category | str] | None) -> tuple[Category, ...] | None:
    """`--category` (repeatable); None keeps every category."""
    if chosen is None:
        return None
    try:
        return tuple(Category(c) for c in chosen)
    except ValueError:
        raise UsageError("categories must be among: "
                         f"{', '.join(c.value for c in Category)}") from None


def _with_drift_rules(request: CheckRequest, contract: Contract) -> Contract:
    """`schema_drift` / `baseline`: drift rules join the contract's rules."""
    from packata_sql.contracts.drift import (
        OverrideError,
        SnapshotError,
        contract_drift_rules,
        load_snapshot,
        parse_overrides,
        snapshot_drift_rules,
    )

    baseline = request.baseline
    declared = request.schema_drift or contract.schema_drift is not None
    if not (declared or baseline):
        return contract
    overrides = {}
    for change, level in contract.schema_drift or contract.drift_overrides:
        try:
            overrides.update(parse_overrides([f"{change}={level}"]))
        except OverrideError:
            continue  # the loader's `invalid-drift-override` finding: the run cannot pass
    try:
        overrides.update(parse_overrides(request.drift))
    except OverrideError as error:
        raise UsageError(f"--drift: {error}") from None
    taken = {rule.key for rule in contract.rules}
    rules = contract_drift_rules(contract.objects, taken, overrides) if declared else []
    if baseline:
        try:
            objects = load_snapshot(Path(baseline).read_text(encoding="utf-8"))
        except OSError as error:
            raise UsageError(f"cannot read {baseline} ({error.strerror})") from None
        except UnicodeDecodeError:
            raise UsageError(f"{baseline}: not UTF-8 text; pass a file `schema snapshot` "
                             "wrote") from None
        except SnapshotError as error:
            raise UsageError(f"{baseline}: {error}") from None
        rules += snapshot_drift_rules(objects, baseline, taken, overrides)
    return replace(contract, rules=(*contract.rules, *rules))


def resolve_endpoint(contract: Contract, url: str | Endpoint | None, server: str | None,
                     trust_environment: bool) -> Endpoint:
    """The endpoint a run reads: `url`, else the contract's server (`server` picks one); an
    `Endpoint` is already resolved and is read as it is."""
    if isinstance(url, Endpoint):
        return url
    try:
        endpoint = parse_url(url) if url else from_server(contract, server)
    except EndpointError as error:
        raise UsageError(str(error)) from None
    if url and not endpoint.schema:
        endpoint = _server_schema(contract, endpoint)
    spec = engines.spec(endpoint.engine)
    if endpoint.in_memory and not spec.memory_read_only and not trust_environment:
        raise UsageError(
            f"an in-memory {spec.title} database cannot be opened read-only; point --url at a "
            "database file, or pass --trust-environment to accept an unenforced session"
        )
    return endpoint


def url_password_warning(endpoint: Endpoint) -> str | None:
    """The warning a password or token typed into the URL deserves (never showing it), or
    None when the URL holds none."""
    if endpoint.password_source == "url" and endpoint.password:
        return url_secret_warning(endpoint)
    return None


def _server_schema(contract: Contract, endpoint: Endpoint) -> Endpoint:
    """A URL without a schema keeps the schema of the contract's server for the same engine,
    so pointing at another host does not silently change which tables are read."""
    for candidate in contract.servers:
        try:
            declared = from_server(contract, candidate.name)
        except EndpointError:
            continue
        if declared.engine == endpoint.engine and declared.schema:
            return replace(endpoint, schema=declared.schema)
    return endpoint


def expressif_support() -> dict[str, dict[str, str]]:
    """The Expressif operations each engine packata-sql runs renders (`lint --expressif`):
    operation → engine → "portable" (one meaning everywhere) or "per-dialect" (spelled for
    that engine); an operation missing for an engine is a finding on it."""
    from packata_sql import engines
    from packata_sql.catalog.expressif import supported

    table: dict[str, dict[str, str]] = {}
    for spec in engines.connectable():
        for operation, how in supported(spec.name).items():
            table.setdefault(operation, {})[spec.name] = how
    return dict(sorted(table.items()))


def dialect_name(name: str) -> str | None:
    """The dialect a `--dialect` value names (a name or an alias, any case)."""
    spec = engines.named(name)
    return spec.name if spec else None


def dialect_hint(name: str) -> str:
    """What an unknown `--dialect` draws: the closest name or alias, and every dialect."""
    return choice_hint("dialect", name, COMPILE_DIALECTS, engines.names_and_aliases())


def contract_dialect(contract: Contract, default: str | None = None) -> str | None:
    """The dialect of the contract's first server whose type packata-sql renders (else
    `default`)."""
    for server in contract.servers:
        spec = engines.dialect_for_server_type(server.type)
        if spec is not None:
            return spec.name
        if server.type.lower() == "custom":
            for key in ("format", "engine", "driver"):
                value = server.setting(key)
                if isinstance(value, str) and dialect_name(value):
                    return dialect_name(value)
    return default


NO_CONTRACT = Contract("<url>", ())


# --- Contract diff (`packata-sql diff`, docs/api.md): two versions of a declaration compared
# by the drift table, no warehouse read. ---------------------------------------------------

if TYPE_CHECKING:
    from packata_sql.contracts.diff import ContractDiff
    from packata_sql.history import Kept, Pruned
    from packata_sql.history import Store as HistoryStore
    from packata_sql.trends import History


def diff(old: Contract | str | Path, new: Contract | str | Path, *,
         drift: Iterable[str] = ()) -> ContractDiff:
    """What changed from `old` to `new` (contracts, or paths `load` reads), each change
    classified by the schema-drift table plus the rule keys (`contracts/diff.py`); `drift`:
    `KEY=compatible|warning|breaking` overrides, on top of those the new contract declares."""
    from packata_sql.contracts.diff import CHANGE_KEYS, declared_overrides, diff_contracts
    from packata_sql.contracts.drift import OverrideError, parse_overrides

    before = old if isinstance(old, Contract) else load(old)
    after = new if isinstance(new, Contract) else load(new)
    try:
        chosen = parse_overrides(drift, CHANGE_KEYS)
    except OverrideError as error:
        raise UsageError(f"--drift: {error}") from None
    return diff_contracts(before, after, {**declared_overrides(after), **chosen})
# --- Starter contracts from what exists: `init`, `import sql`, `import dbt` (docs/api.md) ---

@dataclass(frozen=True)
class Starter:
    """A starter ODCS contract: its YAML text, the objects it declares and what its source
    states that has no ODCS equivalent (also written as comments in the text)."""

    text: str
    objects: tuple[str, ...]
    not_imported: tuple[str, ...] = ()
    #: The engine of the server entry written, if any.
    engine: str | None = None


def init_contract(url: str | Endpoint, *, objects: Sequence[str] = (),
                  schema: str | None = None, folder: str | Path | None = None) -> Starter:
    """A contract from the warehouse's catalog, read through the read-only session (column
    facts, never rows): `objects` are names or globs (`orders*`), `schema` a schema whose every
    table and view is declared when no `objects` are given. `folder` is where the contract
    will live (a file database's path is written relative to it). Raises `UsageError` for an
    object that cannot be read (with the closest name) and `errors.Unreachable` when no
    session opens."""
    from packata_sql.starter.document import contract_text, server_entry
    from packata_sql.starter.warehouse import read_objects, starter_object

    try:
        endpoint = url if isinstance(url, Endpoint) else parse_url(url)
    except EndpointError as error:
        raise UsageError(str(error)) from None
    read = read_objects(endpoint, objects, schema)
    dialect = get_dialect(read.endpoint.engine)
    starters = [starter_object(obj, dialect) for obj in read.objects]
    names = tuple(obj.name for obj in read.objects)
    label = names[0] if len(names) == 1 else (read.schema or Path(endpoint.database).stem)
    where = Path(folder) if folder is not None else Path.cwd()
    text = contract_text(starters, contract_id=f"urn:packata-sql:{label}",
                         source=f"{', '.join(names)} ({endpoint.engine})",
                         servers=[server_entry(read.endpoint, read.schema, where)])
    return Starter(text, names, engine=endpoint.engine)


def import_sql(paths: Sequence[str | Path], dialect: str, *, url: str | None = None,
               folder: str | Path | None = None) -> Starter:
    """A contract from SQL DDL files written in `dialect` (read with sqlglot; nothing is
    connected to). `url`, when given, becomes the contract's server entry (its password is
    not written). Raises `UsageError` for DDL that cannot be parsed (file, line, column)."""
    from packata_sql.starter.ddl import import_files

    name = _import_dialect(dialect)
    objects = import_files(paths, get_dialect(name))
    return _starter(objects, Path(paths[0]).stem, ", ".join(map(str, paths)), url, folder)


def import_dbt(manifest: str | Path, *, models: Sequence[str] = (), url: str | None = None,
               folder: str | Path | None = None) -> Starter:
    """A contract from a dbt `manifest.json`: its models (or those `models` names or globs
    designate), their columns, descriptions and data types, and the dbt tests ODCS can state
    (`unique`, `not_null`, `accepted_values`; `relationships` as a documented SQL rule)."""
    from packata_sql.starter.dbt_manifest import import_manifest

    objects, project, schema = import_manifest(Path(manifest), models)
    return _starter(objects, project, str(manifest), url, folder, schema)


def _import_dialect(dialect: str) -> str:
    from packata_sql.spelling import closest_hint

    name = dialect_name(dialect)
    if name is None or name not in COMPILE_DIALECTS:
        known = engines.names_and_aliases()
        raise UsageError(f"--dialect: {closest_hint('dialect', dialect, known)} (one of: "
                         f"{', '.join(known)})")
    return name


def _starter(objects: Sequence[Any], label: str, source: str, url: str | None,
             folder: str | Path | None, schema: str | None = None) -> Starter:
    """The contract text; `url` its server entry, `schema` the schema to declare when the
    URL names none (a dbt project's)."""
    from packata_sql.starter.document import contract_text, server_entry

    servers = []
    engine = None
    if url:
        try:
            endpoint = parse_url(url)
        except EndpointError as error:
            raise UsageError(str(error)) from None
        if schema and not endpoint.schema:
            endpoint = replace(endpoint, schema=(schema,))
        spec = engines.spec(endpoint.engine)
        if endpoint.engine in engines.of_kind(engines.NETWORK) and not spec.schema_is_database \
                and not endpoint.schema:
            raise UsageError(f"--url: a {spec.title} server entry needs its schema: add "
                             "?schema=NAME to the URL")
        where = Path(folder) if folder is not None else Path.cwd()
        servers.append(server_entry(endpoint, endpoint.declared_schema, where))
        engine = endpoint.engine
    text = contract_text(objects, contract_id=f"urn:packata-sql:{label}", source=source,
                         servers=servers)
    notes = tuple(note for obj in objects for note in obj.not_imported())
    return Starter(text, tuple(obj.name for obj in objects), notes, engine)


# --- lint: the contract without a database ---------------------------------------------------


@dataclass(frozen=True)
class Linted:
    """What `lint` reports: the contract, every problem (schema breaks, then the loader's and
    the compiler's findings) ordered by line, and how many rules would execute."""

    contract: Contract
    problems: tuple[Problem, ...]
    executable: int


def lint(path: str | Path, *, odcs_between: str = "exclusive") -> Linted:
    """The declaration checked without a database: against the official ODCS JSON Schema of
    its apiVersion (bundled), and the findings of the loader and of the compiler for the
    contract's own engine (DuckDB when it names none). Raises `DeclarationError` for a file
    that cannot be read."""
    declared = load_source(path, odcs_between=odcs_between)
    if declared.loaded is None:  # JSON that YAML cannot read: lint reads YAML, and says why not
        from packata_sql.contracts.yaml_source import load_yaml_file

        try:
            declared = replace(declared, loaded=load_yaml_file(str(path)))
        except SourceError as error:
            raise DeclarationError(str(error)) from None
    plans = own_plans(declared.contract)
    problems = distinct([*schema_problems(declared), *_problems(declared.contract, plans)])
    problems.sort(key=lambda p: (p.line or 0, p.code))
    return Linted(declared.contract, tuple(problems), plans.compiled.executable)


def contract_problems(contract: Contract, plans: Plans | None = None) -> list[Problem]:
    """The loader's findings plus the compiler's for the contract's own engine (DuckDB when it
    names none): unknown metrics and arguments are only known there. `plans`: `own_plans`
    of the contract, when the caller has them already."""
    return _problems(contract, own_plans(contract) if plans is None else plans)


def schema_problems(declared: Declared) -> list[Problem]:
    """Where the document breaks the official ODCS schema of its version (none for a document
    that was not read as YAML/JSON, such as a policy)."""
    return official.schema_problems(declared.loaded) if declared.loaded is not None else []


def _problems(contract: Contract, plans: Plans) -> list[Problem]:
    findings = list(contract.findings)
    findings += [f for f in plans.findings if f not in findings]
    return [Problem(_lint_level(f), f.code, f.source_path, f.line, f.message) for f in findings]


def _lint_level(finding: Finding) -> str:
    """A rule that is not executable by design (an ODCS `text` rule, a `custom` rule for another
    tool) is valid ODCS: `lint` warns about it. `check` still skips it and ends incomplete unless
    it is accepted (`accept_unexecutable`)."""
    from packata_sql.plans.compiler import NOT_EXECUTABLE_BY_DESIGN

    if finding.code in NOT_EXECUTABLE_BY_DESIGN:
        return "warning"
    return finding.level.value


def own_plans(contract: Contract) -> Plans:
    """The plans for the contract's own engine (DuckDB when it names none): what `lint` reads
    the compiler's findings from. `check_endpoint` reuses them (`plans=`) for a run on that
    engine, so a check compiles the contract once."""
    return compile(contract, contract_dialect(contract, default="duckdb") or "duckdb")


# --- looking at an endpoint without checking it ----------------------------------------------


def doctor(contract: Contract | None, endpoint: str | Endpoint, *, from_url: bool = True,
           trust_environment: bool = False, timeout: float = 10.0) -> Diagnosis:
    """Which login a run would use and where it came from (never a secret), the read-only
    level it would get and, with a contract, whether every declared object and column is
    there. `endpoint` is a URL or an `Endpoint`; `from_url` says the login came from a URL
    (not from the contract's server and its PACKATA_<SERVER>_* variables)."""
    from packata_sql.run.inspect import diagnose

    resolved = resolve_endpoint(contract or NO_CONTRACT, endpoint, None, trust_environment)
    return diagnose(resolved, contract, from_url=from_url, trust_environment=trust_environment,
                    timeout_s=timeout)


def snapshot(endpoint: str | Endpoint, objects: Sequence[str], *,
             trust_environment: bool = False) -> str:
    """Each object's live columns (name, type, nullability, key position) as the deterministic
    JSON `check(baseline=…)` compares with; reads the catalog, never data. Raises
    `UsageError` naming the object that cannot be read (with a did-you-mean)."""
    from packata_sql.run.inspect import read_snapshot

    resolved = resolve_endpoint(NO_CONTRACT, endpoint, None, trust_environment)
    return read_snapshot(resolved, objects, trust_environment=trust_environment)


# --- the dbt gate ----------------------------------------------------------------------------


def gate_plan(contract: Contract, contract_text: bytes, object_name: str, model: str,
              dialects: Sequence[str], findings: list[Finding] | None = None) -> dict[str, Any]:
    """The dbt gate's plan for one contract object mapped to one dbt model (format
    `packata-sql/dbt-plan@1`): each rule compiled per dialect with the relation left as gaps
    the runtime fills with `this`. The compiler's findings are added to `findings`."""
    from packata_sql.plans.gate import plan_document

    return plan_document(contract, contract_text, object_name, model, dialects, findings)


def gate_rules(contract: Contract, object_name: str) -> list[Rule]:
    """The object's rules the dbt gate runs: every row-reading rule (catalog checks need a
    session: `check --dbt-project` runs them)."""
    from packata_sql.plans import gate

    return gate.gate_rules(contract, object_name)


def gate_login_checks() -> Mapping[str, str]:
    """The SQL the dbt runtime runs before any SQL rule where the adapter's engine has escape
    routes, the same questions a session asks: `risky_login` (a route out of read-only mode)
    and `unfollowed_calls`."""
    from packata_sql.sessions.postgres_routes import any_route_sql, unfollowed_calls_sql

    return {"risky_login": any_route_sql(), "unfollowed_calls": unfollowed_calls_sql()}


# The run history (docs/cli.md, history; docs/semantics.md, run history). `store` is a path,
# `sqlite:///FILE`, `postgresql://…` or `duckdb:///FILE`; None is `.packata/history.sqlite`.

def check_with_history(report: Report, store: str | None = None, *,
                       endpoint: Endpoint | None = None, last: int = 20,
                       flag_anomalies: bool = False, timeout: float | None = None) -> Kept:
    """What `check --history` does after the run, for any caller holding a `Report`: append
    it to the store (with any runs spooled earlier), attach the contract's last `last` runs,
    this one included, as `Kept.report.history` and, with `flag_anomalies`, each rule's
    anomaly note. A store that cannot be written never raises: the report is returned as it
    was, the run spooled, `Kept.warning` says so. The verdict is never changed. `endpoint`
    (the checked target) guards against keeping the history inside the warehouse."""
    from packata_sql import history

    chosen = history_store(store, endpoint)
    _positive_count(last, "last")
    return history.keep(report, chosen, last=last, flag_anomalies=flag_anomalies,
                        timeout=timeout or history.DEFAULT_TIMEOUT_S)


def record_run(report: Report, store: str | None = None, *, run_id: str | None = None,
               endpoint: Endpoint | None = None) -> str:
    """Appends one run to the store in one transaction and returns its run id (a run id
    already stored writes nothing). Raises `StoreUnavailable` when the store cannot take it."""
    from packata_sql import history

    return history.record(report, history_store(store, endpoint), run_id=run_id)


def read_history(store: str | None = None, *, contract_id: str | None = None,
                 rule: str | None = None, last: int = 20) -> tuple[History, ...]:
    """Per contract (or only `contract_id`), its last `last` runs and each rule's points,
    newest contract first. A store that does not exist yet is a `UsageError`."""
    from packata_sql import history

    _positive_count(last, "last")
    try:
        return history.read(history.locate(store), contract_id=contract_id, rule=rule,
                            last=last)
    except history.StoreUnavailable as error:
        raise UsageError(str(error)) from None


def prune_history(store: str | None = None, *, keep_days: int | None = None,
                  keep_runs: int | None = None) -> Pruned:
    """Deletes runs observed more than `keep_days` ago, or all but each contract's newest
    `keep_runs`, with their rules, in one transaction."""
    from packata_sql import history

    if (keep_days is None) == (keep_runs is None):
        raise UsageError("prune needs one of keep_days or keep_runs (--keep-days D or "
                         "--keep-runs N)")
    for value, name in ((keep_days, "keep_days"), (keep_runs, "keep_runs")):
        if value is not None and (not isinstance(value, int) or value < 0):
            raise UsageError(f"{name} must be a whole number, 0 or more")
    try:
        return history.prune(history.locate(store), keep_days=keep_days, keep_runs=keep_runs)
    except history.StoreUnavailable as error:
        raise UsageError(str(error)) from None


def _positive_count(value: int, name: str) -> None:
    if not isinstance(value, int) or value < 1:
        raise UsageError(f"{name} must be a whole number, 1 or more")


def history_store(store: str | None = None, endpoint: Endpoint | None = None) -> HistoryStore:
    """The store `store` names (a `UsageError` for an address that is none), refused when it
    is the checked target itself: the warehouse is only ever read, through its read-only
    session. Nothing is connected to: the CLI asks before the run starts."""
    from packata_sql import history

    chosen = history.locate(store)
    if endpoint is not None and _same_database(chosen, endpoint):
        raise UsageError(f"--history: the store {chosen.shown} is the checked target itself; "
                         "keep the history in another database (the warehouse is only read)")
    return chosen


_LOCAL_HOSTS = frozenset({None, "", "localhost", "127.0.0.1", "::1"})


def _same_database(store: HistoryStore, endpoint: Endpoint) -> bool:
    """The store's file is the target's file, or its server and database are the target's
    (a store family the target's engine reads by URL scheme, from the registry)."""
    spec = engines.spec(endpoint.engine)
    if spec.kind == engines.FILE:
        return not endpoint.in_memory and store.same_file(Path(endpoint.database))
    if store.path is not None or store.family not in spec.url_schemes:
        return False
    url = store.url
    host = url.host if url.host not in _LOCAL_HOSTS else "localhost"
    other = endpoint.host if endpoint.host not in _LOCAL_HOSTS else "localhost"
    port = spec.default_port
    return (host, url.port or port, url.database) == (other, endpoint.port or port,
                                                       endpoint.database)
