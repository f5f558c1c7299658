"""Start-up of `packata-sql check` on a small DuckDB table, where the fixed cost of a run
(interpreter, imports, reading and linting the contract) is nearly all of it.

Runs each variant in turn, round after round (interleaved, so a machine whose load changes
shifts every variant alike), and prints the median and the fastest wall time and the median
CPU time of whole processes next to the floor: the same measurements as one hand-written statement in DuckDB's
own Python driver. A variant is this tree or another source tree of packata_sql (`--tree
NAME=DIR`, e.g. a `git archive` of an older commit), run with this environment's Python.
Usage: python benchmarks/startup.py [--runs 20] [--rows 1000] [--tree before=/tmp/old]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from contract import BUILD, FLOOR, contract_document  # noqa: E402


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


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, from `wait4`) of one whole process; CPU
    time moves less than wall time when other work shares the machine."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime


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
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
        for _ in range(args.runs):
            for name, (command, cwd) in variants.items():
                samples[name].append(timed(command, cwd))
    floor = next(iter(samples.values()))
    floor_wall = statistics.median(s[0] for s in floor)
    floor_cpu = statistics.median(s[1] for s in floor)
    print(f"{args.rows} rows, DuckDB, {args.runs} interleaved runs, Python "
          f"{sys.version.split()[0]}")
    width = max(len(name) for name in samples)
    print(f"| {'variant':<{width}} | median s | fastest s | − floor s | median CPU s "
          f"| CPU − floor s |")
    print(f"|{'-' * (width + 2)}|----------|-----------|-----------|--------------"
          f"|---------------|")
    for name, runs in samples.items():
        wall = statistics.median(s[0] for s in runs)
        cpu = statistics.median(s[1] for s in runs)
        print(f"| {name:<{width}} | {wall:8.3f} | {min(s[0] for s in runs):9.3f} "
              f"| {wall - floor_wall:9.3f} | {cpu:12.3f} | {cpu - floor_cpu:13.3f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
