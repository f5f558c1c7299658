"""The project documents itself (issue 21.5): the README and the docs/ pages link only to files
inside the repository, every link and anchor resolves, and nothing in the code, the tests or
the documentation cites a file outside the repository. Section citations such as
"docs/semantics.md 3.3" name a section that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXPECTED_PAGES = {"architecture", "semantics", "formats", "engines", "dbt", "cli", "api"}
# Read as text: the folders that make up the project (not .venv, .git or build output).
SOURCES = ["packata_sql", "tests", "integration", "benchmarks", "docs", "dialects", "docker",
           ".ci"]
TOP_FILES = ["README.md", "Makefile", "pyproject.toml", "conftest.py"]
# Spelt in pieces so that this file does not match itself.
OUTSIDE = re.compile("|".join([r"\.\./" + "shared", "SEMANTICS" + r"\.md", "DESIGN" + r"\.md",
                               "architecture-" + "review", r"\bSEMANTICS" + r" \d"]))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CITATION = re.compile(r"docs/semantics\.md,? (\d+(?:\.\d+)?)")


def _prose(text: str) -> str:
    """The text outside fenced code blocks (a `# comment` there is no heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub and most Markdown renderers make it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", _prose(page.read_text("utf-8")), re.M)}


def _project_texts() -> list[Path]:
    found = [ROOT / name for name in TOP_FILES]
    for folder in SOURCES:
        found += [p for p in (ROOT / folder).rglob("*") if p.is_file()
                  and "__pycache__" not in p.parts and p.suffix not in {".pyc", ".duckdb", ".db"}]
    return found


def test_the_docs_pages_exist_and_the_readme_is_a_landing_page():
    assert {page.stem for page in PAGES[1:]} >= EXPECTED_PAGES
    readme = PAGES[0].read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    for name in EXPECTED_PAGES:
        assert f"(docs/{name}.md)" in readme, f"README does not link docs/{name}.md"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves_inside_the_repository(page: Path):
    for target in LINK.findall(_prose(page.read_text(encoding="utf-8"))):
        assert "://" not in target, f"{page.name}: a link leaves the repository: {target}"
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.is_relative_to(ROOT), f"{page.name}: {target} is outside the repository"
        assert linked.exists(), f"{page.name}: {target} names no file"
        if anchor:
            assert anchor in _anchors(linked), f"{page.name}: {target}: no such heading"


def test_nothing_cites_a_file_outside_the_repository():
    cited = []
    for path in _project_texts():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        cited += [f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, m.start()) + 1}: {m.group()}"
                  for m in OUTSIDE.finditer(text)]
    assert cited == []


def test_section_citations_name_a_section_of_the_semantics_page():
    page = (ROOT / "docs" / "semantics.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\. ", page, re.M))
    sections |= set(re.findall(r"^### (\d+\.\d+) ", page, re.M))
    missing = []
    for path in _project_texts():
        if path.suffix not in {".py", ".md", ".yaml", ".sql"}:
            continue
        text = path.read_text(encoding="utf-8")
        missing += [f"{path.relative_to(ROOT)}: {number}"
                    for number in CITATION.findall(text) if number not in sections]
    assert missing == []
