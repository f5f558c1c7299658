"""`import sql`: SQL DDL read with sqlglot in the dialect it was written for. CREATE TABLE gives
an object with its columns (type → logicalType and physicalType, NOT NULL → required, PRIMARY
KEY → primaryKey and its position, single-column UNIQUE → unique), CHECK constraints ODCS can
state (a numeric range → logicalTypeOptions minimum/maximum, an IN list → an `invalidValues`
rule; both, like CHECK, leave NULLs alone) and foreign keys as a documented SQL rule; CREATE
VIEW gives an object with the view's named columns. Anything else is listed as not imported,
with the reason."""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from pathlib import Path

import sqlglot
import sqlglot.expressions as exp
from sqlglot.errors import ErrorLevel, ParseError, SqlglotError, TokenError

from packata_sql.dialects import Dialect, Family
from packata_sql.dialects.facts import ColumnFact, declared_family
from packata_sql.errors import UsageError
from packata_sql.starter.document import (
    StarterObject,
    StarterProperty,
    column_property,
    reference_rule,
    values_rule,
)

_TOKEN = re.compile(r"<Token token_type: TokenType\.\w+, text: (.*?), line: \d+.*?>")
_BOUNDS = {exp.GTE: "minimum", exp.GT: "exclusiveMinimum", exp.LTE: "maximum",
           exp.LT: "exclusiveMaximum"}
#: PostgreSQL's serial types are a NOT NULL integer with a sequence default: the catalog holds
#: the integer.
_SERIALS = {exp.DataType.Type.SMALLSERIAL: exp.DataType.Type.SMALLINT,
            exp.DataType.Type.SERIAL: exp.DataType.Type.INT,
            exp.DataType.Type.BIGSERIAL: exp.DataType.Type.BIGINT}
_MIRRORED = {exp.GTE: exp.LTE, exp.GT: exp.LT, exp.LTE: exp.GTE, exp.LT: exp.GT}


def objects_from_ddl(text: str, path: str, dialect: Dialect) -> list[StarterObject]:
    """Every object the file creates, in file order."""
    objects: list[StarterObject] = []
    for line, statement in _statements(text, path, dialect):
        if isinstance(statement, exp.Create) and str(statement.args.get("kind")).upper() in (
                "TABLE", "VIEW"):
            objects.append(_created(statement, dialect, f"{path}:{line}"))
        elif isinstance(statement, exp.Alter) and objects:
            _altered(statement, objects, dialect, f"{path}:{line}")
        elif isinstance(statement, exp.Comment) and objects:
            _commented(statement, objects)
        elif objects and statement is not None and _noted(statement):
            objects[-1].notes.append(f"{path}:{line}: a {_kind(statement)} statement is "
                                     "not read")
    return objects


def _statements(text: str, path: str, dialect: Dialect) -> Iterator[tuple[int, exp.Expr | None]]:
    """Each statement with the line it starts on; a parse error names file, line and column."""
    reader = sqlglot.Dialect.get_or_raise(dialect.sqlglot_name or None)
    logger = logging.getLogger("sqlglot")
    level = logger.level
    logger.setLevel(logging.ERROR)  # unsupported statements become Commands, noted per file
    try:
        tokens = reader.tokenize(text)
        statements = reader.parser(error_level=ErrorLevel.RAISE).parse(tokens, text)
    except ParseError as error:
        detail = error.errors[0] if error.errors else {}
        where = f"{path}:{detail.get('line', '?')}:{detail.get('col', '?')}"
        message = _TOKEN.sub(r"'\1'", str(detail.get("description", "cannot be parsed")))
        raise UsageError(f"{where}: not {dialect.name} DDL sqlglot can read ({message}); "
                         "fix the statement or pass the --dialect it was written in") from None
    except TokenError as error:
        raise UsageError(f"{path}: not {dialect.name} SQL sqlglot can read ({error})") from None
    finally:
        logger.setLevel(level)
    starts = [1]
    for previous, token in itertools.pairwise(tokens):
        if previous.token_type is sqlglot.TokenType.SEMICOLON:
            starts.append(token.line)
    lines = starts if len(starts) >= len(statements) else [0] * len(statements)
    yield from zip(lines, statements, strict=False)


def _noted(statement: exp.Expr) -> bool:
    """Statements that may state something about the data (an index, a comment, a grant or a
    session setting do not)."""
    quiet = (exp.Set, exp.Comment, exp.Grant, exp.Revoke, exp.Select, exp.Use, exp.Insert)
    if isinstance(statement, exp.Command):
        return statement.name.upper() not in ("SET", "COMMENT", "GRANT", "REVOKE", "SELECT")
    if isinstance(statement, exp.Create):
        return str(statement.args.get("kind")).upper() not in ("INDEX", "SCHEMA", "SEQUENCE")
    return not isinstance(statement, quiet)


def _kind(statement: exp.Expr) -> str:
    if isinstance(statement, exp.Command):
        return statement.name.upper()
    return type(statement).__name__.upper()


def _name(node: exp.Expr | None) -> str:
    return node.name if node is not None else ""


def _created(statement: exp.Create, dialect: Dialect, where: str) -> StarterObject:
    target = statement.this
    table = target.this if isinstance(target, exp.Schema) else target
    obj = StarterObject(_name(table))
    if str(statement.args.get("kind")).upper() == "VIEW" or not isinstance(target, exp.Schema):
        _view_columns(obj, statement, where)
        return obj
    definitions = [e for e in target.expressions if isinstance(e, exp.ColumnDef)]
    keys = _primary_key(target.expressions)
    for position, column in enumerate(definitions, 1):
        obj.properties.append(_column(column, position, keys, dialect))
    for column in definitions:
        for constraint in column.args.get("constraints") or []:
            _column_constraint(obj, column.name, constraint.args.get("kind"), dialect)
    comment = statement.find(exp.SchemaCommentProperty)
    if comment is not None and comment.this.is_string:
        obj.entry["description"] = comment.this.this
    for element in target.expressions:
        if not isinstance(element, exp.ColumnDef):
            _table_constraint(obj, element, dialect, keys)
    return obj


def _view_columns(obj: StarterObject, statement: exp.Create, where: str) -> None:
    """A view's (or CREATE TABLE AS's) columns: their names, when the query names them all."""
    query = statement.expression
    names = [p.alias_or_name for p in query.selects] if isinstance(query, exp.Query) else []
    if not names or any(not n or n == "*" for n in names):
        obj.notes.append(f"{where}: the columns of {obj.name} are not named in its DDL: "
                         "`packata-sql init --object` reads them from the database")
        return
    obj.properties += [StarterProperty({"name": n}, ["type not in the DDL (a query's column)"])
                       for n in names]


def _primary_key(elements: Sequence[exp.Expr]) -> list[str]:
    """The key's columns in key order: a table-level PRIMARY KEY, else column-level ones."""
    for element in elements:
        key = _unwrap(element)
        if isinstance(key, exp.PrimaryKey):
            return [_name(e) for e in key.expressions]
    return [c.name for c in elements if isinstance(c, exp.ColumnDef)
            and any(isinstance(k.args.get("kind"), exp.PrimaryKeyColumnConstraint)
                    for k in c.args.get("constraints") or [])]


def _unwrap(element: exp.Expr) -> exp.Expr:
    """`CONSTRAINT name …` holds the constraint itself."""
    if isinstance(element, exp.Constraint) and len(element.expressions) == 1:
        inner: exp.Expr = element.expressions[0]
        return inner
    return element


def _column(column: exp.ColumnDef, position: int, keys: list[str],
            dialect: Dialect) -> StarterProperty:
    kind = column.args.get("kind")
    constraints = [c.args.get("kind") for c in column.args.get("constraints") or []]
    not_null = any(isinstance(c, exp.NotNullColumnConstraint) and not c.args.get("allow_null")
                   for c in constraints)
    if isinstance(kind, exp.DataType) and kind.this in _SERIALS:
        kind, not_null = exp.DataType.build(_SERIALS[kind.this]), True
    native = kind.sql(dialect=dialect.sqlglot_name or None) if kind is not None else ""
    family = declared_family(native, dialect) if native else (
        Family.DYNAMIC if dialect.dynamic_typing else Family.OTHER)
    key = keys.index(column.name) + 1 if column.name in keys else None
    fact = ColumnFact(column.name, position, native, family, False if not_null else None, key)
    return column_property(fact, dialect)


def _column_constraint(obj: StarterObject, column: str, kind: exp.Expr | None,
                       dialect: Dialect) -> None:
    prop = obj.property(column)
    assert prop is not None
    if isinstance(kind, exp.CommentColumnConstraint) and kind.this.is_string:
        prop.entry["description"] = kind.this.this
    elif isinstance(kind, exp.UniqueColumnConstraint) and "primaryKey" not in prop.entry:
        prop.entry["unique"] = True
    elif isinstance(kind, exp.CheckColumnConstraint):
        _check(obj, kind.this, None)
    elif isinstance(kind, exp.Reference):
        _reference(obj, [column], kind, dialect)


def _table_constraint(obj: StarterObject, element: exp.Expr, dialect: Dialect,
                      keys: list[str]) -> None:
    name = _name(element.this) if isinstance(element, exp.Constraint) else None
    inner = _unwrap(element)
    if isinstance(inner, exp.PrimaryKey):
        return  # read with the columns
    if isinstance(inner, exp.UniqueColumnConstraint) and isinstance(inner.this, exp.Schema):
        columns = [_name(e) for e in inner.this.expressions]
        prop = obj.property(columns[0]) if len(columns) == 1 else None
        if prop is not None:
            if "primaryKey" not in prop.entry or len(keys) > 1:
                prop.entry["unique"] = True
        else:
            obj.notes.append(f"UNIQUE ({', '.join(columns)}): ODCS has no unique key of "
                             "several columns; not imported")
    elif isinstance(inner, exp.CheckColumnConstraint):
        _check(obj, inner.this, name)
    elif isinstance(inner, exp.ForeignKey):
        reference = inner.args.get("reference")
        if isinstance(reference, exp.Reference):
            _reference(obj, [_name(e) for e in inner.expressions], reference, dialect)
    else:
        obj.notes.append(f"{_label(name, inner)}: no ODCS equivalent; not imported")


def _label(name: str | None, node: exp.Expr) -> str:
    what = type(node).__name__.removesuffix("ColumnConstraint").upper() or "constraint"
    return f"{what} constraint {name}" if name else f"a {what} constraint"


def _commented(statement: exp.Comment, objects: list[StarterObject]) -> None:
    """`COMMENT ON TABLE t` / `COMMENT ON COLUMN t.c IS '…'`: the description of an object or
    property created earlier in the files."""
    text = statement.expression
    kind = str(statement.args.get("kind")).upper()
    target = statement.this
    if not (isinstance(text, exp.Literal) and text.is_string):
        return
    if kind == "TABLE" and isinstance(target, exp.Table):
        obj = next((o for o in objects if o.name == target.name), None)
        if obj is not None:
            obj.entry["description"] = text.this
    elif kind == "COLUMN" and isinstance(target, exp.Column):
        obj = next((o for o in objects if o.name == target.table), None)
        prop = obj.property(target.name) if obj is not None else None
        if prop is not None:
            prop.entry["description"] = text.this


def _altered(statement: exp.Alter, objects: list[StarterObject], dialect: Dialect,
             where: str) -> None:
    """`ALTER TABLE t ADD [CONSTRAINT n] PRIMARY KEY|UNIQUE|CHECK|FOREIGN KEY` (pg_dump's
    habit) on a table created earlier in the files."""
    table = _name(statement.this)
    obj = next((o for o in objects if o.name == table), None)
    if obj is None:
        objects[-1].notes.append(f"{where}: ALTER TABLE {table}: no such table in the DDL")
        return
    for action in statement.args.get("actions") or []:
        for element in action.expressions if isinstance(action, exp.AddConstraint) else []:
            inner = _unwrap(element)
            if isinstance(inner, exp.PrimaryKey):
                for position, column in enumerate(inner.expressions, 1):
                    prop = obj.property(_name(column))
                    if prop is not None:
                        prop.entry.update(primaryKey=True, primaryKeyPosition=position)
                        prop.entry.pop("unique", None)
            else:
                _table_constraint(obj, element, dialect, [])
        if not isinstance(action, exp.AddConstraint):
            obj.notes.append(f"{where}: ALTER TABLE {table} {type(action).__name__}: not read")


def _reference(obj: StarterObject, columns: list[str], reference: exp.Reference,
               dialect: Dialect) -> None:
    schema = reference.this
    parent = schema.this if isinstance(schema, exp.Schema) else schema
    targets = [_name(e) for e in schema.expressions] if isinstance(schema, exp.Schema) else []
    prop = obj.property(columns[0])
    if len(columns) != 1 or len(targets) != 1 or prop is None:
        obj.notes.append(f"FOREIGN KEY ({', '.join(columns)}) REFERENCES {_name(parent)}: a key "
                         "of several (or unnamed) columns is not imported")
        return
    prop.entry.setdefault("quality", []).append(
        reference_rule(obj.name, columns[0], _name(parent), targets[0], dialect,
                       "foreign key in the DDL"))


def _check(obj: StarterObject, condition: exp.Expr, name: str | None) -> None:
    """A CHECK ODCS can state, on one column; else a note naming it."""
    label = f"CHECK constraint {name}" if name else "a CHECK constraint"
    parts = list(condition.flatten()) if isinstance(condition, exp.And) else [condition]
    read = [_bounds(p) for p in parts]
    found = [bound for bounds in read if bounds is not None for bound in bounds]
    columns = {column for column, _, _ in found}
    prop = obj.property(next(iter(columns))) if len(columns) == 1 else None
    if any(r is None for r in read) or prop is None:
        named = sorted({c.name for c in condition.find_all(exp.Column)})
        obj.notes.append(f"{label} on {', '.join(named) or 'no column'}: no ODCS equivalent "
                         "(a numeric range or an IN list on one column); not imported")
        return
    logical = prop.entry.get("logicalType")
    for _, key, value in found:
        if key == "values":
            assert isinstance(value, list)
            prop.entry.setdefault("quality", []).append(values_rule(value, f"the DDL's {label}"))
        elif logical not in ("integer", "number"):
            prop.notes.append(f"{label}: a bound on a column without a numeric logicalType; "
                              "not imported")
        else:
            options = prop.entry.setdefault("logicalTypeOptions", {})
            if key in options and options[key] != value:
                prop.notes.append(f"{label}: a second {key}; not imported")
            else:
                options[key] = value


def _bounds(part: exp.Expr) -> list[tuple[str, str, object]] | None:
    """(column, ODCS key, value) for `c >= 1`, `1 < c`, `c BETWEEN 1 AND 9`, `c IN (…)`; None
    for anything else."""
    if isinstance(part, exp.Paren):
        return _bounds(part.this)
    if isinstance(part, exp.Between) and isinstance(part.this, exp.Column):
        low, high = _number(part.args.get("low")), _number(part.args.get("high"))
        if low is None or high is None:
            return None
        return [(part.this.name, "minimum", low), (part.this.name, "maximum", high)]
    if isinstance(part, exp.In) and isinstance(part.this, exp.Column) and not part.args.get(
            "query") and part.expressions:
        values = [_literal(e) for e in part.expressions]
        if any(v is None for v in values):
            return None
        return [(part.this.name, "values", values)]
    kind = type(part)
    if kind in _BOUNDS:
        left, right = part.this, part.expression
        if isinstance(right, exp.Column) and not isinstance(left, exp.Column):
            left, right, kind = right, left, _MIRRORED[kind]
        value = _number(right)
        if isinstance(left, exp.Column) and value is not None:
            return [(left.name, _BOUNDS[kind], value)]
    return None


def _literal(node: exp.Expr) -> object:
    if isinstance(node, exp.Literal) and node.is_string:
        return node.this
    return _number(node)


def _number(node: exp.Expr | None) -> int | float | None:
    negative = isinstance(node, exp.Neg)
    if negative:
        assert node is not None
        node = node.this
    if not (isinstance(node, exp.Literal) and not node.is_string):
        return None
    try:
        value = Decimal(node.this)
    except ArithmeticError:
        return None
    value = -value if negative else value
    return int(value) if value == value.to_integral_value() else float(value)


def import_files(paths: Sequence[str | Path], dialect: Dialect) -> list[StarterObject]:
    """The objects of every file, in order; a table created twice is an error naming both."""
    objects: list[StarterObject] = []
    for path in paths:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise UsageError(f"cannot read {path} ({error.strerror})") from None
        except UnicodeDecodeError:
            raise UsageError(f"{path}: not UTF-8 text") from None
        try:
            found = objects_from_ddl(text, str(path), dialect)
        except SqlglotError as error:
            raise UsageError(f"{path}: sqlglot cannot read it ({type(error).__name__})") from None
        for obj in found:
            if any(o.name == obj.name for o in objects):
                raise UsageError(f"{path}: {obj.name} is created twice in the DDL files")
            objects.append(obj)
    if not objects:
        raise UsageError(f"no CREATE TABLE or CREATE VIEW in {', '.join(map(str, paths))}")
    return objects
