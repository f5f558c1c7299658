"""`packata-sql init` and `packata-sql import sql|dbt`: a starter ODCS v3 contract from a
warehouse's catalog, SQL DDL or a dbt manifest, written through the API (`api.init_contract`,
`api.import_sql`, `api.import_dbt`). Every declaration is one its source states, so the contract
lints clean and checks on that source; what has no ODCS equivalent is listed on stderr (and as a
comment in the file), never dropped silently."""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from packata_sql import api, engines
from packata_sql.errors import Unreachable, UsageError


def init_command(args: argparse.Namespace) -> int:
    target = _target(args.output)
    try:
        starter = api.init_contract(args.url, objects=args.object, schema=args.schema,
                                    folder=_folder(target))
    except Unreachable as error:
        from packata_sql.render.neutral import terminal  # may name the host from the URL

        print(terminal(f"packata-sql: {error}"), file=sys.stderr)
        return 2
    login = ""
    if starter.engine in engines.of_kind(engines.NETWORK):
        login = (" (the login comes from PACKATA_MAIN_USERNAME and PACKATA_MAIN_PASSWORD, "
                 "or pass the same --url to check)")
    return _write(starter, target, f" && packata-sql check {_quoted(target)}{login}")


def import_command(args: argparse.Namespace) -> int:
    target = _target(args.output)
    if args.import_command == "sql":
        starter = api.import_sql(args.files, args.dialect, url=args.url, folder=_folder(target))
    else:
        starter = api.import_dbt(args.manifest, models=args.model, url=args.url,
                                 folder=_folder(target))
    check = f" && packata-sql check {_quoted(target)}" + ("" if args.url else " --url URL")
    return _write(starter, target, check)


def _quoted(target: Path | None) -> str:
    """The contract's path as a shell reads it back (`my contract.yaml` is one word)."""
    return shlex.quote(str(target))


def _target(output: str | None) -> Path | None:
    target = Path(output) if output else None
    if target is not None and target.exists():
        raise UsageError(f"{target} exists; packata-sql never overwrites a contract")
    return target


def _folder(target: Path | None) -> Path:
    return target.parent if target is not None else Path.cwd()


def _write(starter: api.Starter, target: Path | None, check: str) -> int:
    from packata_sql.render.neutral import terminal  # names from the source: one inert line

    for item in starter.not_imported:
        print(terminal(f"packata-sql: not imported: {item}"), file=sys.stderr)
    if target is None:
        sys.stdout.write(starter.text)
        return 0
    try:
        target.write_text(starter.text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"cannot write {target} ({error.strerror})") from None
    print(terminal(f"wrote {target} ({len(starter.objects)} object(s): "
                   f"{', '.join(starter.objects)}); next: packata-sql lint {_quoted(target)}"
                   f"{check}"), file=sys.stderr)
    return 0
