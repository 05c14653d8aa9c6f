"""Precision / recall of the offline rule extractor on a hand-annotated corpus.

Each corpus line is one message::

    {"text": "...", "speaker": null | "Name", "occurred_at": "ISO-8601",
     "expected": [{"subject": "...", "predicate": "...", "object": "...", "stop": false}]}

A predicted relation matches an expected one when
``(normalize(subject), predicate, normalize(object), stop)`` are equal (``normalize`` from
``graphmem.model``: NFKC, case-folded, punctuation dropped). Counts are per message, as
multisets; lines with ``expected: []`` are negatives (questions, chit-chat, hypotheticals) and
only ever add false positives.

Prints overall, per-language (a line is "zh" if it has any Chinese character) and
per-predicate precision / recall / F1, and writes the same as JSON.

Examples::

    python bench/rules_eval.py                  # full run, writes bench/results/rules_eval.json
    python bench/rules_eval.py --quick          # one pass, no timing repeats
    python bench/rules_eval.py --verbose        # also list every miss and false positive
    python bench/rules_eval.py --json /tmp/r.json --corpus my_corpus.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphmem.extract import Message  # noqa: E402
from graphmem.extract.rules import RuleExtractor  # noqa: E402
from graphmem.model import normalize  # noqa: E402

DEFAULT_CORPUS = ROOT / "tests" / "data" / "rules_corpus.jsonl"
DEFAULT_JSON = ROOT / "bench" / "results" / "rules_eval.json"

Key = tuple[str, str, str, bool]


@dataclass
class Score:
    """True positives, false positives and false negatives, with the derived ratios."""

    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn,
                "precision": round(self.precision, 4), "recall": round(self.recall, 4),
                "f1": round(self.f1, 4)}


@dataclass
class Report:
    """Everything one evaluation run measured."""

    rows: int = 0
    overall: Score = field(default_factory=Score)
    by_language: dict[str, Score] = field(default_factory=dict)
    by_predicate: dict[str, Score] = field(default_factory=dict)
    misses: list[dict[str, Any]] = field(default_factory=list)
    false_positives: list[dict[str, Any]] = field(default_factory=list)


def load_corpus(path: Path) -> list[dict[str, Any]]:
    """The corpus lines as dicts (blank lines skipped)."""
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def language(text: str) -> str:
    return "zh" if any("\u3400" <= ch <= "\u9fff" for ch in text) else "en"


def _key(subject: str, predicate: str, obj: str, stop: bool) -> Key:
    return (normalize(subject), predicate, normalize(obj), bool(stop))


def predict(row: dict[str, Any], extractor: RuleExtractor | None = None) -> Counter[Key]:
    """The relations the rule engine extracts from one corpus line, as match keys."""
    extractor = extractor or RuleExtractor()
    message = Message(
        content=row["text"], role="user", speaker=row.get("speaker"),
        occurred_at=datetime.fromisoformat(row["occurred_at"]) if row.get("occurred_at") else None,
    )
    result = extractor.extract([message])
    return Counter({_key(r.subject, r.predicate, r.object, r.stop): 1 for r in result.relations})


def evaluate(rows: list[dict[str, Any]]) -> Report:
    """Score the engine on ``rows``."""
    extractor = RuleExtractor()
    report = Report(rows=len(rows))
    for row in rows:
        lang = language(row["text"])
        expected = Counter(
            _key(e["subject"], e["predicate"], e["object"], e.get("stop", False))
            for e in row["expected"]
        )
        predicted = predict(row, extractor)
        hit = expected & predicted
        for scores in (report.overall, report.by_language.setdefault(lang, Score())):
            scores.tp += sum(hit.values())
            scores.fp += sum((predicted - hit).values())
            scores.fn += sum((expected - hit).values())
        for key, n in hit.items():
            report.by_predicate.setdefault(key[1], Score()).tp += n
        for key, n in (predicted - hit).items():
            report.by_predicate.setdefault(key[1], Score()).fp += n
            report.false_positives.append({"text": row["text"], "relation": list(key)})
        for key, n in (expected - hit).items():
            report.by_predicate.setdefault(key[1], Score()).fn += n
            report.misses.append({"text": row["text"], "relation": list(key)})
    return report


def _table(title: str, scores: dict[str, Score]) -> str:
    lines = [f"{title:<18} {'P':>6} {'R':>6} {'F1':>6} {'tp':>5} {'fp':>5} {'fn':>5}"]
    for name, s in scores.items():
        lines.append(f"{name:<18} {s.precision:6.3f} {s.recall:6.3f} {s.f1:6.3f} "
                     f"{s.tp:5d} {s.fp:5d} {s.fn:5d}")
    return "\n".join(lines)


def _throughput(rows: list[dict[str, Any]], repeats: int) -> float:
    extractor = RuleExtractor()
    start = time.perf_counter()
    for _ in range(repeats):
        for row in rows:
            predict(row, extractor)
    elapsed = time.perf_counter() - start
    return repeats * len(rows) / elapsed if elapsed else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Precision/recall of graphmem's offline rule extractor (English + Chinese) "
        "on a hand-annotated JSONL corpus. Matches on (normalized subject, predicate, "
        "normalized object, stop).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(__doc__ or "").split("\n\n", 1)[1].replace("::", ":"),
    )
    parser.add_argument("--quick", action="store_true",
                        help="one scoring pass, skip the throughput repeats")
    parser.add_argument("--json", type=Path, default=DEFAULT_JSON, metavar="PATH",
                        help=f"where to write the JSON report (default: {DEFAULT_JSON})")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, metavar="PATH",
                        help=f"corpus to score (default: {DEFAULT_CORPUS})")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="list every miss and false positive")
    args = parser.parse_args(argv)

    rows = load_corpus(args.corpus)
    report = evaluate(rows)
    per_second = None if args.quick else _throughput(rows, repeats=20)

    langs = Counter(language(r["text"]) for r in rows)
    print(f"corpus: {args.corpus} ({report.rows} messages: "
          + ", ".join(f"{n} {lang}" for lang, n in sorted(langs.items())) + ")")
    print()
    print(_table("overall", {"all": report.overall}))
    print()
    print(_table("language", dict(sorted(report.by_language.items()))))
    print()
    print(_table("predicate", dict(sorted(report.by_predicate.items()))))
    if per_second is not None:
        print(f"\nthroughput: {per_second:,.0f} messages/s")
    if args.verbose:
        print("\nmisses (expected, not extracted):")
        for m in report.misses:
            print(f"  - {m['text']!r}: {tuple(m['relation'])}")
        print("\nfalse positives (extracted, not expected):")
        for m in report.false_positives:
            print(f"  + {m['text']!r}: {tuple(m['relation'])}")

    out = {
        "corpus": str(args.corpus), "rows": report.rows, "overall": report.overall.as_dict(),
        "by_language": {k: v.as_dict() for k, v in sorted(report.by_language.items())},
        "by_predicate": {k: v.as_dict() for k, v in sorted(report.by_predicate.items())},
        "messages_per_second": per_second,
        "misses": report.misses, "false_positives": report.false_positives,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(out, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
