"""A hostile contract cannot inject anything into a report (issue 20 item 4): through the real
CLI, for every format, names, ids, members, object names and paths carrying terminal escapes,
workflow commands, Markdown/HTML, rich markup, every C0 character, U+FFFE/U+FFFF and lone
surrogates come out inert, and every file parses with a real parser."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import duckdb
import pytest
import yaml
from markdown_it import MarkdownIt

from packata_sql.cli.progress import LiveProgress, PlainProgress
from packata_sql.contracts.model import Category, Finding, Level, Severity
from packata_sql.render import render
from packata_sql.report import Report, RuleResult, Status
from packata_sql.run.run_state import Progress

C0 = "".join(chr(i) for i in range(32))
HOSTILE = ("[/red][bold]\x1b[2J\x1b]8;;http://evil.example\x07click\x1b]8;;\x07\x1b[1A\x9b2J"
           "\x85\u202e\n::error file=x::injected%0A\r<!-- <img src=x> | pipe | `code` "
           "[l](http://evil) &amp;" + C0 + "\ufffe\uffff")
OBJECT = "o[/red]\x1b[2J\x9b1A|<!--"
#: The contract's id and version head the Markdown and HTML reports.
ID = "x`<img src=x>` [l](http://evil)\x1b[2J|"
VERSION = "1.0.0 <!-- | ``"
#: What a terminal or a log viewer would act on: escape sequences, C0 but newline, C1,
#: bidirectional overrides.
ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[Path, str, Path]:
    place = tmp_path / "dir[" / "red]x"  # the contract's path holds `[/red]`
    place.mkdir(parents=True)
    connection = duckdb.connect(str(place / "w.duckdb"))
    connection.execute(f'CREATE TABLE "{OBJECT}" (c VARCHAR)')
    connection.execute(f"INSERT INTO \"{OBJECT}\" VALUES ('a'), (?)", [HOSTILE[:60]])
    connection.close()
    document = {
        "apiVersion": "v3.1.0", "kind": "DataContract", "id": ID, "version": VERSION,
        "status": "active",
        "schema": [{"name": OBJECT, "properties": [{"name": "c", "logicalType": "string",
                                                    "quality": [
            {"id": "h1", "name": HOSTILE, "metric": "invalidValues",
             "arguments": {"validValues": ["a", HOSTILE]}, "mustBe": 0},
            {"id": "::warning::from-an-id", "metric": "nullValues", "mustBe": 1},
            {"name": HOSTILE, "type": "text", "description": HOSTILE},
        ]}]}]}
    contract = place / "c.yaml"
    contract.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    return contract, f"duckdb:///{place / 'w.duckdb'}", place


def _check(contract: Path, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract), "--url",
                           url, *args], capture_output=True, text=True, timeout=120,
                          encoding="utf-8", errors="strict")
    assert done.returncode in (1, 2), done.stderr  # a report, never an internal error (4)
    assert "Traceback" not in done.stderr and "MarkupError" not in done.stderr
    return done


def test_the_table_and_plain_progress_hold_no_escape_and_show_markup_as_text(hostile):
    contract, url, _ = hostile
    done = _check(contract, url, "--progress", "plain", "--samples", "3")
    assert "samples of h1: 1 offending row\n  c '[/red][bold]click" in done.stderr  # a row
    # value, without its escapes
    for text in (done.stdout, done.stderr):
        assert not ACTIVE.search(text), repr(ACTIVE.search(text))
        assert "\x1b" not in text and "\r" not in text
    assert "[/red]" in done.stdout  # the path's markup is shown, not interpreted
    assert "o[/red]" in done.stderr  # the object's name in the progress lines


def test_live_progress_shows_markup_as_text():
    stream = io.StringIO()
    progress = LiveProgress(stream)
    progress(Progress("started", total=1))
    progress(Progress("scan", label=OBJECT, rules=2))
    progress(Progress("sql", label=HOSTILE))
    progress(Progress("done", label=OBJECT, rules=1))
    progress.close()  # rich renders here: markup in a label raised MarkupError
    plain = io.StringIO()
    PlainProgress(plain)(Progress("scan", label=HOSTILE, rules=1))
    assert not ACTIVE.search(plain.getvalue())


def test_github_annotations_cannot_start_a_workflow_command(hostile):
    contract, url, _ = hostile
    done = _check(contract, url, "--format", "github", "--progress", "none")
    lines = done.stdout.splitlines()
    commands = [line for line in lines if line.startswith("::")]
    # two failed rules, one descriptive text rule, nothing else
    assert [line.split(" ", 1)[0] for line in commands] == ["::error", "::error", "::notice"]
    for line in commands:
        assert re.fullmatch(r"::(error|notice) file=[^,:]*,line=\d+,title=[^:,]*::[^\r\n]*",
                            line), line
    assert lines[-1].startswith("packata-sql: FAIL")
    assert not ACTIVE.search(done.stdout) and "\r" not in done.stdout


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def test_markdown_renders_no_html_link_image_or_extra_cell(hostile):
    contract, url, _ = hostile
    done = _check(contract, url, "--format", "markdown", "--progress", "none")
    assert not ACTIVE.search(done.stdout)
    rendered = MarkdownIt("commonmark", {"html": True}).enable("table").render(done.stdout)
    parsed = _Tags()
    parsed.feed(rendered)
    assert not parsed.comments
    assert set(parsed.tags) <= {"h3", "p", "strong", "code", "table", "thead", "tbody", "tr",
                                "th", "td", "br", "details", "summary", "pre", "ul", "li",
                                "blockquote"}, set(parsed.tags)
    tables = re.findall(r"<table>(.*?)</table>", rendered, re.S)
    assert len(tables) == 3  # per-object counts, the rules that need attention, the passed
    counts, attention, passed = ([row.count("<td") for row in re.findall(r"<tr>(.*?)</tr>", t,
                                                                         re.S)] for t in tables)
    assert counts == [0, 7]  # one object: its name, all its rules and the five statuses
    # three quality rules (two failed, a text rule skipped) and the passed logicalType
    assert attention == [0, 4, 4, 4] and passed == [0, 4]
    about = next(line for line in rendered.splitlines() if line.startswith("<p>contract "))
    assert "<code>x`&lt;img src=x&gt;` [l](http://evil)|</code>" in about  # text, not markup
    assert "<code>1.0.0 &lt;!-- | ``</code>" in about
    assert "[/red]" in rendered and "&lt;!--" in rendered  # shown as text


COMMAND = re.compile(r"^\s*(::|##\[)", re.M)


@pytest.mark.parametrize("fmt", ["table", "json", "junit", "markdown"])
def test_no_line_of_any_output_reads_as_a_workflow_command(hostile, fmt):
    """CI logs show stdout and stderr: a declaration's newline must not start a command there."""
    contract, url, _ = hostile
    done = _check(contract, url, "--format", fmt, "--progress", "plain", "--show-sql")
    assert not COMMAND.search(done.stdout), COMMAND.search(done.stdout)
    assert not COMMAND.search(done.stderr)


def test_html_escapes_everything(hostile):
    contract, url, place = hostile
    _check(contract, url, "--output", f"html={place / 'r.html'}", "--progress", "none")
    text = (place / "r.html").read_text("utf-8")
    parsed = _Tags()
    parsed.feed(text)
    assert not parsed.comments and "img" not in parsed.tags and "a" not in parsed.tags
    assert not ACTIVE.search(text)
    assert ('<p class="about" id="about">contract <code>x`&lt;img src=x&gt;` '
            "[l](http://evil)|</code> · version <code>1.0.0 &lt;!-- | ``</code>") in text


def test_junit_parses_with_every_c0_character_and_noncharacters(hostile):
    contract, url, place = hostile
    _check(contract, url, "--output", f"junit={place / 'r.xml'}", "--progress", "none")
    suite = ElementTree.parse(place / "r.xml").getroot()
    assert suite.get("tests") == "4"
    assert "[/red]" in ElementTree.tostring(suite, "unicode")


def test_json_keeps_the_names_exactly(hostile):
    contract, url, _ = hostile
    done = _check(contract, url, "--format", "json", "--progress", "none")
    report = json.loads(done.stdout)
    assert report["rules"][0]["name"] == HOSTILE  # JSON escapes; consumers get the exact text


def test_a_policy_spelling_a_lone_surrogate_is_a_usage_error(tmp_path):
    """No UTF-8 file can hold a lone surrogate: the loaders refuse one (exit 3, the file named),
    so the renderers below are what keeps a report writable should one reach them otherwise."""
    policy = tmp_path / "p.json"
    policy.write_text('{"object": "orders", "rules": [{"id": "s\\ud800", "type": "row_count",'
                      ' "minimum": 1}]}', encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(policy), "--url",
                           "duckdb:///w.duckdb"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and str(policy) in done.stderr
    assert "Traceback" not in done.stderr


UNWRITABLE = "s\ud800x\udfff\ufffe\uffff" + C0


@pytest.mark.parametrize("fmt", ["json", "junit", "markdown", "github", "table", "html"])
def test_every_renderer_writes_what_no_parser_or_encoder_refuses(fmt):
    finding = Finding("text-not-executable", UNWRITABLE, UNWRITABLE, Level.WARNING, line=2)
    result = RuleResult(UNWRITABLE, UNWRITABLE, Category.QUALITY, Severity.ERROR, Status.FAILED,
                        name=UNWRITABLE, value=Fraction(1), unit="rows", failed=("= 0",),
                        target=UNWRITABLE, line=3, expectation=UNWRITABLE,
                        inspect_sql=f"SELECT '{UNWRITABLE}'")
    report = Report(UNWRITABLE, UNWRITABLE, "enforced", (result,), (finding,),
                    declaration={"format": "policy", "sha256": UNWRITABLE})
    text = render(report, fmt)
    text.encode("utf-8")  # strict: a lone surrogate would raise
    if fmt == "json":
        assert json.loads(text)["rules"][0]["key"] == UNWRITABLE
    elif fmt == "junit":
        assert ElementTree.fromstring(text).get("tests") == "1"
    else:
        assert not ACTIVE.search(text.replace("\t", " ") if fmt == "html" else text)


def test_doctor_and_usage_errors_print_no_escape(hostile, tmp_path):
    contract, url, _ = hostile
    done = subprocess.run([sys.executable, "-m", "packata_sql", "doctor", str(contract), "--url",
                           url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "o[/red]" in done.stdout and not ACTIVE.search(done.stdout)
    broken = tmp_path / "p.json"  # a usage error that repeats a hostile id
    broken.write_text(json.dumps({"object": "o", "rules": [{"id": HOSTILE, "type": "nope"}]}),
                      "utf-8")
    done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(broken), "--url",
                           url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 3 and "[/red][bold]click" in done.stderr
    assert not ACTIVE.search(done.stderr)


def test_a_hostile_server_entry_is_shown_inert(tmp_path):
    """The target comes from the contract's `servers` when there is no --url."""
    host = "h\x1b]8;;http://evil\x07[/red]\n::error::host"
    document = {"apiVersion": "v3.1.0", "kind": "DataContract", "id": "x", "version": "1.0.0",
                "status": "active", "schema": [{"name": "t", "quality": [
                    {"metric": "rowCount", "mustBe": 1}]}],
                "servers": [{"server": "s", "type": "postgres", "host": host, "port": 1,
                             "database": "d\x9b2J"}]}
    contract = tmp_path / "c.yaml"
    contract.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    for fmt in ("table", "github", "markdown", "junit"):
        done = subprocess.run([sys.executable, "-m", "packata_sql", "check", str(contract),
                               "--format", fmt], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        assert "[/red]" in done.stdout or fmt == "junit"
        for text in (done.stdout, done.stderr):
            assert not ACTIVE.search(text)
            commands = [line for line in text.splitlines() if COMMAND.match(line)]
            ours = [line for line in commands if line.startswith("::error file=")]
            assert commands == (ours if fmt == "github" else [])
