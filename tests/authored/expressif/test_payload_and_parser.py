"""The Expressif payload and the parser for the subset (docs/expressif.md): what is read, and
the finding each malformed program draws."""

from __future__ import annotations

import pytest

from packata_sql.authored.expressif import (
    Call,
    Combination,
    ExpressifError,
    Field,
    Interval,
    Literal,
    Negation,
    Payload,
    Pipeline,
    Rooted,
    Single,
    Variable,
    parse,
    read_payload,
)


def program(text: str, kind: str = "predicate", scope: str = "value") -> Payload:
    return Payload("1", kind, scope, text)  # type: ignore[arg-type]


def test_the_payload_is_read_from_its_json_text() -> None:
    payload = read_payload('{"version":"1","kind":"predicate","scope":"value","program":"positive"}')
    assert payload == Payload("1", "predicate", "value", "positive")


@pytest.mark.parametrize(("implementation", "code", "says"), [
    ("not json", "expressif-payload", "not a JSON object"),
    ("[1]", "expressif-payload", "must be a JSON object"),
    ('{"version":"2","kind":"predicate","scope":"value","program":"positive"}',
     "expressif-version", "'2' is not supported"),
    ('{"version":"1","kind":"rule","scope":"value","program":"positive"}',
     "expressif-payload", "unknown kind 'rule'"),
    ('{"version":"1","kind":"predicate","scope":"table","program":"positive"}',
     "expressif-payload", "unknown scope 'table'"),
    ('{"version":"1","kind":"predicate","scope":"value"}', "expressif-payload", "no 'program'"),
    ('{"version":1,"kind":"predicate","scope":"value","program":"x"}',
     "expressif-payload", "'version' must be a string"),
    ('{"version":"1","kind":"predicate","scope":"value","program":"x","extra":1}',
     "expressif-payload", "unknown key 'extra'"),
    ('{"version":"1","kind":"predicate","scope":"value","program":"  "}',
     "expressif-payload", "empty"),
])
def test_a_malformed_payload_is_a_finding(implementation: str, code: str, says: str) -> None:
    with pytest.raises(ExpressifError) as caught:
        read_payload(implementation)
    assert caught.value.code == code
    assert says in caught.value.message


def test_long_and_short_names_are_one_operation() -> None:
    short, long = parse(program("positive")), parse(program("numeric-is-positive"))
    assert short.body == Single(Call("positive", "positive", "predicate"))
    assert isinstance(long.body, Single)
    assert long.body.call.name == "positive"
    assert long.body.call.written == "numeric-is-positive"


def test_pipes_run_left_to_right() -> None:
    parsed = parse(program("lower | text-to-length", kind="expression"))
    assert isinstance(parsed.body, Pipeline)
    assert [call.name for call in parsed.body.members] == ["lower", "length"]
    assert parsed.operations == ("lower", "length")


def test_negation_takes_the_whole_predication_after_it_as_the_language_does() -> None:
    parsed = parse(program("!starts-with(Nik) |AND ends-with(sla)"))
    assert isinstance(parsed.body, Negation)
    assert isinstance(parsed.body.member, Combination)


def test_combinations_are_left_to_right_and_braces_group() -> None:
    flat = parse(program("zero |OR positive |AND even"))
    assert isinstance(flat.body, Combination) and flat.body.operator == "and"
    assert isinstance(flat.body.left, Combination) and flat.body.left.operator == "or"
    grouped = parse(program("zero |OR {positive |AND even}"))
    assert isinstance(grouped.body, Combination) and grouped.body.operator == "or"
    assert isinstance(grouped.body.right, Combination)


@pytest.mark.parametrize(("written", "interval"), [
    ("[0;20[", Interval("0", True, "20", False)),
    ("]-INF;12]", Interval(None, False, "12", True)),
    ("[12;+INF]", Interval("12", True, None, False)),
    ("(+)", Interval("0", False, None, False)),
    ("(0-)", Interval(None, False, "0", True)),
    ("(>=3.5)", Interval("3.5", True, None, False)),
    ("(absolutely-negative)", Interval(None, False, "0", False)),
])
def test_intervals(written: str, interval: Interval) -> None:
    parsed = parse(program(f"within-interval({written})"))
    assert isinstance(parsed.body, Single)
    assert parsed.body.call.arguments == (interval,)


def test_variables_fields_and_sub_expressions() -> None:
    parsed = parse(program("[amount] |? greater-than({@floor | add(2)})", scope="row"))
    assert isinstance(parsed.body, Rooted)
    assert parsed.body.root == Field("amount")
    assert parsed.variables == ("floor",)
    assert parsed.fields == ("amount",)
    assert isinstance(parsed.body.predication, Single)
    (argument,) = parsed.body.predication.call.arguments
    assert argument == Pipeline(Variable("floor"), (Call("add", "add", "function", (Literal("2"),),
                                                          column=36),))


def test_quoted_literals_keep_spaces_and_commas() -> None:
    parsed = parse(program('starts-with("a, b")'))
    assert isinstance(parsed.body, Single)
    assert parsed.body.call.arguments == (Literal("a, b", quoted=True),)
    backtick = parse(program("ends-with(`x y`)"))
    assert isinstance(backtick.body, Single)
    assert backtick.body.call.arguments == (Literal("x y", quoted=True),)


@pytest.mark.parametrize(("text", "kind", "scope", "code", "operation"), [
    ("positve", "predicate", "value", "expressif-unknown", "positve"),
    ("path-to-filename", "expression", "value", "expressif-forbidden", "filename"),
    ("distinct", "expression", "value", "expressif-unsupported", "distinct"),
    ("positive(", "predicate", "value", "expressif-syntax", None),
    ("positive |AND", "predicate", "value", "expressif-syntax", None),
    ("lower |> upper", "expression", "value", "expressif-syntax", None),
    ("lower", "predicate", "value", "expressif-syntax", "lower"),
    ("[amount] |? positive", "predicate", "value", "expressif-scope", None),
    ("sum | absolute", "expression", "dataset", "expressif-scope", "sum"),
    ("absolute", "expression", "dataset", "expressif-scope", None),
    ("first", "expression", "dataset", "expressif-unsupported", "first"),
    ("positive", "predicate", "dataset", "expressif-scope", None),
])
def test_what_the_subset_refuses_is_a_finding_naming_the_operation(
        text: str, kind: str, scope: str, code: str, operation: str | None) -> None:
    with pytest.raises(ExpressifError) as caught:
        parse(program(text, kind=kind, scope=scope))
    assert caught.value.code == code
    assert caught.value.operation == operation


def test_an_unknown_name_suggests_the_closest() -> None:
    with pytest.raises(ExpressifError) as caught:
        parse(program("positve"))
    assert "did you mean 'positive'" in caught.value.message


def test_dataset_programs_end_in_their_accumulator() -> None:
    parsed = parse(program("absolute | sum", kind="expression", scope="dataset"))
    assert parsed.accumulator is not None and parsed.accumulator.name == "sum"
    assert parse(program("positive | any", kind="expression", scope="dataset")).accumulator
