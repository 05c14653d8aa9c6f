"""Several episodes in one model request: the prompt, and reading the answer per episode.

The model gets the usual instructions plus ``BATCH_NOTE`` and the episodes numbered
``Episode 0``, ``Episode 1``…, each with its messages numbered from 0. It answers
``{"episodes": [{"episode": n, "entities": [...], "relations": [...]}, ...]}``.
Each episode's part is validated on its own and strictly: a part that is missing, has the
wrong shape, or holds any item that does not validate is *invalid* as a whole (never
half-applied), and the caller extracts that episode again on its own.
"""

from __future__ import annotations

import json
from typing import Any

from graphmem.extract import Message
from graphmem.extract._llm_output import parse_json_object, speaker_label, to_extraction
from graphmem.model import Extraction, aware

BATCH_NOTE = """
Several episodes come in one request this time. Extract each episode on its own (an
episode's messages are the only context for its facts) and reply with ONE JSON object:
{"episodes": [{"episode": <episode number>, "entities": [...], "relations": [...]}, ...]}
with exactly one entry per episode, in order; message_index counts within its episode.
An episode with nothing to extract still gets {"episode": n, "entities": [], "relations": []}.
"""


def build_batch_messages(system_prompt: str, windows: list[list[Message]]
                         ) -> list[dict[str, str]]:
    """The chat messages for one request over several episodes."""
    blocks = []
    for e, window in enumerate(windows):
        lines = [f"Episode {e}:"]
        for i, msg in enumerate(window):
            when = aware(msg.occurred_at).isoformat() if msg.occurred_at else "unknown time"
            who = speaker_label(msg)
            role = f" ({msg.role})" if msg.role and msg.role != who else ""
            lines.append(f"[{i}] {when} | {who}{role}: {msg.content}")
        blocks.append("\n".join(lines))
    user = ("\n\n".join(blocks) + f"\n\nReturn the JSON object with {len(windows)} "
            "episode entries.")
    return [{"role": "system", "content": system_prompt + BATCH_NOTE},
            {"role": "user", "content": user}]


def parse_batch(text: str | None) -> dict[int, Any]:
    """Each episode's raw part of a batch reply, by episode number.

    Raises ``ValueError`` when the reply is no JSON object with an ``episodes`` list.
    """
    obj = json_object(text)
    episodes = obj.get("episodes")
    if not isinstance(episodes, list):
        raise ValueError("no 'episodes' list")
    parts: dict[int, Any] = {}
    for part in episodes:
        if isinstance(part, dict) and isinstance(part.get("episode"), int) \
                and not isinstance(part.get("episode"), bool):
            parts.setdefault(part["episode"], part)
    return parts


def json_object(text: str | None) -> dict[str, Any]:
    """The reply's JSON object (fences and prose around it tolerated, as for one episode)."""
    try:
        return parse_json_object(text)
    except ValueError as e:
        if "no 'entities' or 'relations' key" not in str(e):
            raise
    # A well-formed object without extraction keys (the batch shape): the same search for
    # the outermost braces that parse_json_object does, without its key check.
    s = (text or "").strip()
    obj = json.loads(s[s.find("{") : s.rfind("}") + 1])
    if not isinstance(obj, dict):
        raise ValueError("top level is not an object")
    return obj


def part_extraction(part: Any, window: list[Message]) -> Extraction | None:
    """One episode's validated extraction, or None when its part is invalid."""
    if not isinstance(part, dict):
        return None
    for key in ("entities", "relations"):
        if part.get(key) is not None and not isinstance(part.get(key), list):
            return None
    data = {"entities": part.get("entities") or [], "relations": part.get("relations") or []}
    result, dropped = to_extraction(data, window)
    return None if dropped else result
