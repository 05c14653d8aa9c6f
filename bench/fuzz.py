"""A long fuzz run of the real app: the properties of ``tests/test_fuzz.py``, many examples.

Runs the fuzz tests in a child pytest with every property *recorded* instead of asserted
(``GRAPHMEM_FUZZ_STATS``), so one run reports every kind of failure it meets, each with the
smallest operation that showed it, instead of stopping at the first. ``graphmem check``
still runs after each test (a failure there is recorded as the ``check`` property).

Reported: operations tried per test, failures per property, a sample per failure kind,
wall time. Written to ``bench/results/fuzz.json`` (``--json`` to change).

Examples::

    python bench/fuzz.py --quick                 # 20 examples per test, about 30 s
    python bench/fuzz.py                         # 500 examples per test
    python bench/fuzz.py --examples 2000 -k transports
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import RESULTS, ROOT, header, log, write_json  # noqa: E402


def run(examples: int, select: str | None, seed: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        stats_path = Path(tmp) / "stats.json"
        env = dict(os.environ, GRAPHMEM_FUZZ_EXAMPLES=str(examples),
                   GRAPHMEM_FUZZ_STATS=str(stats_path))
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               str(ROOT / "tests" / "test_fuzz.py")]
        if select:
            cmd += ["-k", select]
        if seed is not None:
            cmd += [f"--hypothesis-seed={seed}"]
        log(f"running {' '.join(cmd[3:])} with {examples} examples per test")
        started = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.monotonic() - started
        stats = json.loads(stats_path.read_text()) if stats_path.is_file() else {}
    tail = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
    return {"examples_per_test": examples, "wall_s": round(wall, 1),
            "pytest_exit": proc.returncode, "pytest_summary": tail[0] if tail else "",
            "pytest_output": proc.stdout[-4000:] if proc.returncode else "",
            "tried": stats.get("tried", {}), "failed": stats.get("failed", {}),
            "samples": stats.get("samples", {})}


def print_table(result: dict[str, Any]) -> None:
    tried = result["tried"]
    print(f"\n{'test':<40} {'operations':>10}")
    for test, n in sorted(tried.items()):
        print(f"{test:<40} {n:>10}")
    print(f"{'total':<40} {sum(tried.values()):>10}")
    print(f"\n{'property':<24} {'failures':>8}")
    for prop in ("no-5xx", "error-code", "no-python-text", "no-internal-error", "no-leak",
                 "invalid-refused", "rejected-unchanged", "readback", "check"):
        print(f"{prop:<24} {result['failed'].get(prop, 0):>8}")
    if result["samples"]:
        print("\nfailure kinds (smallest operation seen):")
        for kind, sample in sorted(result["samples"].items()):
            op = " ".join(sample["operation"].split())[:200]
            print(f"- {kind}\n    in {sample['test']}: {op}")
    print(f"\nwall time {result['wall_s']} s; pytest: {result['pytest_summary']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=500, help="examples per fuzz test")
    parser.add_argument("--quick", action="store_true", help="20 examples per test")
    parser.add_argument("-k", dest="select", help="only the fuzz tests matching (pytest -k)")
    parser.add_argument("--seed", type=int, help="hypothesis seed (default: random)")
    parser.add_argument("--json", type=Path, default=RESULTS / "fuzz.json")
    args = parser.parse_args(argv)
    examples = 20 if args.quick else args.examples
    result = run(examples, args.select, args.seed)
    print_table(result)
    write_json(args.json, {**header("fuzz"), **result})
    return 0 if result["pytest_exit"] == 0 and not result["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
