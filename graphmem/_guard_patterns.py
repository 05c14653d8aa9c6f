"""The guard's detectors: one table of patterns, their value checks, the entropy fallback.

``graphmem.guard`` runs them (on text with invisible characters folded away) and decides
what to do with what they find. Order matters: when findings overlap, the earlier pattern
names the merged finding.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pattern:
    kind: str
    regex: re.Pattern[str]
    # Only this group is redacted (a password, not its label); None = the whole match.
    group: str | None = None
    check: Callable[[str], bool] | None = None
    # A substring every match contains: texts without it skip the regex (a cheap filter).
    needs: str | None = None


def _p(
    kind: str,
    pattern: str,
    flags: int = 0,
    group: str | None = None,
    check: Callable[[str], bool] | None = None,
    needs: str | None = None,
) -> Pattern:
    return Pattern(kind, re.compile(pattern, flags), group, check, needs)


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

PATTERNS: tuple[Pattern, ...] = (
    _p(
        "private_key",
        r"-----BEGIN [A-Z0-9 ]*?PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[\s\S]*?-----END [A-Z0-9 ]*?PRIVATE KEY(?: BLOCK)?-----"
        # a truncated paste without its END line: take the base64 body that follows
        r"|(?:\s*[A-Za-z0-9+/=:\-]{8,})*)",
        needs="PRIVATE KEY",
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
    _p("google_api_key", _L + r"AIza[0-9A-Za-z_\-]{35}" + _R, needs="AIza"),
    _p("slack_token", _L + r"xox[abeoprs]-[A-Za-z0-9\-]{10,}" + _R),
    _p(
        "slack_webhook",
        r"https://hooks\.slack\.com/services/(?P<s>[A-Za-z0-9]+/[A-Za-z0-9]+/[A-Za-z0-9]+)",
        group="s",
        needs="hooks.slack.com",
    ),
    _p("jwt", _L + r"eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{8,}" + _R,
       needs="eyJ"),
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
        needs="://",
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
        # Plain language without a separator: "my wifi password hunter2", "the password for
        # the router is Tr0ub4dor". The value must look like a password (see
        # ``_plain_password``), so "password reset links" and "password manager" stay.
        r"(?i:\b(?:pass(?:word|phrase|code)|pwd)\s+"
        r"(?:(?:for|of|to|on)\s+(?:(?:my|the|our|your|his|her|their)\s+)?"
        r"[\w\-]{1,30}(?:\s+[\w\-]{1,30})?\s+)?"
        r"(?:(?:is|was|are)\s*[:=]?\s+)?)" + _VALUE,
        group="value",
        check=lambda v: _plain_password(v),
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
        "password",
        # Chinese without a separator: wifi密码Xq7pLm29 (密码错误3次 has no ASCII value)
        r"(?P<cnlabel>密码|口令)\s*(?![:=])(?P<s>[\x21-\x7e]{4,200})",
        group="s",
        check=lambda v: _plain_password(v),
    ),
    # --- personal data (each kind has its own mode, see graphmem.guard)
    _p(
        "cn_id",
        # Chinese resident ID: area (6), birth date (8), sequence (3), check digit or X
        r"(?<![0-9A-Za-z])[1-9]\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])"
        r"\d{3}[0-9Xx](?![0-9A-Za-z])",
        check=lambda s: _cn_id_checksum(s),
    ),
    _p(
        "credit_card",
        # not inside a run of Latin letters and digits: a hex id (ent_4936582771664aca...)
        # holds digit runs that pass Luhn by chance; a card is written apart from words
        r"(?<![\dA-Za-z\-])(?:4\d{3}|5[1-5]\d{2}|2[2-7]\d{2}|3[47]\d{2}|6(?:011|5\d\d)|35\d\d"
        r"|62\d\d)(?:[ \-]?\d{2,4}){2,5}(?![\dA-Za-z\-])",
        check=lambda s: _luhn(re.sub(r"\D", "", s)),
    ),
    _p(
        "email",
        # ASCII boundaries, so 邮箱ann@example.org is found; a ``:`` before the address means
        # a URL's user:password@host (the connection-string rule), unless it ends a label,
        # and ``//`` a URL's user@host.
        r"(?:(?<![A-Za-z0-9.+\-:%_])(?<!//)|(?<=mailto:)|(?<=[Ee]mail:)|(?<=EMAIL:)"
        r"|(?<=邮箱:)|(?<=邮件:))[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}"
        r"(?![A-Za-z0-9])",
        needs="@",
    ),
    _p(
        "phone",
        r"(?<![0-9A-Za-z_+])(?:"
        r"\+\d{1,3}[ \-.]?(?:\(\d{1,4}\)[ \-.]?)?\d{1,4}(?:[ \-.]?\d{2,4}){1,4}"  # international
        r"|\(\d{3}\)\s?\d{3}[\-.\s]\d{4}"  # (415) 555-0100
        r"|\d{3}[\-.]\d{3}[\-.]\d{4}"  # 415-555-0100
        r"|1[3-9]\d([ \-]?)\d{4}\1\d{4}"  # mainland China mobile: 13812345678, 138-1234-5678
        r")(?![0-9A-Za-z_])",
        check=lambda s: 7 <= len(re.sub(r"\D", "", s)) <= 15,
    ),
    _p(
        "phone",
        # a labelled number in any local format: "phone: 020 7946 0958", 电话 010-12345678
        r"(?:(?i:\b(?:tele?phone|phone|tel|mobile|cell|whatsapp)(?:\s+(?:number|no\.?|\#))?)"
        r"|电话|手机号码|手机号|手机|联系方式)\s*(?:(?i:is)\s+|[:=#]\s*)?"
        r"(?P<s>\+?\(?\d[\d \-().]{5,18}\d)(?![0-9A-Za-z])",
        group="s",
        check=lambda s: 7 <= len(re.sub(r"\D", "", s)) <= 15,
    ),
    _p(
        "ip_address",
        r"(?<![0-9A-Za-z.])(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}"
        r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?![0-9A-Za-z]|\.\d)",
    ),
)

_CN_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def _cn_id_checksum(value: str) -> bool:
    total = sum(int(d) * w for d, w in zip(value[:17], _CN_ID_WEIGHTS, strict=True))
    return "10X98765432"[total % 11] == value[17].upper()


_VERSION = re.compile(r"[vV]?\d+(?:\.\d+)+")


def _plain_password(value: str) -> bool:
    """A value after an unlabelled "password": coded (a digit or symbol), not code or a
    version, at least 4 characters."""
    return (len(value) >= 4 and _password_value(value) and not _CODE_VALUE.fullmatch(value)
            and not _VERSION.fullmatch(value))


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


def entropy_spans(text: str) -> list[tuple[int, int]]:
    """Spans of long unlabelled tokens that look random (``high_entropy`` findings)."""
    # Tokens inside URLs are ids (docs, videos, commits); credentials in URLs are caught
    # by the connection-string and labelled (``?api_key=``) patterns instead.
    url_spans = [m.span() for m in _CHUNK.finditer(text) if "://" in m.group()]
    out = []
    for m in _TOKEN.finditer(text):
        if any(a <= m.start() < b for a, b in url_spans):
            continue
        if _looks_random(m.group()):
            out.append(m.span())
    return out


# --------------------------------------------------------------------------- match helpers


def span_of(m: re.Match[str], pat: Pattern) -> tuple[int, int, str] | None:
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
    which: str | int = pat.group or 0
    value = m.group(which)
    start, end = m.span(which)
    if pat.group:  # trailing prose punctuation is never part of a labelled secret
        stripped = value.rstrip(".,;:!?)]}。，；：！？")
        end -= len(value) - len(stripped)
        value = stripped
    return start, end, value


def labelled_check(m: re.Match[str], value: str) -> bool:
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


def kind_of(pat: Pattern, m: re.Match[str]) -> str:
    """Labelled values are a ``password`` or, for keys and tokens, a ``secret``."""
    if "label" in pat.regex.groupindex:
        is_password = re.fullmatch(_PASSWORD_LABEL, m.group("label"), re.IGNORECASE)
        return "password" if is_password else "secret"
    if "cnlabel" in pat.regex.groupindex:
        return "password" if m.group("cnlabel") in ("密码", "口令") else "secret"
    return pat.kind

