"""Fuses the library measurements on one object into one `SELECT … FROM object`, so a
contract costs one scan per object rather than one per rule."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import sqlglot.expressions as exp

from packata_sql.catalog import EngineRefused, MeasureContext, TypeMismatch
from packata_sql.contracts.model import Finding, Level
from packata_sql.dialects import Dialect, DistinctPlan, Family
from packata_sql.plans.compiler import AnyPlan, CatalogPlan, ObservationPlan, Plan, SqlPlan
from packata_sql.plans.expressif import bound_markers

ROWS_ALIAS = "packata_rows"
#: Where the dialect counts distinct keys apart (DistinctPlan.APART, Spark: several
#: COUNT(DISTINCT) in one aggregate copy every input row once per key), from SPLIT_FROM
#: single-column distinct keys on one object the other measurements share one scan and each
#: distinct key gets its own statement. Measured at 1M rows (benchmarks/README.md): 2 keys
#: split/fused 1.05, 3 keys 0.56, 4 keys 0.36, 6 keys 0.40; 5M rows with 6 keys: 23-59 s
#: against 95-204 s fused (research/spark section 5).
SPLIT_FROM = 3
#: The measurements that count distinct keys: library duplicateValues, constraints unique and
#: primaryKey.
DISTINCT_MEASURES = frozenset({"duplicateValues", "unique", "primaryKey"})


@dataclass(frozen=True)
class Scan:
    """One statement over one object. Column 0 counts rows; column i+1 belongs to plans[i]."""

    object_segments: tuple[str, ...]
    plans: tuple[Plan, ...]
    sql: str
    #: Rules left out because their column type cannot be compared without a cast.
    mismatched: tuple[Plan, ...] = ()
    #: Warnings rendering raised for a plan (a member its column cannot hold).
    notes: tuple[tuple[Plan, str], ...] = ()
    #: The parameters `sql` reads (an Expressif variable), in marker order, or each name
    #: once where the dialect binds by name; the values are the run's, or `bindings`.
    parameters: tuple[str, ...] = ()
    bindings: tuple[tuple[str, object], ...] = ()
    #: Rules left out because the engine's server cannot give them their meaning, with the
    #: finding's code and message (PostgreSQL without the "C.utf8" collation).
    refused: tuple[tuple[Plan, str, str], ...] = ()

    def findings(self) -> list[Finding]:
        """The notes as the warnings `check` and `compile` report, each at its rule's line,
        and the rules the engine refused, as the errors their compilation would have been."""
        return [*(Finding("member-not-representable", note, plan.rule.source_path,
                          Level.WARNING, rule_key=plan.rule.key, line=plan.rule.line)
                  for plan, note in self.notes),
                *(Finding(code, message, plan.rule.source_path, Level.ERROR,
                          rule_key=plan.rule.key, line=plan.rule.line)
                  for plan, code, message in self.refused)]


def group_by_object(plans: Sequence[Plan]) -> list[tuple[tuple[str, ...], list[Plan]]]:
    """Plans grouped per object, objects in order of their first rule."""
    groups: dict[tuple[str, ...], list[Plan]] = {}
    for plan in plans:
        groups.setdefault(plan.object_segments, []).append(plan)
    return list(groups.items())


@dataclass
class ObjectWork:
    """The plans of one object: catalog checks read its column facts, the rest one scan."""

    segments: tuple[str, ...]
    plans: list[Plan] = field(default_factory=list)
    catalog: list[CatalogPlan] = field(default_factory=list)


def work_units(ordered: Sequence[AnyPlan]) -> list[ObjectWork | SqlPlan | ObservationPlan]:
    """The ordered plan union as units of work, in the order of each unit's first plan: one
    per object (its catalog checks and its one scan), one per authored SQL rule and one per
    Expressif observation (which reads no object)."""
    objects: dict[tuple[str, ...], ObjectWork] = {}
    work: list[ObjectWork | SqlPlan | ObservationPlan] = []
    for plan in ordered:
        if isinstance(plan, SqlPlan | ObservationPlan):
            work.append(plan)
            continue
        unit = objects.get(plan.object_segments)
        if unit is None:
            unit = objects[plan.object_segments] = ObjectWork(plan.object_segments)
            work.append(unit)
        if isinstance(plan, CatalogPlan):
            unit.catalog.append(plan)
        else:
            unit.plans.append(plan)
    return work


def build_scan(
    segments: tuple[str, ...],
    plans: Sequence[Plan],
    dialect: Dialect,
    families: Mapping[str, Family | None],
    native_types: Mapping[str, str] | None = None,
    *,
    share_aggregates: bool = True,
    pretty: bool = False,
) -> Scan:
    """`native_types`: the columns' types as the catalog names them, where read, so members
    and bounds are checked against them (catalog/holding.py). `share_aggregates=False` writes
    each aggregate where it is used (benchmarks/constraints.py compares the two statements).
    `pretty`: `sql` laid out for reading (`compile --format sql`), the same statement."""
    table = dialect.table(segments)
    zones = {name: zone for plan in plans
             for name, zone in zip(plan.columns, plan.declared_zones, strict=False) if zone}
    context = MeasureContext(dialect, table, families,
                             {} if native_types is None else native_types, zones=zones)
    counts: list[exp.Expr] = []
    measured: list[Plan] = []
    mismatched: list[Plan] = []
    notes: list[tuple[Plan, str]] = []
    refused: list[tuple[Plan, str, str]] = []
    for plan in plans:
        try:
            count = plan.count(context)
        except EngineRefused as problem:
            refused.append((plan, problem.code, problem.message))
            continue
        except TypeMismatch:
            mismatched.append(plan)
            continue
        finally:
            notes += [(plan, note) for note in context.take_notes()]
        lifted = dialect.distinct_plan is DistinctPlan.SCALAR_SUBQUERIES
        counts.append(_distinct_apart(count, table) if lifted else count)
        measured.append(plan)
    # Every tree here is this call's own (the handlers build fresh ones) and is rendered once:
    # nothing is copied on the way into the statement, nor by rendering it.
    statement = (_shared_aggregates(counts, table) if share_aggregates else None) or exp.select(
        _rows_column(), *(_measure_column(i, c) for i, c in enumerate(counts))
    ).from_(table, copy=False)
    _own_nodes(statement)
    sql, parameters = bound_markers(dialect.render(statement, pretty=pretty, copy=False), dialect)
    bindings = tuple(dict(b for plan in measured for b in plan.bindings).items())
    return Scan(segments, tuple(measured), sql, tuple(mismatched), tuple(notes), parameters,
                bindings, tuple(refused))


def _own_nodes(tree: exp.Expr) -> None:
    """Gives every place in `tree` its own node, with its parent link. A handler may place one
    node (a column) at two places; a generator that rewrites the tree it renders through
    parent links would change it at one only. Rendering with copy=False relies on this (the
    copy it spares would have split them); one walk, copying only what is placed twice."""
    seen = {id(tree)}
    stack = [tree]
    while stack:
        node = stack.pop()
        for key, value in node.args.items():
            items = value if isinstance(value, list) else [value]
            for index, item in enumerate(items):
                if not isinstance(item, exp.Expr):
                    continue
                if id(item) in seen:
                    item = item.copy()
                    if isinstance(value, list):
                        value[index] = item
                    else:
                        node.args[key] = item
                seen.add(id(item))
                item.parent, item.arg_key = node, key
                item.index = index if isinstance(value, list) else None
                stack.append(item)


def _rows_column() -> exp.Expr:
    return exp.alias_(exp.Count(this=exp.Star()), ROWS_ALIAS, quoted=True)


def _measure_column(index: int, count: exp.Expr) -> exp.Expr:
    return exp.alias_(count, f"m{index + 1}", quoted=True, copy=False)


def _distinct_apart(count: exp.Expr, table: exp.Table) -> exp.Expr:
    """The count with each of its own COUNT(DISTINCT …) as `(SELECT COUNT(DISTINCT …) FROM
    table)`: the same number (the scan reads the whole table, rule filters sit inside the
    aggregate), counted in a pipeline of its own (`DistinctPlan.SCALAR_SUBQUERIES`)."""
    for node in _aggregates(count):
        if isinstance(node, exp.Count) and isinstance(node.this, exp.Distinct):
            lifted = exp.select(node.copy()).from_(table.copy()).subquery()
            if node is count:
                return lifted
            node.replace(lifted)
    return count


def _aggregates(node: exp.Expr) -> list[exp.Expr]:
    """The outermost aggregates and scalar subqueries of one count, in order."""
    if isinstance(node, exp.AggFunc | exp.Subquery):
        return [node]
    return [found for child in node.iter_expressions() for found in _aggregates(child)]


def _shared_aggregates(counts: list[exp.Expr], table: exp.Table) -> exp.Select | None:
    """When measurements repeat an aggregate (a `required` next to a nullValues on the same
    column, `unique` or `primaryKey` next to duplicateValues on the same key), each aggregate
    is computed once in an inner SELECT and every measurement reads it from there, still one
    statement and one column per plan: engines such as MariaDB evaluate a repeated
    COUNT(DISTINCT) twice (measured in benchmarks/README.md). None when nothing but COUNT(*)
    repeats: the flat statement is the plainer one."""
    found = [node for count in counts for node in _aggregates(count)]
    rows = exp.Count(this=exp.Star())
    if not _repeated(found, rows):
        return None
    if any(_bare_column(count) for count in counts):
        return None  # an aggregate this planner does not recognise: keep the flat statement
    names: dict[exp.Expr, str] = {rows: ROWS_ALIAS}
    for node in found:
        names.setdefault(node, f"a{len(names)}")
    # `counts` are this call's own: each becomes its outer column in place (no copy), and the
    # first of each repeated aggregate moves into the inner SELECT.
    outer = [_read_shared(count, names) for count in counts]
    inner = exp.select(*(exp.alias_(node, name, quoted=True, copy=False)
                         for node, name in names.items())).from_(table, copy=False)
    return exp.select(exp.column(ROWS_ALIAS, quoted=True),
                      *(_measure_column(i, c) for i, c in enumerate(outer))
                      ).from_(inner.subquery("packata_aggregates", copy=False), copy=False)


def _repeated(found: list[exp.Expr], rows: exp.Expr) -> bool:
    """Whether an aggregate other than `rows` occurs twice. Trees are compared (which hashes
    each whole) only where two share their shape, the types of the node and of its first
    argument: a rule's own statement then hashes nothing, and the fused one stays linear."""
    shapes: dict[tuple[type, type], list[exp.Expr]] = {}
    for node in found:
        shapes.setdefault((type(node), type(node.this)), []).append(node)
    for group in shapes.values():
        if len(group) > 1:
            others = [node for node in group if node != rows]
            if len(set(others)) < len(others):
                return True
    return False


def _bare_column(node: exp.Expr) -> bool:
    """Whether `node` reads a column outside all of its aggregates and scalar subqueries."""
    if isinstance(node, exp.AggFunc | exp.Subquery):
        return False
    return isinstance(node, exp.Column) or any(_bare_column(child)
                                               for child in node.iter_expressions())


def _read_shared(node: exp.Expr, names: Mapping[exp.Expr, str]) -> exp.Expr:
    """`node` with each outermost aggregate and subquery replaced, in place, by the column of
    the inner SELECT that computes it. It walks the arguments, not parent links, so a node a
    handler placed twice is replaced at both places."""
    if isinstance(node, exp.AggFunc | exp.Subquery):
        return exp.column(names[node], quoted=True)
    for key, value in list(node.args.items()):
        if isinstance(value, exp.Expr):
            node.set(key, _read_shared(value, names))
        elif isinstance(value, list):
            node.set(key, [_read_shared(v, names) if isinstance(v, exp.Expr) else v
                           for v in value])
    return node


def plan_scans(
    segments: tuple[str, ...],
    plans: Sequence[Plan],
    dialect: Dialect,
    families: Mapping[str, Family | None],
    native_types: Mapping[str, str] | None = None,
    *,
    pretty: bool = False,
) -> list[Scan]:
    """The statements measuring one object: one fused scan, or where the dialect counts
    distinct keys apart and there are SPLIT_FROM single-column distinct keys or more, one scan
    for the non-distinct metrics plus one per distinct key (`pretty`: as build_scan's)."""
    shared: list[Plan] = []
    keyed: dict[tuple[str, ...], list[Plan]] = {}
    for plan in plans:
        measure = getattr(plan.library, "metric", None) or getattr(plan.library, "kind", None)
        if measure in DISTINCT_MEASURES:
            keyed.setdefault(plan.columns, []).append(plan)
        else:
            shared.append(plan)
    single_keys = sum(1 for key in keyed if len(key) == 1)
    if dialect.distinct_plan is not DistinctPlan.APART or single_keys < SPLIT_FROM:
        return [build_scan(segments, plans, dialect, families, native_types, pretty=pretty)]
    groups = ([shared] if shared else []) + list(keyed.values())
    return [build_scan(segments, group, dialect, families, native_types, pretty=pretty)
            for group in groups]


def declared_families(plans: Sequence[Plan], dialect: Dialect) -> dict[str, Family | None]:
    """Column families known without a database (for `compile`): the declared logical types,
    or DYNAMIC on an engine where any cell may hold any type."""
    from packata_sql.catalog.base import logical_family

    return {  # a nested field's own family is its context's (MeasureContext.family)
        name: Family.DYNAMIC if dialect.dynamic_typing else logical_family(declared)
        for plan in plans if not plan.fields
        for name, declared in zip(plan.columns, plan.declared_types, strict=True)
    }


def declared_native_types(plans: Sequence[Plan], dialect: Dialect) -> dict[str, str]:
    """Column types known without a database (for `compile`): the declared physicalTypes, so
    members and bounds are checked against them as a run checks them against the catalog's."""
    if dialect.dynamic_typing:
        return {}
    # strict=False: a plan built without declared physical types (tests, tools) has none.
    return {name: physical for plan in plans if not plan.fields
            for name, physical in zip(plan.columns, plan.declared_physical, strict=False)
            if physical}


INSPECT_LIMIT = 20


def inspect_query(segments: tuple[str, ...], plan: Plan, dialect: Dialect,
                  families: Mapping[str, Family | None],
                  native_types: Mapping[str, str] | None = None) -> exp.Select | None:
    """The handler's query listing offending keys, or None (a row count blames no row).
    `native_types`: the catalog's, so a nested field reads as the scan read it."""
    from packata_sql.catalog import MetricHandler
    from packata_sql.catalog.constraints import ConstraintHandler
    from packata_sql.catalog.expressif_rules import ExpressifHandler, ExpressifRule
    from packata_sql.contracts.model import Library

    context = plan.context(MeasureContext(dialect, dialect.table(segments), families,
                                          {} if native_types is None else native_types))
    try:
        if isinstance(plan.library, Library):
            assert isinstance(plan.handler, MetricHandler)
            return plan.handler.inspect(plan.rule, plan.library, context, plan.columns)
        if isinstance(plan.library, ExpressifRule):
            assert isinstance(plan.handler, ExpressifHandler)
            return plan.handler.inspect(plan.rule, plan.library, context, plan.columns)
        assert isinstance(plan.handler, ConstraintHandler)
        return plan.handler.inspect(plan.rule, plan.library, context, plan.columns)
    except TypeMismatch:
        return None


def inspect_sql(query: exp.Select, dialect: Dialect) -> str:
    """What a user runs to see the offending keys: the first INSPECT_LIMIT of them. The
    limit is set on `query` itself (the caller's last use of it; rendering copies it)."""
    return dialect.render(query.limit(exp.Literal.number(INSPECT_LIMIT), copy=False))


#: The most distinct offending values `--samples` lists for one rule, whatever N asks.
SAMPLE_LIMIT = 20
#: What a withheld (classified) value reads as in a sample: whether it is NULL, nothing more.
WITHHELD = "withheld"


@dataclass(frozen=True)
class SampleColumns:
    """The columns of the one row a sample query returns, by position: the offending rows
    (`total`), how many of them hold a NULL value (`nulls`), the distinct values (`distinct`),
    then per shown value its rows (`n`), its value cells and one such row's key cells (all as
    text, typed again from the columns' families)."""

    values: int
    keys: int
    limit: int

    @property
    def width(self) -> int:
        return 1 + self.values + self.keys


def sample_sql(query: exp.Select, dialect: Dialect, limit: int,
               keys: Sequence[exp.Expr] = (), withheld: frozenset[int] = frozenset(),
               withheld_keys: frozenset[int] = frozenset(),
               text_ordered: frozenset[int] = frozenset()) -> tuple[str, SampleColumns] | None:
    """`--samples`: the offending rows of `query` (a rule's inspect query) deduplicated by
    value, the most frequent first, each value with its count and one row's `keys` (the
    object's primary key), up to `limit` values, folded into ONE row of text cells so the
    read-only single-row path fetches it. A value at a position in `withheld` (a classified
    column) is read only as NULL or `withheld`; a withheld key is not read at all. A grouped
    query (repeated keys with their `occurrences`) is one value per row already. Nothing in it
    comes from a fetched row: its only literals are the rule's own. A key at a position in
    `text_ordered` (a type without an ordering, such as PostgreSQL's `json`) sorts by its text.
    None when `query` lists every column (`*`) and no key is known."""
    limit = max(1, min(limit, SAMPLE_LIMIT))
    star = any(isinstance(e, exp.Star) for e in query.expressions)
    grouped = query.args.get("group") is not None
    shown = [] if star else list(query.expressions)
    occurrences = shown.pop() if grouped else None  # `COUNT(*) AS occurrences`, last
    if grouped:
        keys = ()  # a repeated key is its own key
    if star and not keys:
        return None
    cells: list[exp.Expr] = []
    for index, expression in enumerate(shown):
        cell = expression.unalias() if isinstance(expression, exp.Alias) else expression
        cells.append(_withheld(cell) if index in withheld else dialect.sample_text(cell))
    key_cells = [exp.Null() if index in withheld_keys else dialect.sample_text(key.copy())
                 for index, key in enumerate(keys)]
    values = [f"v{i}" for i in range(len(cells))]
    key_names = [f"k{i}" for i in range(len(key_cells))]
    inner = query.copy()
    selected = [exp.alias_(c, n, quoted=True) for c, n in zip(cells, values, strict=True)]
    selected += [exp.alias_(c, n, quoted=True) for c, n in zip(key_cells, key_names, strict=True)]
    order_names = [f"o{i}" for i in range(len(keys))]  # the key as it sorts, for the example
    selected += [exp.alias_(dialect.sample_text(k.copy()) if i in text_ordered else k.copy(), n,
                            quoted=True) for i, (k, n) in enumerate(zip(keys, order_names,
                                                                        strict=True))]
    if grouped:
        assert occurrences is not None
        selected.append(exp.alias_(occurrences.unalias(), "n", quoted=True))
    inner.set("expressions", selected or [exp.alias_(exp.Literal.number(1), "v", quoted=True)])
    inner.set("limit", None)
    ranked = _ranked(inner.subquery("packata_offending"), values, order_names, grouped, dialect)
    rank, first, count = (exp.column(n, quoted=True) for n in ("rk", "r", "n"))
    one, zero = exp.Literal.number(1), exp.Literal.number(0)
    is_first = exp.EQ(this=first.copy(), expression=one.copy())
    folded: list[exp.Expr] = [
        exp.Sum(this=exp.Case().when(is_first.copy(), count.copy()).else_(zero.copy())),
        exp.Sum(this=exp.Case().when(
            exp.and_(is_first.copy(), exp.Is(this=exp.column(values[0], quoted=True),
                                               expression=exp.Null())), count.copy())
            .else_(zero.copy())) if values else zero.copy(),
        exp.Sum(this=exp.Case().when(is_first.copy(), one.copy()).else_(zero.copy())),
    ]
    for position in range(1, limit + 1):
        here = exp.and_(is_first.copy(), exp.EQ(this=rank.copy(),
                                                 expression=exp.Literal.number(position)))
        for name in ("n", *values, *key_names):
            folded.append(exp.Max(this=exp.Case().when(here.copy(),
                                                        exp.column(name, quoted=True))))
    sql = dialect.render(exp.select(*folded).from_(ranked.subquery("packata_ranked")))
    return sql, SampleColumns(len(values), len(key_names), limit)


def _withheld(cell: exp.Expr) -> exp.Expr:
    return exp.Case().when(exp.Is(this=cell, expression=exp.Null()), exp.Null()) \
        .else_(exp.Literal.string(WITHHELD))


def _ordered(name: str, desc: bool = False) -> exp.Ordered:
    return exp.Ordered(this=exp.column(name, quoted=True), desc=desc, nulls_first=not desc)


def _ranked(offending: exp.Subquery, values: list[str], keys: list[str],
            grouped: bool, dialect: Dialect) -> exp.Select:
    """The offending rows with `r` (1 on the first row of each value, by `keys`, the key
    columns in their own type), `n` (the rows
    holding that value) and `rk` (the rows ranked: each value's first row before any other,
    the most frequent value first)."""
    star = exp.Star()
    if grouped:  # one row per value, `n` its occurrences
        numbered = exp.select(star, exp.alias_(exp.Literal.number(1), "r", quoted=True)) \
            .from_(offending)
    else:
        # Values apart byte for byte, as the counts keep them ('a', 'A' and 'a ' are three).
        group = [dialect.binary_key(exp.column(v, quoted=True)) for v in values] or \
            [exp.column(k, quoted=True) for k in keys]  # keys alone: each row its own
        by_key = exp.Order(expressions=[_ordered(k) for k in keys] or
                           [_ordered(v) for v in values] or [exp.Ordered(this=exp.Literal.number(1))])
        numbered = exp.select(
            star,
            exp.alias_(exp.Window(this=exp.RowNumber(), partition_by=group, order=by_key),
                       "r", quoted=True),
            exp.alias_(exp.Window(this=exp.Count(this=exp.Star()), partition_by=group),
                       "n", quoted=True),
        ).from_(offending)
    by_rank = exp.Order(expressions=[_ordered("r"), _ordered("n", desc=True),
                                     *(_ordered(v) for v in values or keys)])
    return exp.select(star, exp.alias_(exp.Window(this=exp.RowNumber(), order=by_rank), "rk",
                                       quoted=True)).from_(numbered.subquery("packata_numbered"))
