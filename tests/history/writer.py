"""One of several writers racing to one history store (run as a process of its own): it
checks the warehouse, says `ready`, waits for the go line on stdin, records, prints its run
id. The pipes are the barrier: no writer starts before every one is ready."""

from __future__ import annotations

import sys

from packata_sql import api


def main(contract: str, url: str, store: str) -> None:
    report = api.check(api.load(contract), url, parameters={"floor": 0, "tag": "x"})
    api.history_store(store)  # imports done before the barrier: the writes start together
    import sqlalchemy.dialects.sqlite  # noqa: F401
    print("ready", flush=True)
    sys.stdin.readline()
    print(api.record_run(report, store), flush=True)


if __name__ == "__main__":
    main(*sys.argv[1:4])
