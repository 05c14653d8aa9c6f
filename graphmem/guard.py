"""The secret/PII guard: run on every text before it is stored.

``scan`` finds secrets (API keys, tokens, private keys, passwords, credentials inside
connection strings...) and personal data; ``redact`` replaces each one with
``[REDACTED:<kind>]``. ``GuardPolicy`` decides per kind what a write does with a finding:
redact it, reject the write, or (personal data only) allow it; ``FieldGuard`` applies a
policy to the fields of one write and collects what it redacted.

A ``Finding`` carries only the kind and the character span, never the matched value, so
findings can be logged and returned to callers without re-leaking the secret.

Matching runs on a folded copy of the text: invisible characters (zero-width space, joiner
and non-joiner, word joiner, BOM, soft hyphen, bidi controls, tag characters...) are taken
out and full-width ASCII forms read as ASCII, so ``sk-proj-abc<ZWSP>def`` is one key.
Findings index the original text; a redaction replaces the whole original span, invisible
characters inside it included. Invisible characters outside findings are left as sent.

Detection is layered, most specific first (``graphmem._guard_patterns``):

1. vendor formats with a fixed prefix (``sk-``, ``ghp_``, ``AKIA``, ``AIza``, ``xoxb-``...),
   JWTs, PEM private-key blocks, ``Bearer``/``Basic`` credentials, URLs with a password;
2. labelled values: ``password=...``, ``api_key: "..."``, ``token=...``, ``密码是...``, and
   plain-language passwords (``my wifi password hunter2``, ``wifi密码Xq7pLm29``);
3. personal data: Chinese resident ID numbers (date and check digit verified), card numbers
   (Luhn-checked, known issuer prefix), e-mail addresses, phone numbers (international,
   North American, mainland China mobile, or any number after a phone label), IPv4
   addresses;
4. a high-entropy fallback for long unlabelled tokens. Pure-hex strings (git/sha hashes,
   md5s) and UUIDs are deliberately left alone: they are everywhere in ordinary engineering
   notes and hex alone cannot tell a hash from a key. A hex secret is still caught when it
   is labelled (``secret=<hex>``) or has a vendor prefix.

Secret kinds: ``openai_key``, ``anthropic_key``, ``stripe_key``, ``github_token``,
``gitlab_token``, ``aws_access_key_id``, ``aws_secret_key``, ``google_api_key``,
``slack_token``, ``slack_webhook``, ``jwt``, ``bearer_token``, ``basic_auth``,
``private_key``, ``connection_string`` (only the password part), ``password`` / ``secret``
(a labelled value: password-like labels vs key/token labels), ``high_entropy``.
Personal-data kinds (``PII_KINDS``): ``email``, ``phone``, ``cn_id``, ``credit_card``,
``ip_address``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, get_args

from graphmem._guard_patterns import (
    ENTROPY_MIN_BITS,
    PATTERNS,
    TRANSITIONS_MIN,
    entropy_spans,
    kind_of,
    labelled_check,
    span_of,
)
from graphmem.errors import InvalidInputError
from graphmem.settings import PiiKind, PiiMode, Settings

__all__ = ["DEFAULT_PII_MODES", "ENTROPY_MIN_BITS", "PII_KINDS", "TRANSITIONS_MIN",
           "FieldGuard", "Finding", "GuardPolicy", "GuardResult", "apply_guard", "redact",
           "scan"]

GuardMode = Literal["redact", "reject"]

PII_KINDS: tuple[str, ...] = get_args(PiiKind)
"""Personal-data kinds; each has its own mode (the rest are secrets: ``secret_mode``)."""

DEFAULT_PII_MODES: Mapping[str, str] = MappingProxyType({
    "email": "redact", "phone": "redact", "cn_id": "redact", "credit_card": "redact",
    # private ranges and four-part version numbers make IPs common in engineering notes
    "ip_address": "allow",
})


@dataclass(frozen=True, slots=True)
class Finding:
    """One sensitive span: ``text[start:end]`` is a ``kind`` secret. Never holds the value."""

    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class GuardResult:
    """The (possibly redacted) text and what was found in the original."""

    text: str
    findings: tuple[Finding, ...] = ()

    @property
    def clean(self) -> bool:
        return not self.findings

    @property
    def kinds(self) -> list[str]:
        """Distinct kinds found, sorted."""
        return sorted({f.kind for f in self.findings})


# --------------------------------------------------------------------------- folding

# Characters that render as nothing (or only steer direction) and so can hide inside a
# secret without changing how it looks.
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160),
    (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E),
    (0x2060, 0x2064), (0x2066, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xE0000, 0xE007F),
)
_INVISIBLE_SET = frozenset(chr(c) for a, b in _INVISIBLE_RANGES for c in range(a, b + 1))
_INVISIBLE = re.compile("[" + "".join(
    re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
    for a, b in _INVISIBLE_RANGES) + "]")
# Full-width ASCII (ｓｋ－, １３８, ＠, ：) and the ideographic space, one char for one char.
_WIDE = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_WIDE_RE = re.compile("[\uff01-\uff5e\u3000]")


def _fold(text: str) -> tuple[str, list[int] | None]:
    """The text patterns see, and where each of its characters came from (None: same)."""
    if _INVISIBLE.search(text) is None:
        return (text.translate(_WIDE) if _WIDE_RE.search(text) else text), None
    chars: list[str] = []
    where: list[int] = []
    for i, ch in enumerate(text):
        if ch in _INVISIBLE_SET:
            continue
        chars.append(chr(_WIDE.get(ord(ch), ord(ch))))
        where.append(i)
    where.append(len(text))
    return "".join(chars), where


# --------------------------------------------------------------------------- scanning


def _pii_kinds(pii: bool | Collection[str]) -> frozenset[str]:
    if pii is True:
        return frozenset(PII_KINDS)
    if pii is False:
        return frozenset({"credit_card"})
    unknown = set(pii) - set(PII_KINDS)
    if unknown:
        raise ValueError(f"unknown personal-data kinds: {', '.join(sorted(unknown))}")
    return frozenset(pii)


def scan(text: str, *, pii: bool | Collection[str] = False,
         entropy: bool = True) -> list[Finding]:
    """Find secrets and personal data in ``text``.

    ``pii`` selects the personal-data kinds: ``False`` only card numbers (never wanted in a
    memory), ``True`` all of ``PII_KINDS``, or a collection of those kinds. Overlapping
    findings are merged into one, labelled with the kind of the most specific pattern
    involved. Returns findings sorted by position, indexing ``text`` as given; none carries
    the secret itself.
    """
    wanted = _pii_kinds(pii)
    folded, where = _fold(text)
    raw: list[tuple[int, Finding]] = []  # (priority, finding); lower priority wins a merge
    for prio, pat in enumerate(PATTERNS):
        if (pat.kind in PII_KINDS and pat.kind not in wanted) \
                or (pat.needs is not None and pat.needs not in folded):
            continue
        for m in pat.regex.finditer(folded):
            span = span_of(m, pat)
            if span is None:
                continue
            start, end, value = span
            if end <= start:
                continue
            if "label" in pat.regex.groupindex:
                if not labelled_check(m, value):
                    continue
            elif pat.check is not None and not pat.check(value):
                continue
            raw.append((prio, Finding(kind_of(pat, m), start, end)))
    if entropy:
        raw.extend((len(PATTERNS), Finding("high_entropy", a, b))
                   for a, b in entropy_spans(folded))
    merged = _merge(raw)
    if where is None:
        return merged
    return [Finding(f.kind, where[f.start], where[f.end - 1] + 1) for f in merged]


def _merge(raw: list[tuple[int, Finding]]) -> list[Finding]:
    merged: list[tuple[int, Finding]] = []
    for prio, f in sorted(raw, key=lambda pf: (pf[1].start, pf[1].end)):
        if merged and f.start < merged[-1][1].end:
            last_prio, last = merged[-1]
            kind = last.kind if last_prio <= prio else f.kind
            merged[-1] = (min(prio, last_prio), Finding(kind, last.start, max(last.end, f.end)))
        else:
            merged.append((prio, f))
    return [f for _, f in merged]


def _replace(text: str, findings: list[Finding]) -> GuardResult:
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return GuardResult("".join(parts), tuple(findings))


def redact(text: str, *, pii: bool | Collection[str] = False,
           entropy: bool = True) -> GuardResult:
    """Replace every finding with ``[REDACTED:<kind>]``; the findings index the original text."""
    return _replace(text, scan(text, pii=pii, entropy=entropy))


def apply_guard(
    text: str,
    mode: GuardMode = "redact",
    *,
    field: str = "content",
    pii: bool | Collection[str] = False,
    entropy: bool = True,
) -> GuardResult:
    """Guard one input text with one mode for every kind (see ``GuardPolicy`` for per-kind
    modes).

    ``redact``: return the text with secrets replaced. ``reject``: raise
    ``InvalidInputError(field, ...)`` naming the kinds found (never the values) if there
    is any finding, else return the text unchanged.
    """
    if mode not in ("redact", "reject"):
        raise ValueError(f"unknown guard mode {mode!r}")
    result = redact(text, pii=pii, entropy=entropy)
    if mode == "reject" and result.findings:
        raise InvalidInputError(
            field,
            f"contains sensitive data ({', '.join(result.kinds)}); remove it or use redaction",
        )
    if mode == "reject":
        return GuardResult(text, ())
    return result


# --------------------------------------------------------------------------- policy


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    """What a write does with each kind of finding.

    Secrets follow ``secret_mode`` (``redact`` or ``reject``); each personal-data kind its
    own mode in ``pii_modes`` (``redact``, ``reject`` or ``allow``), defaulting to
    ``DEFAULT_PII_MODES`` for kinds not named.
    """

    secret_mode: GuardMode = "redact"
    pii_modes: Mapping[str, str] = field(default_factory=dict)
    entropy: bool = True

    def __post_init__(self) -> None:
        if self.secret_mode not in ("redact", "reject"):
            raise ValueError(f"unknown secret mode {self.secret_mode!r}")
        modes = {**DEFAULT_PII_MODES, **self.pii_modes}
        unknown = set(modes) - set(PII_KINDS)
        if unknown:
            raise ValueError(f"unknown personal-data kinds: {', '.join(sorted(unknown))}")
        bad = {k: m for k, m in modes.items() if m not in get_args(PiiMode)}
        if bad:
            raise ValueError(f"unknown modes: {bad}")
        object.__setattr__(self, "pii_modes", MappingProxyType(modes))

    @classmethod
    def from_settings(cls, settings: Settings) -> GuardPolicy:
        """The policy of ``GRAPHMEM_SECRET_MODE`` and ``GRAPHMEM_PII_MODES``."""
        return cls(settings.secret_mode, {str(k): str(m) for k, m in settings.pii_modes.items()})

    def mode_of(self, kind: str) -> str:
        """``redact``, ``reject`` or ``allow`` for a finding of ``kind``."""
        return self.pii_modes[kind] if kind in PII_KINDS else self.secret_mode

    def guard(self, text: str, field: str = "content") -> GuardResult:
        """``text`` with its findings redacted; ``InvalidInputError(field)`` naming the kinds
        (never the values) when one of them is to be rejected."""
        scanned = [k for k in PII_KINDS if self.pii_modes[k] != "allow"]
        findings = scan(text, pii=scanned, entropy=self.entropy)
        if not findings:
            return GuardResult(text)
        rejected = sorted({f.kind for f in findings if self.mode_of(f.kind) == "reject"})
        if rejected:
            raise InvalidInputError(
                field, f"contains sensitive data ({', '.join(rejected)}); remove it or use "
                       f"redaction")
        return _replace(text, findings)


class FieldGuard:
    """Guards the text fields of one write and collects the kinds it redacted."""

    def __init__(self, policy: GuardPolicy, prefix: str = "") -> None:
        self.policy = policy
        self.prefix = prefix
        self.kinds: list[str] = []

    def __call__(self, value: str | None, field: str) -> str | None:
        """``value`` guarded (None stays None); a rejection names ``prefix + field``."""
        if value is None:
            return None
        result = self.policy.guard(value, self.prefix + field)
        self.kinds.extend(f.kind for f in result.findings)
        return result.text
