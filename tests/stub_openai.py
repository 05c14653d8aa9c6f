"""A local OpenAI-compatible HTTP server for tests: scripted chat replies, hashed embeddings.

Runs a Starlette app under uvicorn in a background thread on a free 127.0.0.1 port, so
tests drive the real ``openai`` client over real HTTP::

    with OpenAIStub() as stub:
        stub.reply('{"entities": [], "relations": []}')   # next chat reply
        stub.fail(429, retry_after=0.01)                   # then an HTTP error
        client = OpenAI(base_url=stub.base_url, api_key="test")

``POST /v1/chat/completions`` pops the next scripted ``Reply``; when the queue is empty it
answers with ``default_reply(messages)``. ``POST /v1/embeddings`` answers with
``HashingEmbedder`` vectors (float or base64, as the client asks). Both report usage
with tokens approximated as ``len(text) // 4`` and count what they received.
"""

from __future__ import annotations

import asyncio
import base64
import json
import socket
import struct
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from graphmem.embed import HashingEmbedder

EMPTY_EXTRACTION = '{"entities": [], "relations": []}'


@dataclass
class Reply:
    """One scripted answer.

    ``content``: the assistant message text (may be deliberately malformed JSON).
    ``status``: an HTTP status; not 200 gives an OpenAI-style error body.
    ``retry_after``: sent as the ``Retry-After`` header (seconds) with an error status.
    ``delay``: seconds to wait before answering (to force client timeouts).
    ``raw_body``: sent verbatim as the HTTP body instead of a completion object.
    """

    content: str | None = EMPTY_EXTRACTION
    status: int = 200
    retry_after: float | str | None = None
    delay: float = 0.0
    raw_body: str | None = None
    finish_reason: str = "stop"


def approx_tokens(text: str) -> int:
    """The stub's token count: ``len(text) // 4``, at least 1 for non-empty text."""
    return max(1, len(text) // 4) if text else 0


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


class OpenAIStub:
    """The server, its script and its counters. Start with ``start()`` or ``with``."""

    def __init__(self, *, embedding_dim: int = 384, model: str = "stub-model") -> None:
        self.embedding_dim = embedding_dim
        self.model = model
        self.default_reply: Callable[[list[dict[str, Any]]], str | Reply] = (
            lambda _messages: EMPTY_EXTRACTION
        )
        self._lock = threading.Lock()
        self._chat_script: deque[Reply] = deque()
        self._embedding_script: deque[Reply] = deque()
        self.requests: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.embedding_bodies: list[dict[str, Any]] = []
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.embedding_tokens = 0
        self._closing = False
        # Bumped by reset(): a request still sleeping from an earlier test then stops early
        # and leaves the new test's counters alone.
        self._generation = 0
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self._port = 0
        self.app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/embeddings", self._embeddings, methods=["POST"]),
            ]
        )

    # -- script ----------------------------------------------------------------------

    def push(self, *replies: Reply) -> None:
        """Queue chat replies, answered in order."""
        with self._lock:
            self._chat_script.extend(replies)

    def reply(self, content: str, *, delay: float = 0.0) -> None:
        """Queue one successful chat reply with ``content``."""
        self.push(Reply(content=content, delay=delay))

    def fail(self, status: int, *, retry_after: float | str | None = None, times: int = 1) -> None:
        """Queue ``times`` chat replies failing with HTTP ``status``."""
        self.push(*[Reply(status=status, retry_after=retry_after) for _ in range(times)])

    def slow(self, delay: float, content: str = EMPTY_EXTRACTION, *, times: int = 1) -> None:
        """Queue ``times`` chat replies that arrive after ``delay`` seconds."""
        self.push(*[Reply(content=content, delay=delay) for _ in range(times)])

    def raw(self, body: str) -> None:
        """Queue one chat answer whose HTTP body is ``body`` verbatim (status 200)."""
        self.push(Reply(raw_body=body))

    def push_embedding(self, *replies: Reply) -> None:
        """Queue embedding answers (only ``status``/``retry_after``/``delay`` are used)."""
        with self._lock:
            self._embedding_script.extend(replies)

    def fail_embeddings(self, status: int, *, times: int = 1) -> None:
        """Queue ``times`` embedding answers failing with HTTP ``status``."""
        self.push_embedding(*[Reply(status=status) for _ in range(times)])

    def pending(self) -> int:
        """Scripted chat replies not yet served."""
        with self._lock:
            return len(self._chat_script)

    def reset(self) -> None:
        """Forget the script, the default reply and every counter."""
        with self._lock:
            self._chat_script.clear()
            self._embedding_script.clear()
            self.default_reply = lambda _messages: EMPTY_EXTRACTION
            self.requests.clear()
            self.bodies.clear()
            self.embedding_bodies.clear()
            self.prompt_tokens = self.completion_tokens = self.embedding_tokens = 0
            self._generation += 1

    # -- handlers --------------------------------------------------------------------

    async def _pause(self, seconds: float, generation: int) -> bool:
        """Sleep in small steps; False when the stub was stopped or reset meanwhile."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if self._closing or self._generation != generation:
                return False
            await asyncio.sleep(min(0.02, max(0.0, end - time.monotonic())))
        return True

    @staticmethod
    def _error(reply: Reply) -> Response:
        headers = {} if reply.retry_after is None else {"Retry-After": str(reply.retry_after)}
        kind = "rate_limit_exceeded" if reply.status == 429 else "server_error"
        body = {"error": {"message": f"stub {reply.status}", "type": kind, "code": kind}}
        return JSONResponse(body, status_code=reply.status, headers=headers)

    async def _chat(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": {"message": "bad json"}}, status_code=400)
        messages: list[dict[str, Any]] = list(body.get("messages") or [])
        with self._lock:
            self.requests["chat"] += 1
            self.bodies.append(body)
            scripted = self._chat_script.popleft() if self._chat_script else None
            default = self.default_reply
            generation = self._generation
        reply = scripted if scripted is not None else default(messages)
        if isinstance(reply, str):
            reply = Reply(content=reply)
        if reply.delay and not await self._pause(reply.delay, generation):
            return self._error(Reply(status=503))
        if reply.status != 200:
            return self._error(reply)
        if reply.raw_body is not None:
            return Response(reply.raw_body, media_type="application/json")
        prompt = approx_tokens("\n".join(_message_text(m) for m in messages))
        completion = approx_tokens(reply.content or "")
        with self._lock:
            if generation == self._generation:
                self.prompt_tokens += prompt
                self.completion_tokens += completion
            n = self.requests["chat"]
        return JSONResponse(
            {
                "id": f"chatcmpl-stub-{n}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", self.model),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": reply.content},
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
        )

    async def _embeddings(self, request: Request) -> Response:
        try:
            body = json.loads(await request.body())
        except ValueError:
            return JSONResponse({"error": {"message": "bad json"}}, status_code=400)
        with self._lock:
            self.requests["embeddings"] += 1
            self.embedding_bodies.append(body)
            scripted = self._embedding_script.popleft() if self._embedding_script else None
            generation = self._generation
        if scripted is not None:
            if scripted.delay and not await self._pause(scripted.delay, generation):
                return self._error(Reply(status=503))
            if scripted.status != 200:
                return self._error(scripted)
        raw = body.get("input")
        texts = [raw] if isinstance(raw, str) else [str(t) for t in (raw or [])]
        dim = int(body.get("dimensions") or self.embedding_dim)
        vectors = HashingEmbedder(dim).embed(texts)
        as_b64 = body.get("encoding_format") == "base64"
        data = []
        for i, vec in enumerate(vectors):
            emb: Any = vec
            if as_b64:
                emb = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(approx_tokens(t) for t in texts)
        with self._lock:
            if generation == self._generation:
                self.embedding_tokens += tokens
        return JSONResponse(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", self.model),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    # -- lifecycle -------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        """The ``/v1`` URL to give the ``openai`` client."""
        return f"http://127.0.0.1:{self._port}/v1"

    def start(self) -> OpenAIStub:
        """Bind a free loopback port and serve in a daemon thread; returns when ready."""
        if self._thread is not None:
            return self
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self._port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_level="warning",
            access_log=False,
            lifespan="off",
            timeout_graceful_shutdown=1,
        )
        self._closing = False
        self._server = uvicorn.Server(config)
        server = self._server
        self._thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="openai-stub", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("OpenAI stub server did not start")
            time.sleep(0.005)
        self._sock = sock
        return self

    def stop(self) -> None:
        """Stop serving and join the thread."""
        if self._server is None or self._thread is None:
            return
        self._closing = True
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()
        self._server = None
        self._thread = None

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
