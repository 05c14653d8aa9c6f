"""Who speaks in an episode sent without a ``speaker``.

Many chat clients send a line as content "Caroline: I went to the support group" and no
``speaker``; others send ``role: user`` and no name at all. Here:

* ``head`` reads a leading label conservatively: a short name-like token sequence
  ("Caroline", "Mary Ann", "Dr. Smith", 张伟) before ": " (or the full-width "："), never a
  heading word ("Note: ", "TODO: ", "Re: ", "Q: "), a time ("10:30"), a URL or a phrase
  with lowercase words in it. Role words ("User: ", "Assistant: ", 用户：) give the role.
* ``Labels.resolve`` learns per user which labels are speakers: a label is taken as the
  speaker when the user already has it as a speaker, when it heads two lines or more of
  one write, or when it headed an earlier episode of the same session (that earlier
  episode then gets its speaker too). A label seen once and never again stays text.
* an episode whose label is taken keeps its ``content`` exactly as sent; its speaker is
  the label, the text it is embedded and extracted from is the line without it, and the
  extractor attributes "I ..." to the speaker.
* a ``role: user`` episode with no name speaks for the user, named when the user's name
  is known (their current ``name_is`` relation, else the one speaker their recent
  ``role: user`` episodes of the session were sent with).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from graphmem.extract import Message
from graphmem.model import normalize
from graphmem.relations import page_query

if TYPE_CHECKING:
    from graphmem.ingest import PreparedEpisode
    from graphmem.store.base import Row, Store

#: How many of a session's latest episodes are read to learn its speakers.
LOOKBACK = 40
#: Longest label read as a speaker.
MAX_LABEL = 40

# A label and what follows it: an ASCII colon wants a space after it (not "10:30",
# "http://", "Re:subject"), the full-width colon does not.
_HEAD = re.compile(r"^[ \t]*([^\n:：]{1,40}?)[ \t]*(?::[ \t]+|：[ \t]*)(?=\S)")
_CJK_NAME = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]{2,4}|"
                       r"[\u3400-\u4dbf\u4e00-\u9fff]{1,6}[·•][\u3400-\u4dbf\u4e00-\u9fff]{1,6}")
_TOKEN = re.compile(r"[^\W\d_][\w'’.-]*")
# Lowercase words a name may hold between capitalised ones (Ludwig van Beethoven).
_PARTICLES = frozenset("van von de da del della der den di du la le bin al el dos das".split())
# Labels that head lines without being anyone's name.
_NOT_SPEAKERS = frozenset(w.casefold() for w in """
note notes nb n.b. ps p.s. pps todo to-do re fw fwd q a qa q&a question questions answer
answers edit edited update updated important warning caution tip tips hint reminder
reminders summary tldr subject title topic date time location place where when who what
why how step example examples source sources ref reference see reason result results
status goal goals task tasks fix bug error info fyi agenda menu ingredients price cost
total address phone email e-mail url link http https ftp mailto file path input output pros
cons yes no ok news breaking disclaimer spoiler bonus idea ideas plan plans next then now
today tomorrow yesterday tonight morning afternoon evening night breakfast lunch dinner
monday tuesday wednesday thursday friday saturday sunday january february march april may
june july august september october november december correction context background
problem solution conclusion overview description details comment comments feedback
response reply quote translation definition meaning keywords tags tag category priority
deadline due owner action next steps outcome objective objectives requirements usage
syntax returns parameters args warning error caveat hello hi hey dear thanks
注意 备注 注 提示 问题 问 答 回答 答案 时间 地点 日期 总结 标题 主题 原因 结果 更新 警告 重要
待办 今天 明天 昨天 说明 例如 比如 优点 缺点 目标 计划 步骤 地址 电话 价格 备忘 早餐 午餐 晚餐
内容 评论 回复 结论 背景 要求 任务 会议 议程 摘要 关键词 标签 链接 网址 邮箱 描述 定义
教训 经验 心得 体会 收获 启发 感想 感悟 反思 复盘 建议 提醒 补充 附注 笔记 重点 要点 小结
lesson lessons takeaway takeaways learning learnings insight insights rule tl;dr
""".split())
# Words that start or fill a phrase, not a name ("The Plan: ...", "My Take: ...").
_FUNCTION = frozenset("the a an my our your his her their this that these those and or of "
                      "for to in on at with by from is are was".split())
# Role words at a line head ("User: ...", "Assistant: ...") and the role they give.
ROLE_LABELS = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant",
               "bot": "assistant", "system": "system", "用户": "user", "助手": "assistant",
               "系统": "system"}


@dataclass(frozen=True, slots=True)
class Head:
    """A line's leading label: ``role`` for a role word, else the speaker's ``name``."""

    label: str
    text: str
    role: str | None = None


def head(line: str) -> Head | None:
    """The speaker label a line starts with, or None (see the module's rules)."""
    m = _HEAD.match(line)
    if m is None:
        return None
    label, text = m.group(1).strip(), line[m.end():].strip()
    folded = label.casefold()
    if not text or folded in _NOT_SPEAKERS:
        return None
    if folded in ROLE_LABELS:
        return Head(label, text, ROLE_LABELS[folded])
    return Head(label, text) if _name_like(label) else None


def _name_like(label: str) -> bool:
    if _CJK_NAME.fullmatch(label):
        # not a phrase: 我认为：, 这个问题：, 他的意思：
        return label[0] not in "我你您他她它这那咱" and "的" not in label
    tokens = label.split()
    if not 1 <= len(tokens) <= 3 or len(label) > MAX_LABEL:
        return False
    for i, tok in enumerate(tokens):
        if not _TOKEN.fullmatch(tok) or tok.casefold() in _FUNCTION:
            return False
        if not tok[0].isupper() and not (0 < i < len(tokens) - 1 and tok in _PARTICLES):
            return False
    return len(tokens) > 1 or len(label.rstrip(".")) > 1  # not "Q", "A", "I"


def lines(content: str) -> list[Head | str]:
    """The non-empty lines of ``content``, each read as a ``Head`` or left as text."""
    out: list[Head | str] = []
    for raw in content.splitlines():
        if raw.strip():
            out.append(head(raw) or raw.strip())
    return out


def shown(speaker: str | None, content: str) -> str:
    """An episode as recall shows it: "speaker: content", unless the content already
    starts with that label."""
    if not speaker:
        return content
    first = head(content.split("\n", 1)[0])
    if first is not None and first.label.casefold() == speaker.casefold():
        return content
    return f"{speaker}: {content}"


def labelled_by(content: str, name: str) -> bool:
    """Does a line of ``content`` start with ``name`` as its label?"""
    folded = name.casefold()
    return any(isinstance(h, Head) and h.label.casefold() == folded for h in lines(content))


# ---------------------------------------------------------------------- resolution


@dataclass(slots=True)
class Labels:
    """What one write learned: earlier episodes whose label is now a speaker."""

    relabel: dict[str, str] = field(default_factory=dict)  # episode id -> speaker

    @classmethod
    def resolve(cls, store: Store, user_id: str, batch: list[PreparedEpisode],
                known: Callable[[], list[str]], now_ms: int) -> Labels:
        """Set speaker, role and messages of ``batch``'s episodes sent without a speaker.

        ``known``: the user's speakers (the ``speaker`` of their stored episodes), read
        only when an episode of the batch needs them.
        """
        out = cls()
        open_ = [p for p in batch if p.from_content and p.speaker is None]
        parsed = {p.id: lines(p.content) for p in open_}
        parsed = {i: ls for i, ls in parsed.items() if ls and isinstance(ls[0], Head)}
        open_ = [p for p in open_ if p.id in parsed]
        unnamed = [p for p in batch if _unnamed_user(p) and p.id not in parsed]
        names = {k.casefold(): k for k in known()} if open_ else {}
        heads = [(p.session_id, h) for p in open_ for h in parsed[p.id]
                 if isinstance(h, Head) and h.role is None]
        # new labels: look back in their sessions (a label said there before is a speaker)
        unsure = sorted({s for s, h in heads if h.label.casefold() not in names})
        counts = Counter(h.label.casefold() for _, h in heads)
        for _, h in heads:
            if counts[h.label.casefold()] >= 2:
                names.setdefault(h.label.casefold(), h.label)
        recent = {s: _recent(store, user_id, s) for s in unsure}
        for session in unsure:
            here = {h.label.casefold() for s, h in heads if s == session}
            for row in recent[session]:
                if row.get("speaker") or row["id"] in parsed:
                    continue
                first = head(str(row.get("content") or "").split("\n", 1)[0])
                if first is None or first.role is not None:
                    continue
                label = first.label.casefold()
                if label in here:
                    names.setdefault(label, first.label)
                    out.relabel[row["id"]] = names[label]
        for p in open_:
            _apply(p, parsed[p.id], names)
        unnamed += [p for p in open_ if _unnamed_user(p)]  # "User: ..." lines
        if unnamed:
            by_name = _user_name(store, user_id, now_ms)
            for p in unnamed:
                name = by_name
                if not name and (names or known()):  # was the user sent with a name?
                    if p.session_id not in recent:
                        recent[p.session_id] = _recent(store, user_id, p.session_id)
                    name = _sent_user_speaker(recent[p.session_id])
                if name:
                    _name_user(p, name)
        return out


def _apply(p: PreparedEpisode, heads: list[Head | str], names: dict[str, str]) -> None:
    """Take the labels of one episode when they read as a transcript whose speakers are
    known (every line labelled, or unlabelled lines continuing the line before)."""
    if not heads or not isinstance(heads[0], Head):
        return
    labelled = [h for h in heads if isinstance(h, Head)]
    if not any(h.role is not None or h.label.casefold() in names for h in labelled):
        return
    if any(h.role is None and h.label.casefold() not in names for h in labelled) \
            and len(labelled) < 2:
        return
    base = p.messages[0]
    turns: list[tuple[Head, list[str]]] = []
    for h in heads:
        if isinstance(h, Head):
            turns.append((h, [h.text]))
        else:
            turns[-1][1].append(h)
    messages = []
    for h, texts in turns:
        speaker = None if h.role is not None else names.get(h.label.casefold(), h.label)
        role = h.role or base.role
        messages.append(Message("\n".join(texts), role, speaker, base.occurred_at))
    p.messages = messages
    who = {m.speaker for m in messages}
    roles = {m.role for m in messages}
    p.speaker = next(iter(who)) if len(who) == 1 else None
    p.role = next(iter(roles)) if len(roles) == 1 else None
    if len(messages) == 1:
        p.index_text = messages[0].content
    p.speaker_from = "label" if p.speaker else None


def _unnamed_user(p: PreparedEpisode) -> bool:
    """A user's turn with no name, and no unconfirmed label that might be someone else's."""
    if p.speaker is not None or p.role != "user":
        return False
    if any(m.speaker is not None or m.role != "user" for m in p.messages):
        return False
    first = head(p.content.split("\n", 1)[0]) if p.from_content else None
    return first is None or first.role is not None


def _name_user(p: PreparedEpisode, name: str) -> None:
    p.messages = [replace(m, speaker=name) for m in p.messages]
    p.speaker = name
    p.speaker_from = "user"


def _recent(store: Store, user_id: str, session_id: str) -> list[Row]:
    """The session's latest episodes (at most ``LOOKBACK``), newest last."""
    total, _ = store.page_episodes(user_id, session_id=session_id, with_forgotten=False,
                                   offset=0, limit=0)
    if not total:
        return []
    _, ids = store.page_episodes(user_id, session_id=session_id, with_forgotten=False,
                                 offset=max(0, total - LOOKBACK), limit=LOOKBACK)
    rows = {r["id"]: r for r in store.nodes("Episode", user_id, ids)}
    return [rows[i] for i in ids if i in rows]


def _user_name(store: Store, user_id: str, now_ms: int) -> str | None:
    """The user's current name, from a ``name_is`` of "user" ("my name is ...")."""
    query = page_query(as_of=None, known_at=None, now=now_ms, history=False,
                       newest_first=True, after=None, limit=1)
    rows = store.relations(user_id, subject=normalize("user"), predicate=normalize("name_is"),
                           obj=None, page=query)
    return str(rows[0]["object"]) if rows else None


def _sent_user_speaker(recent: list[Row]) -> str | None:
    """The one name the session's recent ``role: user`` episodes were sent with, if one."""
    sent = {str(r["speaker"]) for r in recent if r.get("speaker") and r.get("role") == "user"
            and not r.get("speakerFrom")}
    return next(iter(sent)) if len(sent) == 1 else None
