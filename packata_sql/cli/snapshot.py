"""`schema snapshot`: each object's live columns as deterministic JSON (no data), the baseline
that `check --baseline` compares with (`api.snapshot`)."""

from __future__ import annotations

import argparse
import sys

from packata_sql import api
from packata_sql.cli.check import resolve_endpoint


def snapshot_command(args: argparse.Namespace) -> int:
    """`schema snapshot`: each object's columns from the catalog, as deterministic JSON."""
    endpoint = resolve_endpoint(api.NO_CONTRACT, args.url, None, args.trust_environment)
    sys.stdout.write(api.snapshot(endpoint, args.object,
                                  trust_environment=args.trust_environment))
    return 0
