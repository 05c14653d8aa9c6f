"""docker-compose.yml and the Dockerfile: wiring checked statically (no Docker engine needed).

``docker-compose config`` (Debian's docker-compose 1.29, which validates without an engine)
runs when the binary is there; CI installs it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _env(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the "- KEY=value" form
        env = dict(item.split("=", 1) for item in env)
    return {k: str(v) for k, v in env.items()}


def test_services(compose: dict[str, Any]) -> None:
    assert set(compose["services"]) == {"neo4j", "graphmem"}
    assert re.fullmatch(r"neo4j:5(\.[\w.-]+)?", compose["services"]["neo4j"]["image"])


def test_neo4j_auth_from_env_with_default(compose: dict[str, Any]) -> None:
    auth = _env(compose["services"]["neo4j"])["NEO4J_AUTH"]
    assert re.fullmatch(r"\$\{NEO4J_USER:-\w+\}/\$\{NEO4J_PASSWORD:-[^}]{8,}\}", auth), auth


def test_neo4j_healthcheck_queries_bolt(compose: dict[str, Any]) -> None:
    hc = compose["services"]["neo4j"]["healthcheck"]
    test = hc["test"]
    assert test[0] in ("CMD", "CMD-SHELL")
    assert "cypher-shell" in " ".join(test[1:]) and "RETURN 1" in " ".join(test[1:])
    for key in ("interval", "timeout", "retries"):
        assert key in hc


def test_neo4j_data_on_a_named_volume(compose: dict[str, Any]) -> None:
    volumes = compose["services"]["neo4j"]["volumes"]
    named = [v.split(":")[0] for v in volumes if v.split(":")[1] == "/data"]
    assert named and named[0] in (compose.get("volumes") or {})


def test_graphmem_waits_for_healthy_neo4j(compose: dict[str, Any]) -> None:
    svc = compose["services"]["graphmem"]
    assert svc["depends_on"] == {"neo4j": {"condition": "service_healthy"}}
    build = svc["build"]
    context = build if isinstance(build, str) else build.get("context", ".")
    assert (ROOT / context / "Dockerfile").is_file()
    assert any(str(p).split(":")[-2:] == ["8420", "8420"] for p in svc["ports"])


def test_graphmem_configured_for_neo4j(compose: dict[str, Any]) -> None:
    env = _env(compose["services"]["graphmem"])
    assert env["GRAPHMEM_STORE"] == "neo4j"
    assert env["GRAPHMEM_NEO4J_URI"] == "bolt://neo4j:7687"
    assert env["GRAPHMEM_NEO4J_INDEX_MODE"] == "native"
    # The same variables (and defaults) as NEO4J_AUTH, so the two can never disagree.
    auth = _env(compose["services"]["neo4j"])["NEO4J_AUTH"]
    user, password = auth.split("/", 1)
    assert env["GRAPHMEM_NEO4J_USER"] == user
    assert env["GRAPHMEM_NEO4J_PASSWORD"] == password


def test_environment_names_are_real_settings(compose: dict[str, Any]) -> None:
    from graphmem.settings import Settings

    fields = set(Settings.model_fields)
    for name in _env(compose["services"]["graphmem"]):
        assert name.startswith("GRAPHMEM_")
        assert name.removeprefix("GRAPHMEM_").lower() in fields, name


# --------------------------------------------------------------------------- docker-compose


@pytest.mark.skipif(shutil.which("docker-compose") is None,
                    reason="the docker-compose binary is not installed (CI installs Debian's "
                           "docker-compose 1.29 to validate the file)")
@pytest.mark.parametrize("password", [None, "s3cret-passw0rd"])
def test_docker_compose_config_validates(password: str | None) -> None:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NEO4J_", "GRAPHMEM_", "COMPOSE_"))}
    if password:
        env["NEO4J_PASSWORD"] = password
    env["GRAPHMEM_API_KEYS"] = '{"compose-key": ["*"]}'
    proc = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    resolved = yaml.safe_load(proc.stdout)
    neo4j = _env(resolved["services"]["neo4j"])
    graphmem = _env(resolved["services"]["graphmem"])
    expected = password or "graphmem-local"
    assert neo4j["NEO4J_AUTH"] == f"neo4j/{expected}"
    assert graphmem["GRAPHMEM_NEO4J_PASSWORD"] == expected
    assert resolved["services"]["graphmem"]["depends_on"]["neo4j"]["condition"] == \
        "service_healthy"
    assert graphmem["GRAPHMEM_API_KEYS"] == '{"compose-key": ["*"]}'


@pytest.mark.skipif(shutil.which("docker-compose") is None,
                    reason="the docker-compose binary is not installed")
def test_docker_compose_refuses_to_run_without_api_keys() -> None:
    """graphmem binds all interfaces in its container: no keys, no service."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NEO4J_", "GRAPHMEM_", "COMPOSE_"))}
    proc = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode != 0
    assert "GRAPHMEM_API_KEYS" in proc.stderr


# --------------------------------------------------------------------------- Dockerfile


def _instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def _exec_form(args: str) -> list[str]:
    args = args.strip()
    if args.startswith("["):
        value = json.loads(args)
        assert isinstance(value, list)
        return [str(v) for v in value]
    return shlex.split(args)


def test_dockerfile_base_user_and_port() -> None:
    ins = _instructions()
    froms = [a for i, a in ins if i == "FROM"]
    assert froms and all(a.split()[0] == "python:3.12-slim" for a in froms)
    users = [a for i, a in ins if i == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert any(i == "EXPOSE" and "8420" in a.split() for i, a in ins)
    assert any(i == "RUN" and "pip install" in a for i, a in ins)


def test_dockerfile_healthcheck_hits_health() -> None:
    checks = [a for i, a in _instructions() if i == "HEALTHCHECK"]
    assert len(checks) == 1
    cmd = checks[0].split("CMD", 1)[1]
    assert "/health" in cmd and "8420" in cmd


def test_dockerfile_cmd_is_a_real_serve_command() -> None:
    cmds = [a for i, a in _instructions() if i == "CMD"]
    assert cmds
    argv = _exec_form(cmds[-1])
    assert argv[:2] == ["graphmem", "serve"]
    top = subprocess.run([sys.executable, "-m", "graphmem.cli", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    assert re.search(r"^\s+serve\s", top, flags=re.M)
    helptext = subprocess.run([sys.executable, "-m", "graphmem.cli", "serve", "--help"],
                              cwd=ROOT, capture_output=True, text=True, timeout=60,
                              check=True).stdout
    flags = [a for a in argv[2:] if a.startswith("-")]
    assert "--host" in flags
    for flag in flags:
        assert re.search(rf"(^|[\s,\[]){re.escape(flag.split('=')[0])}\b", helptext), flag
    # --host takes 0.0.0.0 so the published port is reachable from outside the container.
    assert argv[argv.index("--host") + 1] == "0.0.0.0"


def test_entrypoint_script_exists_in_the_project() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^graphmem\s*=\s*"graphmem\.cli:main"', text, flags=re.M)


def test_dockerignore_keeps_the_context_small() -> None:
    ignore = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    for name in (".git", ".venv"):
        assert name in ignore
