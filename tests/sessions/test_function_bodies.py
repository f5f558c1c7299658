"""The walk that follows a rule's calls into function bodies (issue 19, item 2), on a catalog
given as data: what refuses a rule, the chain it names, and the bounds that keep a recursive
or huge function graph from hanging the run. The live engines are in
`integration/test_function_bodies.py`."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from packata_sql.dialects import get_dialect
from packata_sql.sessions.calls import Call, Refusal, Routine, body_problem, calls_in, follow

POSTGRES = get_dialect("postgres")
MYSQL = get_dialect("mysql")


def catalog(routines: dict[str, list[Routine]], asked: list[tuple[list[Call], bool]] | None = None):
    """A look-up over routines by name (any schema), recording what it was asked."""
    def lookup(calls: Sequence[Call], nested: bool) -> list[tuple[Call, Routine]]:
        if asked is not None:
            asked.append((list(calls), nested))
        return [(call, routine) for call in calls for routine in routines.get(call.name, [])]
    return lookup


def sql(name: str, body: str, key: int = 0) -> Routine:
    """A SQL-language routine in schema s; `key` tells overloads apart."""
    return Routine(key=f"{name}/{key}", shown=f"s.{name}", body=body)


def test_calls_are_read_from_code_only_and_folded_as_the_engine_folds():
    text = "SELECT s.Wrap('pg_notify(1)'), \"S\".\"F\"(a) FROM t WHERE a IN (1) AND EXISTS (SELECT 1)"
    assert calls_in(text, POSTGRES) == [Call("s", "wrap"), Call("S", "F")]
    assert calls_in("SELECT f(1) -- g(2)", POSTGRES) == [Call(None, "f")]


@pytest.mark.parametrize("dialect,body,problem", [
    (POSTGRES, "BEGIN EXECUTE q; RETURN 1; END", "runs dynamic SQL (EXECUTE)"),
    (POSTGRES, "BEGIN RETURN QUERY EXECUTE format('SELECT %s', q); END", "runs dynamic SQL (EXECUTE)"),
    (POSTGRES, "BEGIN PERFORM pg_notify('c', 'x'); RETURN 1; END", "calls pg_notify()"),
    (POSTGRES, "BEGIN PERFORM 1; NOTIFY c; RETURN 1; END", "runs NOTIFY"),
    (POSTGRES, "SELECT nextval('s')", "calls nextval()"),
    (POSTGRES, "BEGIN RETURN 'EXECUTE pg_notify(1)'; END", None),  # text, not code
    (POSTGRES, "SELECT a + 1", None),
    (MYSQL, "BEGIN PREPARE s FROM @q; EXECUTE s; RETURN 1; END", "runs dynamic SQL (PREPARE)"),
    (MYSQL, "BEGIN RETURN SLEEP(5); END", "calls sleep()"),
    (MYSQL, "BEGIN SELECT 1 INTO OUTFILE '/tmp/x'; RETURN 1; END", "runs INTO OUTFILE"),
    (MYSQL, "RETURN a + 1", None),
])
def test_what_a_body_may_not_do(dialect, body, problem):
    assert body_problem(body, dialect) == problem


def test_the_chain_names_every_function_on_the_way():
    lookup = catalog({"wrap": [sql("wrap", "SELECT s.mid(1)")],
                      "mid": [sql("mid", "BEGIN RETURN s.leaf(); END")],
                      "leaf": [sql("leaf", "BEGIN EXECUTE 'x'; RETURN 1; END")]})
    refusal = follow("SELECT s.wrap()", POSTGRES, lookup)
    assert refusal == Refusal(("s.wrap", "s.mid", "s.leaf"), "runs dynamic SQL (EXECUTE)")
    assert str(refusal) == "s.wrap → s.mid → s.leaf: runs dynamic SQL (EXECUTE)"


def test_every_overload_is_followed_and_nested_calls_resolve_anywhere():
    asked: list[tuple[list[Call], bool]] = []
    lookup = catalog({"ov": [sql("ov", "SELECT a", key=1),
                             sql("ov", "SELECT s.bad()", key=2)],
                      "bad": [sql("bad", "SELECT pg_notify('c', 'x')")]}, asked)
    assert follow("SELECT ov(1)", POSTGRES, lookup) == \
        Refusal(("s.ov", "s.bad"), "calls pg_notify()")
    assert [nested for _, nested in asked] == [False, True]


def test_definers_opaque_code_unknown_languages_and_unreadable_bodies():
    cases = {
        "d": (Routine("d", "s.d", "SELECT 1",
                      definer="runs as a definer whose owner can do more than read"),
              "runs as a definer whose owner can do more than read"),
        "py": (Routine("py", "s.py", "import os", language="plpython3u",
                       readable_language=False),
               "its body is in language plpython3u, which packata-sql cannot follow"),
        "hidden": (Routine("hidden", "s.hidden", None), "the login cannot read its body"),
    }
    for name, (routine, reason) in cases.items():
        refusal = follow(f"SELECT {name}()", POSTGRES, catalog({name: [routine]}))
        assert refusal is not None and refusal.chain == (routine.shown,)
        assert refusal.reason.startswith(reason), refusal.reason
    builtin = Routine("lower", "pg_catalog.lower", "lower", opaque=True, language="internal")
    assert follow("SELECT lower('A')", POSTGRES, catalog({"lower": [builtin]})) is None
    notify = Routine("n", "pg_catalog.pg_notify", "pg_notify", opaque=True)
    assert follow("SELECT x()", POSTGRES, catalog({
        "x": [sql("x", "SELECT 1")], "pg_notify": [notify]})) is None  # not called
    assert follow("SELECT x()", POSTGRES, catalog({
        "x": [sql("x", "SELECT pg_notify('c', 'x')")], "pg_notify": [notify]})) == \
        Refusal(("s.x",), "calls pg_notify()")  # judged where it is called, in x's body


def test_recursion_is_followed_once_and_the_walk_is_bounded():
    recursive = catalog({"me": [sql("me", "SELECT s.me(n - 1) + s.other()")],
                         "other": [sql("other", "SELECT s.me(1)")]})
    assert follow("SELECT s.me(3)", POSTGRES, recursive) is None
    chain = {f"f{i}": [sql(f"f{i}", f"SELECT s.f{i + 1}()")] for i in range(50)}
    deep = follow("SELECT s.f0()", POSTGRES, catalog(chain), max_depth=8)
    assert deep is not None and len(deep.chain) == 8 and "deeper than 8" in deep.reason
    wide = {"root": [sql("root", " + ".join(f"s.g{i}()" for i in range(300)))],
            **{f"g{i}": [sql(f"g{i}", "SELECT 1")] for i in range(300)}}
    many = follow("SELECT s.root()", POSTGRES, catalog(wide), max_routines=200)
    assert many is not None and "more than 200 functions" in many.reason
