"""Report renderers. Each takes a Report and returns text."""

from __future__ import annotations

from packata_sql.report import Report

FORMATS = ("table", "json", "junit", "markdown", "github", "html")


def render(report: Report, fmt: str, *, color: bool = False, width: int | None = None,
           fail_on_warning: bool = False) -> str:
    if fmt == "json":
        from packata_sql.render.json import render_json

        return render_json(report)
    if fmt == "junit":
        from packata_sql.render.junit import render_junit

        return render_junit(report, fail_on_warning=fail_on_warning)
    if fmt == "markdown":
        from packata_sql.render.markdown import render_markdown

        return render_markdown(report)
    if fmt == "github":
        from packata_sql.render.github import render_github

        return render_github(report)
    if fmt == "html":
        from packata_sql.render.html import render_html

        return render_html(report)
    from packata_sql.render.table import render_table

    return render_table(report, color=color, width=width)
