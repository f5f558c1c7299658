"""`history` and `history prune`: the run history read back, or trimmed, through the API."""

from __future__ import annotations

import argparse
import sys

from packata_sql import api


def history_command(args: argparse.Namespace) -> int:
    if args.history_command == "prune":
        return prune_command(args)
    from packata_sql.cli.outputs import terminal
    from packata_sql.render.history import render_history_json, render_history_table

    found = api.read_history(args.history, contract_id=args.contract, rule=args.rule,
                             last=args.last)
    if args.format == "json":
        sys.stdout.write(render_history_json(found))
    else:
        colour, width = terminal()
        sys.stdout.write(render_history_table(found, color=colour, width=width))
    sys.stdout.flush()
    return 0


def prune_command(args: argparse.Namespace) -> int:
    pruned = api.prune_history(args.prune_store or args.history, keep_days=args.keep_days,
                               keep_runs=args.keep_runs)
    kept = (f"observed more than {args.keep_days} days ago" if args.keep_days is not None
            else f"beyond each contract's newest {args.keep_runs}")
    print(f"packata-sql: deleted {pruned.runs} run(s) {kept} and their {pruned.rules} rule "
          f"result(s); {pruned.kept} run(s) kept")
    return 0
