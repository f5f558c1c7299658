"""Start-up of `packata-sql check` on a small DuckDB table, where the fixed cost of a run
(interpreter, imports, reading and linting the contract) is nearly all of it.

Runs each variant in turn, round after round (interleaved, so a machine whose load changes
shifts every variant alike), and prints the median and the fastest wall time of whole
processes next to the floor: the same measurements as one hand-written statement in DuckDB's
own Python driver. A variant is this tree or another source tree of packata_sql (`--tree
NAME=DIR`, e.g. a `git archive` of an older commit), run with this environment's Python.
Usage: python benchmarks/startup.py [--runs 20] [--rows 1000] [--tree before=/tmp/old]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run import BUILD, FLOOR, contract_document  # noqa: E402


def build(directory: Path, rows: int) -> tuple[Path, Path]:
    import duckdb
    import yaml

    database = directory / "small.duckdb"
    connection = duckdb.connect(str(database))
    connection.execute(BUILD.format(rows=rows, half=max(rows // 2, 1)))
    connection.close()
    contract = directory / "contract.yaml"
    contract.write_text(yaml.safe_dump(contract_document(database)), encoding="utf-8")
    return database, contract


def wall(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--tree", action="append", default=[], metavar="NAME=DIR",
                        help="another packata_sql source tree to time (DIR holds packata_sql/)")
    args = parser.parse_args()
    trees = {"this tree": HERE.parent}
    for entry in args.tree:
        name, _, directory = entry.partition("=")
        trees[name] = Path(directory).resolve()
    for directory in trees.values():  # as `pip install` of a wheel does
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(directory / "packata_sql")],
                       check=True)
    with tempfile.TemporaryDirectory() as scratch:
        database, contract = build(Path(scratch), args.rows)
        floor = (f"import duckdb; duckdb.connect({str(database)!r}, read_only=True)"
                 f".execute({FLOOR!r}).fetchall()")
        variants: dict[str, tuple[list[str], Path]] = {
            "floor: one hand-written statement": ([sys.executable, "-c", floor], HERE),
        }
        for name, directory in trees.items():
            variants[f"check --format json ({name})"] = (
                [sys.executable, "-m", "packata_sql", "check", str(contract), "--format", "json"],
                directory)
            variants[f"--help ({name})"] = ([sys.executable, "-m", "packata_sql", "--help"],
                                            directory)
        samples: dict[str, list[float]] = {name: [] for name in variants}
        for _ in range(args.runs):
            for name, (command, cwd) in variants.items():
                samples[name].append(wall(command, cwd))
    floor_median = statistics.median(next(iter(samples.values())))
    print(f"{args.rows} rows, DuckDB, {args.runs} interleaved runs, Python "
          f"{sys.version.split()[0]}")
    width = max(len(name) for name in samples)
    print(f"| {'variant':<{width}} | median s | fastest s | median − floor s |")
    print(f"|{'-' * (width + 2)}|----------|-----------|------------------|")
    for name, times in samples.items():
        median = statistics.median(times)
        print(f"| {name:<{width}} | {median:8.3f} | {min(times):9.3f} "
              f"| {median - floor_median:16.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
