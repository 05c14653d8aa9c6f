"""GraphiQL in a real headless Chromium: the page loads (assets served locally, no CDN) and
runs a query against the real app."""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest

from graphmem.api.app import create_app
from graphmem.inputs import EpisodeIn
from graphmem.store.falkor import FalkorStore

from .api_support import make_service

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--no-first-run"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(),
                       reason="needs Debian's chromium at /usr/bin/chromium "
                              "(apt-get install chromium)"),
]


@pytest.fixture
def live_url(embedded_store: FalkorStore) -> Iterator[str]:
    """The real app under uvicorn on a free loopback port, in a background thread."""
    import uvicorn

    service = make_service(embedded_store)
    app = create_app(service.settings, service)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="on",
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
        time.sleep(0.05)
    service.add_episode(EpisodeIn(user_id=f"browser-{port}", occurred_at="2024-03-01T09:00:00Z",
                                  content="I moved to Lisbon in February.",
                                  source_ref="chat-42"))
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(30)


def test_graphiql_runs_a_query(live_url: str) -> None:
    playwright = pytest.importorskip("playwright.sync_api")
    user = f"browser-{live_url.rsplit(':', 1)[1]}"
    query = ('query Eps($userId: ID!) {\n  episodes(userId: $userId) {\n'
             '    total\n    items { content sourceRef }\n  }\n}')
    variables = f'{{"userId": "{user}"}}'
    page_url = f"{live_url}/graphql#q={quote(query)}&variables={quote(variables)}"
    assert httpx.get(page_url, headers={"accept": "text/html"}).status_code == 200

    requests: list[str] = []
    problems: list[str] = []
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                    args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.on("request", lambda r: requests.append(r.url))
            page.on("response",
                    lambda r: problems.append(f"{r.status} {r.url}") if r.status >= 400 else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.goto(page_url, wait_until="load", timeout=60_000)
            button = page.locator(".graphiql-execute-button")
            button.wait_for(state="visible", timeout=60_000)
            button.click()
            result = page.locator(".graphiql-response")
            playwright.expect(result).to_contain_text("Lisbon", timeout=60_000)
            text = result.inner_text()
            if shot := os.environ.get("GRAPHMEM_SCREENSHOT"):
                page.screenshot(path=shot)
        finally:
            browser.close()
    assert "chat-42" in text and '"total": 1' in text, text
    outside = [u for u in requests if not u.startswith(live_url) and not u.startswith("data:")]
    assert not outside, f"the page fetched from outside the server: {outside}"
    assert not problems, (problems, requests)
