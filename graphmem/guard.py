"""The secret/PII guard: run on every text before it is stored.

``scan`` finds secrets (API keys, tokens, private keys, passwords, credentials inside
connection strings...) and, optionally, personal data; ``redact`` replaces each one with
``[REDACTED:<kind>]``; ``apply_guard`` does either that or refuses the write.

A ``Finding`` carries only the kind and the character span, never the matched value, so
findings can be logged and returned to callers without re-leaking the secret.

Detection is layered, most specific first:

1. vendor formats with a fixed prefix (``sk-``, ``ghp_``, ``AKIA``, ``AIza``, ``xoxb-``...),
   JWTs, PEM private-key blocks, ``Bearer``/``Basic`` credentials, URLs with a password;
2. labelled values: ``password=...``, ``api_key: "..."``, ``token=...``, ``密码是...``;
3. a high-entropy fallback for long unlabelled tokens (see ``_looks_random``). Pure-hex
   strings (git/sha hashes, md5s) and UUIDs are deliberately left alone: they are everywhere
   in ordinary engineering notes and hex alone cannot tell a hash from a key. A hex secret is
   still caught when it is labelled (``secret=<hex>``) or has a vendor prefix.

Personal data: credit-card numbers (Luhn-checked, known issuer prefix) are always
redacted; e-mail addresses and phone numbers only when ``pii=True``, because memories
legitimately hold a user's contacts.

Kinds: ``openai_key``, ``anthropic_key``, ``stripe_key``, ``github_token``, ``gitlab_token``,
``aws_access_key_id``, ``aws_secret_key``, ``google_api_key``, ``slack_token``,
``slack_webhook``, ``jwt``, ``bearer_token``, ``basic_auth``, ``private_key``,
``connection_string`` (only the password part), ``password`` / ``secret`` (a labelled
value: password-like labels vs key/token labels), ``high_entropy``, ``credit_card``,
``email``, ``phone``.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from graphmem.errors import InvalidInputError

__all__ = ["Finding", "GuardResult", "apply_guard", "redact", "scan"]

GuardMode = Literal["redact", "reject"]


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


# --------------------------------------------------------------------------- patterns


@dataclass(frozen=True, slots=True)
class _Pattern:
    kind: str
    regex: re.Pattern[str]
    # Only this group is redacted (a password, not its label); None = the whole match.
    group: str | None = None
    check: Callable[[str], bool] | None = None
    pii: bool = False  # only scanned when the caller asks for personal data


def _p(
    kind: str,
    pattern: str,
    flags: int = 0,
    group: str | None = None,
    check: Callable[[str], bool] | None = None,
    pii: bool = False,
) -> _Pattern:
    return _Pattern(kind, re.compile(pattern, flags), group, check, pii)


# A token must not be glued to more token characters on either side; this keeps
# ``task-sk-...`` style identifiers and substrings of longer words out.
_L = r"(?<![A-Za-z0-9_\-])"
_R = r"(?![A-Za-z0-9_\-])"

_PLACEHOLDERS = re.compile(
    r"""^(?:\[REDACTED(?::[a-z_]+)?\]|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\{\{.*\}\}|<[^<>]*>|
    \*+|x+|X+|\.\.\.|…|null|none|None|nil|true|false|changeme|redacted|secret|password|
    your[_-]?\w*|os\.environ.*|env\(.*|process\.env.*|getenv.*)$""",
    re.VERBOSE,
)


def _not_placeholder(value: str) -> bool:
    """Env references, template slots and masks are not secrets; real-looking values are."""
    value = value.strip()
    return len(value) >= 3 and not _PLACEHOLDERS.match(value)


def _has_digit(value: str) -> bool:
    return any(c.isdigit() for c in value)


def _wordlike_guarded(value: str) -> bool:
    """After a loose label (``token: ...``) in prose, accept only values that look coded.

    ``The secret: practice daily`` must not lose its word; ``token: a1b2c3`` must.
    """
    mixed_case = value != value.lower() and value != value.title()
    return _not_placeholder(value) and (_has_digit(value) or not value.isalpha() or mixed_case)


def _password_value(value: str) -> bool:
    """After ``password is`` we need something password-like, not ``correct`` or ``wrong``."""
    return _not_placeholder(value) and (_has_digit(value) or not value.isalpha())


_PASSWORD_LABEL = r"(?:pass(?:word|wd|phrase|code)|pwd)"
# The label is the keyword, standing alone or ending a compound name: ``db_password`` and
# ``github.token`` are secrets, while ``token_count`` (a number) and ``api_key_id`` (a name)
# do not end in a keyword and never match. Checking the compound's start with a lookbehind
# instead of matching its prefix keeps the scan linear on long ``a_b_c_...`` runs.
_LABEL = (
    r"(?:(?<![A-Za-z0-9_\-.])|(?<=[A-Za-z0-9][_\-.]))"
    r"(?:" + _PASSWORD_LABEL + r"|secret|api[_\-]?key|apikey|access[_\-]?key|private[_\-]?key|"
    r"client[_\-]?secret|(?:(?:access|auth|refresh|bearer|api|session)[_\-]?)?token|credentials?)"
)
# Quoted values may contain spaces; unquoted ones stop at whitespace and separators, and at
# the ``&name=`` of the next URL query parameter.
_VALUE = (
    r"""(?:"(?P<dq>[^"\n]{1,200})"|'(?P<sq>[^'\n]{1,200})'"""
    r"""|(?P<bare>(?:[^\s"',;`<>&]|&(?![A-Za-z_]\w*=)){1,200}))"""
)
# Unquoted values that are code, not data: calls, indexing, attribute access, constants,
# snake_case variables, type annotations (``password: str``).
_CODE_VALUE = re.compile(
    r".*[()\[\]{}].*|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[A-Z][A-Z0-9_]*|[a-z]+(?:_[a-z]+)+\d*|"
    r"(?:str|string|bytes|int|bool|any|Any|SecretStr|Optional|text|char|varchar)"
)

_PATTERNS: tuple[_Pattern, ...] = (
    _p(
        "private_key",
        r"-----BEGIN [A-Z0-9 ]*?PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END [A-Z0-9 ]*?PRIVATE KEY(?: BLOCK)?-----"
        # a truncated paste without its END line: take the base64 body that follows
        r"|(?:\s*[A-Za-z0-9+/=:\-]{8,})*)",
    ),
    _p("anthropic_key", _L + r"sk-ant-[A-Za-z0-9_\-]{20,}" + _R),
    _p(
        "openai_key",
        _L + r"sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-)?(?=[A-Za-z_\-]*\d)[A-Za-z0-9_\-]{20,}"
        + _R,
    ),
    _p("stripe_key", _L + r"(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}" + _R),
    _p("github_token", _L + r"(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})" + _R),
    _p("gitlab_token", _L + r"glpat-[A-Za-z0-9_\-]{20,}" + _R),
    _p("aws_access_key_id", r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])"),
    _p(
        "aws_secret_key",
        r"(?i:aws[_\-. ]?secret(?:[_\-. ]?access)?[_\-. ]?key(?:[_\-. ]?id)?)"
        r"[\"']?\s*(?:[:=]|=>|:=)\s*[\"']?(?P<s>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
        group="s",
    ),
    _p("google_api_key", _L + r"AIza[0-9A-Za-z_\-]{35}" + _R),
    _p("slack_token", _L + r"xox[abeoprs]-[A-Za-z0-9\-]{10,}" + _R),
    _p(
        "slack_webhook",
        r"https://hooks\.slack\.com/services/(?P<s>[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+)",
        group="s",
    ),
    _p("jwt", _L + r"eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}" + _R),
    _p(
        "bearer_token",
        r"(?i:\bbearer)\s+(?P<s>[A-Za-z0-9\-._~+/]{16,}=*)",
        group="s",
        check=_has_digit,
    ),
    _p(
        "basic_auth",
        r"(?i:\bauthorization)\s*[:=]\s*(?i:basic)\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})",
        group="s",
    ),
    _p(
        "connection_string",
        # scheme://user:password@host -- only the password is redacted so the host stays useful
        r"\b[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^\s:/@'\"]{0,256}:(?P<s>[^\s@/'\"]{1,256})@[A-Za-z0-9.\-\[\]_]+",
        group="s",
        check=_not_placeholder,
    ),
    _p(
        "password",
        r"(?P<label>" + _LABEL + r")[\"']?\s*(?P<sep>=>|:=|==?|:|：)\s*" + _VALUE,
        re.IGNORECASE,
        group="value",
    ),
    _p(
        "password",
        r"(?i:\b(?:my\s+|the\s+)?(?:password|passcode|passphrase|pin)\s+(?:is|was)\s+)" + _VALUE,
        group="value",
        check=_password_value,
    ),
    _p(
        "password",
        # Chinese: 密码是xxx / 密码：xxx. Passwords are ASCII in practice, so stopping at the
        # first non-ASCII char keeps 密码是多少 / 密码是什么 from matching.
        r"(?P<cnlabel>密码|口令|密钥|秘钥|令牌|私钥)\s*(?:是|为|:|：|=)\s*[\"'“‘]?(?P<s>[\x21-\x7e]{3,200})",
        group="s",
        check=_not_placeholder,
    ),
    _p(
        "credit_card",
        r"(?<![\d\-])(?:4\d{3}|5[1-5]\d{2}|2[2-7]\d{2}|3[47]\d{2}|6(?:011|5\d\d)|35\d\d|62\d\d)"
        r"(?:[ \-]?\d{2,4}){2,5}(?![\d\-])",
        check=lambda s: _luhn(re.sub(r"\D", "", s)),
    ),
    _p(
        "email",
        r"(?<![\w.+\-:/%])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}\b",
        pii=True,
    ),
    _p(
        "phone",
        r"(?<![\w+])(?:"
        r"\+\d{1,3}[ \-.]?(?:\(\d{1,4}\)[ \-.]?)?\d{1,4}(?:[ \-.]?\d{2,4}){1,4}"  # international
        r"|\(\d{3}\)\s?\d{3}[\-.\s]\d{4}"  # (415) 555-0100
        r"|\d{3}[\-.]\d{3}[\-.]\d{4}"  # 415-555-0100
        r"|1[3-9]\d{9}"  # mainland China mobile
        r")(?![\w])",
        pii=True,
        check=lambda s: 7 <= len(re.sub(r"\D", "", s)) <= 15,
    ),
)


def _luhn(digits: str) -> bool:
    if not 13 <= len(digits) <= 19:
        return False
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


# --------------------------------------------------------------------------- entropy fallback

_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_\-=])[A-Za-z0-9+/_\-]{32,}={0,2}(?![A-Za-z0-9+/_\-=])")
_HEX = re.compile(r"[0-9a-fA-F]+")
_UUID = re.compile(r"[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
_CHUNK = re.compile(r"\S+")

ENTROPY_MIN_BITS = 4.0
"""Minimum Shannon entropy (bits/char) of an unlabelled token for the fallback to fire."""
TRANSITIONS_MIN = 0.3
"""Minimum share of adjacent alphanumeric pairs that switch class (see ``_looks_random``)."""


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _char_class(c: str) -> int:
    return 0 if c.islower() else 1 if c.isupper() else 2


def _looks_random(token: str) -> bool:
    """Is this unlabelled token a key rather than an identifier, path or hash?

    Identifiers (``getUserAccountSettingsForOrganization2``, ``neo4j_backend/query``) have
    high per-char entropy too, but they switch between lower/upper/digit about once per
    word, while random base62/base64 switches on nearly every other character. So a token
    fires only with a digit and a letter, entropy >= ``ENTROPY_MIN_BITS`` and, ignoring
    separators and the capital that starts a word, class switches on >= ``TRANSITIONS_MIN``
    of its character pairs. On random 40-char base62 this catches ~97%; single-case base36
    ~88%; none of a sample of long camelCase/snake/kebab identifiers and paths.
    """
    body = token.rstrip("=")
    if _HEX.fullmatch(body) or _UUID.search(body):
        return False
    alnum = re.sub(r"[^A-Za-z0-9]", "", body)
    if not (_has_digit(alnum) and any(c.isalpha() for c in alnum)) or len(alnum) < 24:
        return False
    switches = 0
    for a, b in zip(alnum, alnum[1:], strict=False):
        ca, cb = _char_class(a), _char_class(b)
        if ca != cb and not (ca == 1 and cb == 0):  # "Word": capital then lower is one word
            switches += 1
    return _entropy(body) >= ENTROPY_MIN_BITS and switches / (len(alnum) - 1) >= TRANSITIONS_MIN


def _entropy_findings(text: str) -> list[Finding]:
    # Tokens inside URLs are ids (docs, videos, commits); credentials in URLs are caught
    # by the connection-string and labelled (``?api_key=``) patterns instead.
    url_spans = [m.span() for m in _CHUNK.finditer(text) if "://" in m.group()]
    out = []
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() < b for a, b in url_spans):
            continue
        if _looks_random(m.group()):
            out.append(Finding("high_entropy", m.start(), m.end()))
    return out


# --------------------------------------------------------------------------- public API


def _span(m: re.Match[str], pat: _Pattern) -> tuple[int, int, str] | None:
    if pat.group == "value":
        for g in ("dq", "sq", "bare"):
            if m.group(g) is not None:
                start, end, value = m.start(g), m.end(g), m.group(g)
                break
        else:  # pragma: no cover - the regex always fills one of them
            return None
        if m.group(g) is not None and g == "bare":
            # prose punctuation after an unquoted value is not part of it
            stripped = value.rstrip(".,;:!?)]}")
            end -= len(value) - len(stripped)
            value = stripped
        return start, end, value
    g = pat.group or 0
    value = m.group(g)
    start, end = m.span(g)
    if pat.group:  # trailing prose punctuation is never part of a labelled secret
        stripped = value.rstrip(".,;:!?)]}。，；：！？")
        end -= len(value) - len(stripped)
        value = stripped
    return start, end, value


def _labelled_check(m: re.Match[str], value: str) -> bool:
    """The generic ``label = value`` rule: quoted values count, bare ones must look coded."""
    if not _not_placeholder(value):
        return False
    if m.group("bare") is None:
        return True
    if _CODE_VALUE.fullmatch(value):
        return False
    is_password = re.fullmatch(_PASSWORD_LABEL, m.group("label"), re.IGNORECASE)
    if is_password and m.group("sep") not in (":", "："):
        return True  # ``password=hunter`` in a config line: any value is the password
    if not is_password and value.isdigit():
        return False  # keys and tokens are never short pure numbers; limits and counts are
    return _wordlike_guarded(value)


def _kind_of(pat: _Pattern, m: re.Match[str]) -> str:
    """Labelled values are a ``password`` or, for keys and tokens, a ``secret``."""
    if "label" in pat.regex.groupindex:
        is_password = re.fullmatch(_PASSWORD_LABEL, m.group("label"), re.IGNORECASE)
        return "password" if is_password else "secret"
    if "cnlabel" in pat.regex.groupindex:
        return "password" if m.group("cnlabel") in ("密码", "口令") else "secret"
    return pat.kind


def scan(text: str, *, pii: bool = False, entropy: bool = True) -> list[Finding]:
    """Find secrets (and, with ``pii=True``, e-mails and phone numbers) in ``text``.

    Overlapping findings are merged into one, labelled with the kind of the most specific
    pattern involved. Returns findings sorted by position; none carries the secret itself.
    """
    raw: list[tuple[int, Finding]] = []  # (priority, finding); lower priority wins a merge
    for prio, pat in enumerate(_PATTERNS):
        if pat.pii and not pii:
            continue
        for m in pat.regex.finditer(text):
            span = _span(m, pat)
            if span is None:
                continue
            start, end, value = span
            if end <= start:
                continue
            if "label" in pat.regex.groupindex:
                if not _labelled_check(m, value):
                    continue
            elif pat.check is not None and not pat.check(value):
                continue
            raw.append((prio, Finding(_kind_of(pat, m), start, end)))
    if entropy:
        raw.extend((len(_PATTERNS), f) for f in _entropy_findings(text))
    return _merge(raw)


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


def redact(text: str, *, pii: bool = False, entropy: bool = True) -> GuardResult:
    """Replace every finding with ``[REDACTED:<kind>]``; the findings index the original text."""
    findings = scan(text, pii=pii, entropy=entropy)
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos : f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return GuardResult("".join(parts), tuple(findings))


def apply_guard(
    text: str,
    mode: GuardMode = "redact",
    *,
    field: str = "content",
    pii: bool = False,
    entropy: bool = True,
) -> GuardResult:
    """Guard one input text before it is stored.

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
