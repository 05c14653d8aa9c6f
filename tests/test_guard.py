"""The secret/PII guard: every pattern redacted, reject mode, and no false positives.

Fake secrets are assembled from pieces so that secret scanners on the repository do not
mistake the test data for leaked keys.
"""

from __future__ import annotations

import pytest

from graphmem.errors import InvalidInputError
from graphmem.guard import Finding, GuardResult, apply_guard, redact, scan

B62 = "Zx8Qw2Lm9Rt4Yp6Ks1Dv3Hj7Nb5Cf0Gt2Wq8Ae4Ur6Io1"  # random-looking, 46 chars

# (kind, text, secret) -- the secret must vanish from the redacted text.
CASES: list[tuple[str, str, str]] = [
    ("openai_key", "my key is {s} ok", "sk-" + "proj-" + B62),
    ("openai_key", "OPENAI_API_KEY={s}", "sk-" + "abc123def456ghi789jkl012mno345pqr678stu901vwx"),
    ("anthropic_key", "use {s} for claude", "sk-" + "ant-api03-" + B62 + "-_AA"),
    ("github_token", "token {s} ok", "ghp" + "_0123456789abcdefghijABCDEFGHIJ012345"),
    ("github_token", "token {s} ok", "gho" + "_0123456789abcdefghijABCDEFGHIJ012345"),
    ("github_token", "token {s} ok", "ghs" + "_0123456789abcdefghijABCDEFGHIJ012345"),
    ("github_token", "pat {s}", "github" + "_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"),
    ("aws_access_key_id", "id {s} here", "AKIA" + "IOSFODNN7EXAMPLE"),
    ("aws_access_key_id", "session {s}.", "ASIA" + "Y34FZKBOKMUTVV7A"),
    ("aws_secret_key", "aws_secret_access_key = {s}", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("google_api_key", "maps key {s}", "AIza" + "SyA1234567890abcdefghijklmnopqrstuv"),
    ("slack_token", "bot {s}", "xoxb" + "-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"),
    ("stripe_key", "stripe {s}", "sk_" + "live_4eC39HqLyjWDarjtT1zdp7dc"),
    ("stripe_key", "restricted {s}", "rk_" + "live_4eC39HqLyjWDarjtT1zdp7dc"),
    (
        "jwt",
        "cookie {s};",
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0."
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    ("bearer_token", "Authorization: Bearer {s}", "abcdef1234567890abcdef.ghijkl"),
    ("basic_auth", "Authorization: Basic {s}", "dXNlcjpwYXNzd29yZA=="),
    ("password", "password={s} done", "hunter2"),
    ("password", "passwd: {s}", "s3cr3t!x"),
    ("secret", 'api_key = "{s}"', "abc123xyz"),
    ("secret", "token: {s}", "tok_1234abcd"),
    ("secret", "secret={s}", "shh123"),
    ("secret", "令牌：{s}", "tk-8842-ab"),
    ("password", 'config = {{"db_password": "{s}"}}', "correct horse battery"),
    ("password", "my password is {s}.", "hunter2"),
    ("password", "我的密码是{s}。", "Abc@12345"),
    ("password", "密码：{s}", "qwerty123"),
    ("password", "WiFi password：{s}", "Tr0ub4dor&3"),
    ("secret", "https://api.example.com/v1/items?api_key={s}&page=2", "9f2c7a1e5b"),
    ("password", "wifi 密码为 {s}", "88889999"),
    ("connection_string", "postgres://admin:{s}@db.example.com:5432/app", "S3cretPass"),
    ("connection_string", "mongodb+srv://user:{s}@cluster0.mongodb.net/db", "p%40ssw0rd"),
    ("connection_string", "redis://:{s}@localhost:6379/0", "foobared123"),
    ("high_entropy", "random {s} here", B62),
    ("credit_card", "card {s} exp 12/27", "4111 1111 1111 1111"),
    ("credit_card", "amex {s}", "378282246310005"),
]


@pytest.mark.parametrize(("kind", "template", "secret"), CASES)
def test_each_pattern_is_redacted(kind: str, template: str, secret: str) -> None:
    text = template.format(s=secret)
    result = redact(text)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert kind in result.kinds


@pytest.mark.parametrize(("kind", "template", "secret"), CASES)
def test_reject_mode_names_the_kind_not_the_secret(kind: str, template: str, secret: str) -> None:
    with pytest.raises(InvalidInputError) as info:
        apply_guard(template.format(s=secret), "reject")
    assert info.value.field == "content"
    assert kind in info.value.message
    assert secret not in str(info.value)


def test_private_key_block_multiline() -> None:
    body = "MIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi\nZ1BjP5CE/Wm/Rr500PRK+Lh9x5eJPo5CAZ3/ANBE0s\n"
    text = f"before\n-----BEGIN RSA PRIVATE KEY-----\n{body}-----END RSA PRIVATE KEY-----\nafter"
    result = redact(text)
    assert result.text == "before\n[REDACTED:private_key]\nafter"
    assert "MIIE" not in result.text


def test_truncated_private_key_is_still_redacted() -> None:
    head = "-----BEGIN OPENSSH PRIVATE KEY-----"
    text = f"{head}\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\nQyNTUxOQAAACBx\n(cut) bye"
    result = redact(text)
    assert "b3Blbn" not in result.text and "QyNTUx" not in result.text
    assert result.text.endswith("(cut) bye")


def test_connection_string_keeps_user_and_host() -> None:
    result = redact("postgres://admin:S3cretPass@db.example.com:5432/app")
    assert result.text == "postgres://admin:[REDACTED:connection_string]@db.example.com:5432/app"


def test_findings_index_the_original_and_hold_no_value() -> None:
    secret = "hunter2x"
    text = f"password={secret}"
    (finding,) = scan(text)
    assert finding == Finding("password", 9, 9 + len(secret))
    assert text[finding.start : finding.end] == secret
    assert not hasattr(finding, "value")


def test_redacted_text_is_stable() -> None:
    once = redact("password=hunter2 and key sk-" + "proj-" + B62).text
    assert redact(once).text == once
    assert scan(once) == []


def test_overlapping_findings_are_merged_with_the_specific_kind() -> None:
    key = "sk-" + "proj-" + B62
    text = f'api_key = "{key}"'  # labelled password rule, openai rule and entropy all fire
    findings = scan(text)
    assert len(findings) == 1
    assert findings[0].kind == "openai_key"
    assert redact(text).text == 'api_key = "[REDACTED:openai_key]"'


def test_adjacent_overlaps_extend_the_span() -> None:
    # a JWT inside a Bearer header: bearer rule and jwt rule overlap -> one redaction
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIzNDU2Nzg5"
    result = redact(f"Authorization: Bearer {jwt}")
    assert result.text.count("[REDACTED:") == 1
    assert jwt not in result.text


def test_pii_only_on_request() -> None:
    text = "Mail bob@example.com or call (415) 555-0100 / +44 20 7946 0958 / 13812345678."
    assert redact(text).clean
    result = redact(text, pii=True)
    assert result.kinds == ["email", "phone"]
    for value in ("bob@example.com", "555-0100", "7946 0958", "13812345678"):
        assert value not in result.text


def test_credit_card_needs_luhn_and_issuer() -> None:
    assert redact("order 4111111111111112").clean  # Luhn fails
    assert redact("ts 1684539840000 and 1234567812345670").clean  # no card issuer prefix
    assert redact("card 5555-5555-5555-4444").kinds == ["credit_card"]
    assert redact("卡号4111111111111111，有效期到明年").kinds == ["credit_card"]
    # a run of digits inside a hex id passes Luhn by chance: no card (an import of an
    # export was refused for ent_d2231171619850f10ac187f5)
    assert redact("ent_d2231171619850f10ac187f5").clean
    assert redact("ent_4936582771664acacbca8521").clean


def test_reject_field_is_a_parameter_and_clean_text_passes() -> None:
    with pytest.raises(InvalidInputError) as info:
        apply_guard("password=hunter2", "reject", field="messages[2].content")
    assert info.value.field == "messages[2].content"
    assert "password" in info.value.message and "hunter2" not in str(info.value)
    ok = apply_guard("I like green tea.", "reject")
    assert ok == GuardResult("I like green tea.", ())


def test_apply_guard_redact_mode() -> None:
    result = apply_guard("secret=shh123 please", "redact")
    assert result.text == "secret=[REDACTED:secret] please"
    assert result.findings[0].kind == "secret"


def test_query_parameter_value_stops_at_the_next_parameter() -> None:
    result = redact("https://api.example.com/v1/items?api_key=9f2c7a1e5b&page=2")
    assert result.text == "https://api.example.com/v1/items?api_key=[REDACTED:secret]&page=2"


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError):
        apply_guard("x", "drop")  # type: ignore[arg-type]


ORDINARY = [
    "I switched from VS Code to Neovim last week and I love it.",
    "My sister Alice works at Acme Corp as a senior data engineer.",
    "Reset your password: click the link in the e-mail.",
    "The secret: practice every day, and sleep well.",
    "The password is correct, thanks!",
    "Her token of appreciation was a handwritten card.",
    "I prefer dark roast coffee, no sugar.",
    "我喜欢喝咖啡，不再喝茶了。",
    "我想知道我的密码是多少？",
    "密码是什么来着？我忘了。",
    "去年我在北京的一家创业公司做后端开发，用的是 Python 和 PostgreSQL。",
    "We deployed version 2.14.3 on 2023-05-20 at 00:44 UTC.",
    "The meeting is at 10:30 in room 4012; ticket JIRA-20391.",
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the bug",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "request id 550e8400-e29b-41d4-a716-446655440000 failed",
    "See https://github.com/encode/starlette/blob/master/starlette/routing.py#L120",
    "Doc: https://docs.google.com/document/d/1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms/edit",
    "Video https://www.youtube.com/watch?v=dQw4w9WgXcQ&t=42s",
    "Connect with postgres://db.example.com:5432/app (no credentials in the URL).",
    "https://user:${DB_PASSWORD}@db.internal/app uses an env var",
    "I use scikit-learn (sk-learn) and the sk-learn-intro-tutorial-for-beginners notebook.",
    "Call getUserAccountSettingsForOrganization2 then AbstractSingletonProxyFactoryBean42.",
    "path src/graphmem/store/neo4j_backend/relations_query_builder.py",
    "test_user_can_reset_password_with_valid_token_v2 passed",
    "--enable-experimental-feature-flag-2024-rollout is on",
    "My phone number is on the fridge and my e-mail is in the contacts.",
    "The Bearer of bad news arrived at 9am.",
]

CODE = [
    "password: str = Field(..., min_length=8)",
    "token = get_token()",
    "max_token = 100",
    "api_key = os.environ['OPENAI_API_KEY']",
    'api_key = os.getenv("OPENAI_API_KEY")',
    "self.secret = config.secret",
    "secret_key: SecretStr",
    "DB_PASSWORD=changeme",
    "password = PASSWORD",
    "token: ${GITHUB_TOKEN}",
    'headers = {"Authorization": f"Bearer {token}"}',
    "if password == user_password:",
    "for i, token in enumerate(tokens):",
    "x = base64.b64encode(data).decode()",
]


@pytest.mark.parametrize("text", ORDINARY + CODE)
def test_no_false_positives(text: str) -> None:
    result = redact(text)
    assert result.clean, result
    assert result.text == text


def test_scan_stays_linear_on_pathological_input() -> None:
    # regression: nested quantifiers once made these quadratic (minutes on 50k chars)
    for text in ("a_" * 20_000, "a." * 20_000, "a" * 40_000, " " * 40_000, "+1" * 20_000):
        assert scan(text, pii=True) == []


def test_entropy_fallback_can_be_turned_off() -> None:
    assert redact(f"random {B62}", entropy=False).clean
