"""Service under load: concurrent HTTP clients doing recall and addEpisode against graphmem.

N async clients (httpx) run a mix of ``recall`` queries and ``addEpisode`` writes for a fixed
time against a running instance (``--url``, loopback only) or one this script starts itself
(``--spawn``: ``graphmem serve`` on a free port with a temporary data dir, stopped with
SIGTERM at the end). Before the timed run every user gets a few seed episodes so recall has
something to find. Prints throughput, p50/p95/p99 latency per operation and the error count,
and writes JSON (machine, date, command) to ``bench/results/load.json``.

Examples::

    python bench/load.py --quick --spawn                    # 8 clients, 10 s
    python bench/load.py --spawn --clients 32 --seconds 60  # the full run
    python bench/load.py --url http://127.0.0.1:8420 --clients 16 --seconds 30
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import platform
import random
import shlex
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"

ADD = """mutation($in: EpisodeInput!) { addEpisode(input: $in) { duplicate relations { id } } }"""
RECALL = """query($in: RecallInput!) { recall(input: $in) {
  items { kind id text score sources { sourceRef } } conflicts { ids } coldStart tookMs } }"""

PEOPLE = ["Ana", "Ben", "Chen", "Dara", "Eli", "Fatima", "Goran", "Hiro"]
DRINKS = ["tea", "coffee", "matcha", "cocoa", "lemonade", "kombucha"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries"]
CITIES = ["Lisbon", "Berlin", "Osaka", "Nairobi", "Lima", "Toronto", "Oslo"]
TOOLS = ["Rust", "Python", "Go", "TypeScript", "Elixir", "Kotlin"]
TEMPLATES = [
    "I prefer {drink} in the morning now.",
    "I work at {company} as an engineer.",
    "We moved to {city} last spring.",
    "I started learning {tool} this week.",
    "My friend {person} recommended {city} for the holidays.",
    "I no longer drink {drink}.",
    "Lunch with {person} from {company} was great; we talked about {tool}.",
]
QUESTIONS = [
    "what do I like to drink?", "where do I work?", "where did I live last year?",
    "which programming language am I learning?", "who recommended a city?",
    "what did we talk about at lunch?", "where did I work before?",
]


def sentence(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format(drink=rng.choice(DRINKS), company=rng.choice(COMPANIES),
                                        city=rng.choice(CITIES), tool=rng.choice(TOOLS),
                                        person=rng.choice(PEOPLE))


def episode(rng: random.Random, user: str, n: int) -> dict[str, Any]:
    when = datetime(2023, 1, 1, tzinfo=UTC) + timedelta(minutes=rng.randrange(0, 1_000_000))
    return {"userId": user, "occurredAt": when.isoformat(), "content": sentence(rng),
            "sessionId": f"s{n % 7}", "sourceRef": f"{user}-{n}-{rng.randrange(10**9)}"}


# --------------------------------------------------------------------------- measurement


@dataclass(slots=True)
class OpStats:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)

    def fail(self, what: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 5:
            self.error_samples.append(what[:300])


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


async def call(client: httpx.AsyncClient, query: str, variables: dict[str, Any],
               stats: OpStats) -> None:
    started = time.perf_counter()
    try:
        resp = await client.post("/graphql", json={"query": query, "variables": variables})
        body = resp.json()
    except (httpx.HTTPError, ValueError) as e:
        stats.fail(f"{type(e).__name__}: {e}")
        return
    elapsed = (time.perf_counter() - started) * 1000
    if resp.status_code != 200 or body.get("errors"):
        stats.fail(f"{resp.status_code}: {json.dumps(body.get('errors'))}")
        return
    stats.latencies_ms.append(elapsed)


async def client_loop(client: httpx.AsyncClient, worker: int, deadline: float,
                      users: list[str], recall_share: float, stats: dict[str, OpStats],
                      seed: int) -> None:
    rng = random.Random(seed * 1000 + worker)
    n = 0
    while time.monotonic() < deadline:
        user = rng.choice(users)
        if rng.random() < recall_share:
            await call(client, RECALL, {"in": {"userId": user, "query": rng.choice(QUESTIONS),
                                               "limit": 10}}, stats["recall"])
        else:
            n += 1
            await call(client, ADD, {"in": episode(rng, user, n)}, stats["addEpisode"])


async def seed_users(client: httpx.AsyncClient, users: list[str], per_user: int,
                     seed: int) -> None:
    rng = random.Random(seed)
    q = "mutation($ins: [EpisodeInput!]!) { addEpisodes(inputs: $ins) { duplicate } }"
    for user in users:
        batch = [episode(rng, user, -i) for i in range(per_user)]
        resp = await client.post("/graphql", json={"query": q, "variables": {"ins": batch}})
        body = resp.json()
        if body.get("errors"):
            raise SystemExit(f"seeding failed: {body['errors']}")


async def run_load(url: str, args: argparse.Namespace) -> dict[str, Any]:
    users = [f"load-{args.seed}-{i}" for i in range(args.users)]
    limits = httpx.Limits(max_connections=args.clients, max_keepalive_connections=args.clients)
    headers = {"Authorization": f"Bearer {args.api_key}"} if args.api_key else {}
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=args.timeout,
                                 headers=headers) as client:
        started = time.perf_counter()
        await seed_users(client, users, args.seed_episodes, args.seed)
        seed_s = time.perf_counter() - started
        if args.warmup > 0:  # not measured: first-call costs (model load, caches)
            warm = {"recall": OpStats(), "addEpisode": OpStats()}
            await asyncio.gather(*(client_loop(client, w, time.monotonic() + args.warmup,
                                               users, args.recall_share, warm, args.seed + 1)
                                   for w in range(args.clients)))
        stats = {"recall": OpStats(), "addEpisode": OpStats()}
        t0 = time.monotonic()
        await asyncio.gather(*(client_loop(client, w, t0 + args.seconds, users,
                                           args.recall_share, stats, args.seed)
                               for w in range(args.clients)))
        wall = time.monotonic() - t0
    ops: dict[str, Any] = {}
    for name, s in stats.items():
        lat = s.latencies_ms
        ops[name] = {"ok": len(lat), "errors": s.errors, "throughput_per_s": len(lat) / wall,
                     "p50_ms": percentile(lat, 50), "p95_ms": percentile(lat, 95),
                     "p99_ms": percentile(lat, 99),
                     "mean_ms": statistics.fmean(lat) if lat else float("nan"),
                     "max_ms": max(lat) if lat else float("nan"),
                     "error_samples": s.error_samples}
    everything = [x for s in stats.values() for x in s.latencies_ms]
    ops["all"] = {"ok": len(everything), "errors": sum(s.errors for s in stats.values()),
                  "throughput_per_s": len(everything) / wall,
                  "p50_ms": percentile(everything, 50), "p95_ms": percentile(everything, 95),
                  "p99_ms": percentile(everything, 99),
                  "mean_ms": statistics.fmean(everything) if everything else float("nan"),
                  "max_ms": max(everything) if everything else float("nan")}
    return {"operations": ops, "wall_s": wall, "seed_s": seed_s, "users": len(users)}


# --------------------------------------------------------------------------- server


def check_loopback(url: str) -> None:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"refusing to load {url}: only loopback addresses (127.0.0.0/8, ::1, "
                     f"localhost) are allowed")


class Spawned:
    """``graphmem serve`` on a free port with a temporary data directory."""

    def __init__(self, embedder: str) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.tmp = tempfile.TemporaryDirectory(prefix="graphmem-load-")
        self.log = Path(self.tmp.name) / "serve.log"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
        self._out = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem.cli", "serve", "--host", "127.0.0.1", "--port",
             str(self.port), "--data-dir", str(Path(self.tmp.name) / "data"),
             "--embedder", embedder, "--log-level", "warning"],
            stdout=self._out, stderr=subprocess.STDOUT, env=env)
        self.peak_rss_kb = 0

    def wait_ready(self, timeout: float = 180.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"graphmem serve exited:\n{self.log.read_text()}")
            try:
                if httpx.get(self.url + "/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        raise SystemExit(f"graphmem serve not ready after {timeout}s")

    def sample_rss(self) -> None:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    self.peak_rss_kb = max(self.peak_rss_kb, int(line.split()[1]))
        except OSError:
            pass

    def stop(self) -> int | None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self._out.close()
        self.tmp.cleanup()
        return self.proc.returncode


async def sample_forever(server: Spawned) -> None:
    while True:
        server.sample_rss()
        await asyncio.sleep(0.5)


# --------------------------------------------------------------------------- report


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
    except OSError:
        pass
    return info


def table(ops: dict[str, Any]) -> str:
    head = f"{'operation':<12} {'ok':>7} {'errors':>7} {'req/s':>8} {'p50 ms':>9} " \
           f"{'p95 ms':>9} {'p99 ms':>9} {'max ms':>9}"
    lines = [head, "-" * len(head)]
    for name, o in ops.items():
        lines.append(f"{name:<12} {o['ok']:>7} {o['errors']:>7} {o['throughput_per_s']:>8.1f} "
                     f"{o['p50_ms']:>9.1f} {o['p95_ms']:>9.1f} {o['p99_ms']:>9.1f} "
                     f"{o['max_ms']:>9.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="a running graphmem on this machine (loopback only)")
    where.add_argument("--spawn", action="store_true",
                       help="start 'graphmem serve' on a free port with a temp data dir")
    p.add_argument("--quick", action="store_true", help="8 clients for 10 s (a smoke run)")
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--seconds", type=float, default=60.0)
    p.add_argument("--warmup", type=float, default=None, help="seconds, not measured")
    p.add_argument("--users", type=int, default=8)
    p.add_argument("--seed-episodes", type=int, default=40, help="per user, before the run")
    p.add_argument("--recall-share", type=float, default=0.7, help="share of recall calls")
    p.add_argument("--embedder", default="minilm", choices=["minilm", "hashing"],
                   help="embedder of a spawned server (default minilm, the product default)")
    p.add_argument("--timeout", type=float, default=60.0, help="per request, seconds")
    p.add_argument("--api-key", default=os.environ.get("GRAPHMEM_API_KEY"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", type=Path, default=RESULTS / "load.json")
    args = p.parse_args(argv)
    if args.quick:
        args.clients, args.seconds = min(args.clients, 8), min(args.seconds, 10.0)
        args.users, args.seed_episodes = min(args.users, 4), min(args.seed_episodes, 20)
    if args.warmup is None:
        args.warmup = 2.0 if args.quick else 5.0
    if not (1 <= args.clients <= 512 and 0 < args.seconds <= 3600):
        raise SystemExit("--clients must be 1..512 and --seconds 0..3600 (runs are bounded)")

    server = Spawned(args.embedder) if args.spawn else None
    url = server.url if server else args.url.rstrip("/")
    check_loopback(url)
    try:
        if server:
            server.wait_ready()
        health = httpx.get(url + "/health", timeout=10).json()

        async def measured() -> dict[str, Any]:
            sampler = asyncio.create_task(sample_forever(server)) if server else None
            try:
                return await run_load(url, args)
            finally:
                if sampler:
                    sampler.cancel()

        result = asyncio.run(measured())
    finally:
        exit_code = server.stop() if server else None
    report = {
        "benchmark": "load", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": shlex.join([Path(sys.executable).name, *sys.argv]),
        "machine": machine(), "server": {**health, "spawned": bool(server),
                                         "embedder": args.embedder if server else None,
                                         "peak_rss_mb": round(server.peak_rss_kb / 1024, 1)
                                         if server else None,
                                         "peak_rss_of": "the graphmem serve process (the "
                                                        "embedded FalkorDB runs as its own)",
                                         "exit_code": exit_code},
        "config": {"clients": args.clients, "seconds": args.seconds, "warmup_s": args.warmup,
                   "users": args.users, "seed_episodes_per_user": args.seed_episodes,
                   "recall_share": args.recall_share, "quick": args.quick},
        **result,
    }
    print(f"graphmem load: {args.clients} clients, {result['wall_s']:.1f} s, "
          f"{args.users} users, recall share {args.recall_share:.0%}, store "
          f"{health.get('store')}" + (f", embedder {args.embedder}" if server else ""))
    print(table(result["operations"]))
    for name, o in result["operations"].items():
        for sample in o.get("error_samples", []):
            print(f"  {name} error: {sample}")
    if server:
        print(f"graphmem serve peak RSS: {report['server']['peak_rss_mb']} MB")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 1 if result["operations"]["all"]["errors"] else 0


if __name__ == "__main__":
    sys.exit(main())
