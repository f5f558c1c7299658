"""Report renderers: table (rich), json, junit. Each takes a Report and returns text."""

from __future__ import annotations

from packata_sql.report import Report

FORMATS = ("table", "json", "junit")


def render(report: Report, fmt: str, *, color: bool = False) -> str:
    if fmt == "json":
        from packata_sql.render.json import render_json

        return render_json(report)
    if fmt == "junit":
        from packata_sql.render.junit import render_junit

        return render_junit(report)
    from packata_sql.render.table import render_table

    return render_table(report, color=color)
