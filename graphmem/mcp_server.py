"""graphmem as an MCP server (the official ``mcp`` SDK): tools and resources over the
service, in-process.

Two transports share one definition (``build_mcp``):

- stdio (``graphmem mcp``): a desktop agent starts the process; it opens the store itself
  and trusts its caller as the CLI does (any user; ``--user`` sets the default one). With
  ``--url`` it opens no store and sends every call to a running graphmem server through
  ``graphmem.client`` (``_cli_mcp.RemoteMemory``, any ``Memory``): the server's API key
  decides.
- streamable HTTP at ``/mcp`` of the graphmem app (``mount_mcp``): stateless JSON
  requests behind the app's API-key middleware; each tool call is authorised against the
  key's users, exactly as a GraphQL resolver is.

Tool failures are MCP tool errors (``isError``) with a code and the argument at fault,
never a traceback.
"""

import functools
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any, Literal, Protocol, TypeVar

import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field

import graphmem
from graphmem import _mcp_format as fmt
from graphmem.errors import (
    ConflictError,
    ForbiddenError,
    GraphMemError,
    InvalidInputError,
    NotFoundError,
    UnavailableError,
)
from graphmem.inputs import EpisodeIn, MessageIn, RecallIn, RelationIn
from graphmem.model import Abstraction, Episode, MemoryKind, Relation
from graphmem.readers import Page, Readers
from graphmem.recall_model import RecallResult
from graphmem.reflect import ReflectResult
from graphmem.relations import RelationPage
from graphmem.service import EpisodeResult, MemoryService
from graphmem.timeparse import parse_timestamp

log = logging.getLogger("graphmem.mcp")
T = TypeVar("T")

INSTRUCTIONS = (
    "Long-term, temporal memory of a user. Call `recall` before answering questions about "
    "the user's past, preferences or facts; `remember` what the user says that is worth "
    "keeping (the server extracts facts from it), `remember_fact` for one explicit "
    "statement. Facts have validity in time: `as_of` asks what was true then, `history` "
    "shows how one fact changed, `what_changed` lists what was learned or closed since a "
    "time. Times are ISO-8601 (2024-03-01 or 2024-03-01T09:00:00Z).")


class Memory(Protocol):
    """What the tools call: a ``MemoryService`` in-process, or a running server's API
    (``graphmem mcp --url``, ``graphmem._cli_mcp.RemoteMemory``)."""

    def clock(self) -> datetime: ...
    def add_episode(self, data: EpisodeIn) -> EpisodeResult: ...
    def add_relation(self, data: RelationIn) -> Relation: ...
    def recall(self, q: RecallIn) -> RecallResult: ...
    def relations(self, user_id: str, *, limit: int = ...) -> list[Relation]: ...
    def relations_page(self, user_id: str, *, known_at: datetime | None = ...,
                       include_history: bool = ..., limit: int = ...,
                       after: str | None = ...) -> RelationPage: ...
    def history(self, user_id: str, relation_id: str) -> list[Relation]: ...
    def forget(self, user_id: str, memory_id: str) -> bool: ...
    def restore(self, user_id: str, memory_id: str) -> bool: ...
    def reflect(self, user_id: str) -> ReflectResult: ...
    def abstractions(self, user_id: str, *, as_of: datetime | None = ...
                     ) -> list[Abstraction]: ...


class EpisodePages(Protocol):
    """A user's episodes a page at a time (``graphmem.readers.Readers``)."""

    def episodes_page(self, user_id: str, *, session_id: str | None, limit: int, offset: int,
                      include_forgotten: bool = False) -> Page[Episode]: ...


class Caller(Protocol):
    """Who is calling over HTTP: the API key's principal (``graphmem.api.security``)."""

    allowed: frozenset[str] | None

    def authorize(self, user_id: str, field: str = "userId") -> None: ...


# --------------------------------------------------------------------------- arguments

UserArg = Annotated[str | None, Field(
    default=None, min_length=1, max_length=200,
    description="The user whose memory to use. Omit it to use the server's default user "
                "(the one the API key is limited to, or the one `graphmem mcp --user` "
                "names).")]
TimeArg = Annotated[str | None, Field(
    default=None, max_length=64,
    description="ISO-8601 date or date-time, e.g. 2024-03-01 or 2024-03-01T09:00:00Z "
                "(UTC when no offset).")]
IdArg = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^\S+$")]
ScopeArg = Annotated[str | None, Field(
    default=None, min_length=1, max_length=200,
    description="A project or workspace; reads see it and the user level. Omit it for the "
                "user level (writes) or every scope (recall).")]


class MessageArg(BaseModel):
    """One message of a conversation."""

    role: Literal["user", "assistant", "system", "tool"]
    content: Annotated[str, Field(min_length=1, max_length=20000)]
    name: Annotated[str | None, Field(max_length=200, description="the speaker's name")] = None


class Between(BaseModel):
    """A valid-time window [start, end)."""

    start: Annotated[str, Field(max_length=64, description="ISO-8601 date or date-time")]
    end: Annotated[str, Field(max_length=64, description="ISO-8601 date or date-time")]


Kind = Literal["episode", "relation", "entity", "abstraction"]


# --------------------------------------------------------------------------- plumbing


def _snake(name: str) -> str:
    last = name.rsplit(".", 1)[-1]
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in last)


def tool_error(e: GraphMemError) -> ToolError:
    """A service error as the tool error an LLM can act on (code, argument, why)."""
    if isinstance(e, InvalidInputError):
        return ToolError(f"BAD_ARGUMENT {_snake(e.field)}: {e.message}")
    if isinstance(e, NotFoundError):
        return ToolError(f"NOT_FOUND: no {e.what} {e.ident} for this user")
    if isinstance(e, ForbiddenError):
        return ToolError(f"FORBIDDEN: {str(e).split(': ', 1)[-1]}")
    if isinstance(e, ConflictError):
        return ToolError(f"CONFLICT: {e}")
    if isinstance(e, UnavailableError):
        return ToolError("UNAVAILABLE: the memory store is unavailable, try again later")
    log.error("tool failed: %s", type(e).__name__)
    return ToolError("ERROR: the memory service could not do this")


def _time(value: str | None, field: str) -> datetime | None:
    try:
        return None if value is None else parse_timestamp(value, field=field)
    except InvalidInputError as e:
        raise tool_error(e) from None


def _result(text: str, out: BaseModel) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structured_content=out.model_dump(mode="json"))


class _Tools:
    """The service and the caller behind every tool and resource of one server."""

    def __init__(self, get_service: Callable[[], Memory],
                 default_user: str | None) -> None:
        self.get_service = get_service
        self.default_user = default_user

    def user(self, ctx: Context | None, user_id: str | None) -> str:
        """The user a call is for, authorised for its caller."""
        caller = self._caller(ctx)
        user = (user_id or "").strip() or self.default_user
        if user is None and caller is not None and caller.allowed is not None:
            named = sorted(u for u in caller.allowed if u != "*")
            if len(named) == 1:
                user = named[0]
        if not user:
            raise ToolError("BAD_ARGUMENT user_id: required (this server has no default user)")
        if caller is not None:
            try:
                caller.authorize(user, "user_id")
            except ForbiddenError as e:
                raise tool_error(e) from None
        return user

    @staticmethod
    def _caller(ctx: Context | None) -> Caller | None:
        request = None
        if ctx is not None:
            try:
                request = ctx.request_context.request
            except ValueError:  # outside a request: the in-process (stdio) server
                request = None
        if request is None:
            return None  # stdio: the local process that started the server
        caller: Caller | None = (getattr(request, "scope", {}).get("state") or {}).get(
            "principal")
        if caller is None:  # over HTTP a call always has a principal; refuse without one
            raise ToolError("UNAUTHENTICATED: no API key")
        return caller

    async def run(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A blocking service call in a worker thread, its errors as tool errors."""
        try:
            return await anyio.to_thread.run_sync(functools.partial(fn, *args, **kwargs))
        except GraphMemError as e:
            raise tool_error(e) from None


# --------------------------------------------------------------------------- the server


def build_mcp(get_service: Callable[[], Memory], *, episodes: Callable[[], EpisodePages],
              default_user: str | None = None) -> MCPServer:
    """The MCP server: tools and resources over what ``get_service`` returns (episodes
    listed through ``episodes``)."""
    mcp: MCPServer = MCPServer("graphmem", instructions=INSTRUCTIONS,
                               version=graphmem.__version__, log_level="WARNING")
    t = _Tools(get_service, default_user)
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False,
                                idempotent_hint=True, open_world_hint=False)
    writes = ToolAnnotations(read_only_hint=False, destructive_hint=False,
                             idempotent_hint=True, open_world_hint=False)

    @mcp.tool(description=(
        "Store something that happened: what the user said or did (content), or a "
        "conversation (messages). Facts in it (preferences, where they live or work, tools, "
        "plans...) are extracted and kept with their time; the episode itself stays "
        "searchable. Sending the same episode again changes nothing."), annotations=writes)
    async def remember(
            ctx: Context,
            content: Annotated[str | None, Field(
                default=None, min_length=1, max_length=20000,
                description="What happened, as text. Give this or messages.")] = None,
            messages: Annotated[list[MessageArg] | None, Field(
                default=None, min_length=1, max_length=100,
                description="A conversation, in order. Give this or content.")] = None,
            occurred_at: Annotated[str | None, Field(
                default=None, max_length=64,
                description="When it happened (ISO-8601); default now.")] = None,
            session_id: Annotated[str | None, Field(default=None, max_length=200)] = None,
            source_ref: Annotated[str | None, Field(
                default=None, max_length=200,
                description="Your own id for it (a message id), returned as provenance."
            )] = None,
            scope: ScopeArg = None,
            user_id: UserArg = None) -> Annotated[CallToolResult, fmt.RememberOut]:
        user = t.user(ctx, user_id)
        if (content is None) == (messages is None):
            raise ToolError("BAD_ARGUMENT content: give exactly one of content or messages")
        service = t.get_service()
        when = _time(occurred_at, "occurred_at") or service.clock()
        episode = EpisodeIn(
            user_id=user, occurred_at=when, content=content,
            messages=None if messages is None else [
                MessageIn(role=m.role, content=m.content, name=m.name) for m in messages],
            session_id=session_id, source_ref=source_ref, source="mcp", scope=scope)
        result = await t.run(service.add_episode, episode)
        out = fmt.remember_out(result)
        return _result(fmt.remember_text(out, result.episode), out)

    @mcp.tool(description=(
        "Record one fact as subject - predicate - object (e.g. Ana - lives_in - Berlin), "
        "valid from a time. With exclusive=true the subject has one object at a time for "
        "that predicate: a newer fact supersedes the old one (kept as history), an older "
        "one is back-filled, two for the same moment are marked disputed."),
        annotations=writes)
    async def remember_fact(
            ctx: Context,
            subject: Annotated[str, Field(min_length=1, max_length=500)],
            predicate: Annotated[str, Field(
                min_length=1, max_length=100,
                description="snake_case verb: lives_in, works_at, prefers, likes, uses...")],
            object: Annotated[str, Field(min_length=1, max_length=500)],
            valid_from: Annotated[str | None, Field(
                default=None, max_length=64,
                description="When it became true (ISO-8601); default now.")] = None,
            valid_until: Annotated[str | None, Field(
                default=None, max_length=64,
                description="When it stopped being true; default open.")] = None,
            exclusive: Annotated[bool | None, Field(
                default=None, description="One object at a time for this subject and "
                                          "predicate; default from the predicate "
                                          "(lives_in, works_at, prefers... are).")] = None,
            statement: Annotated[str | None, Field(
                default=None, max_length=2000, description="A readable sentence for it.")
            ] = None,
            scope: ScopeArg = None,
            user_id: UserArg = None) -> Annotated[CallToolResult, fmt.RelationsOut]:
        user = t.user(ctx, user_id)
        data = RelationIn(user_id=user, subject=subject, predicate=predicate, object=object,
                          valid_from=_time(valid_from, "valid_from"),
                          valid_until=_time(valid_until, "valid_until"), exclusive=exclusive,
                          statement=statement, source_ref=None, scope=scope)
        rel = await t.run(t.get_service().add_relation, data)
        out = fmt.RelationsOut(relations=[fmt.relation_out(rel)])
        return _result("Recorded:\n" + fmt.relation_line(rel), out)

    @mcp.tool(description=(
        "Search the user's memory. Returns the best matches, each with its id, kind, score, "
        "validity and sources, plus conflicts (facts that contradict each other). A time "
        "phrase in the query ('last year', 'in March 2024') is understood; as_of asks what "
        "was true at a time, between restricts to a window; scope reads one project's memories "
        "and the user level's, session_id one session's."), annotations=read_only)
    async def recall(
            ctx: Context,
            query: Annotated[str, Field(min_length=1, max_length=2000,
                                        description="What to look for, in words.")],
            as_of: TimeArg = None,
            between: Annotated[Between | None, Field(
                default=None, description="Only what was valid in this window.")] = None,
            kinds: Annotated[list[Kind] | None, Field(
                default=None, min_length=1, max_length=4,
                description="Only these kinds of memory; default all.")] = None,
            limit: Annotated[int, Field(ge=1, le=50)] = 10,
            scope: ScopeArg = None,
            session_id: Annotated[str | None, Field(
                default=None, min_length=1, max_length=200,
                description="Only the episodes and facts of this session.")] = None,
            user_id: UserArg = None) -> Annotated[CallToolResult, fmt.RecallOut]:
        user = t.user(ctx, user_id)
        window = None
        if between is not None:
            start = _time(between.start, "between.start")
            end = _time(between.end, "between.end")
            assert start is not None and end is not None
            window = (start, end)
        q = RecallIn(user_id=user, query=query, as_of=_time(as_of, "as_of"), between=window,
                     limit=limit, kinds=[MemoryKind(k.upper()) for k in kinds] if kinds
                     else None, scope=scope, session_id=session_id)
        result = await t.run(t.get_service().recall, q)
        out = fmt.recall_out(result)
        return _result(fmt.recall_text(query, out), out)

    @mcp.tool(description=(
        "How one fact changed over time: every version of the relation (superseded, "
        "disputed, current), oldest first. relation_id comes from recall or remember_fact."),
        annotations=read_only)
    async def history(ctx: Context, relation_id: IdArg,
                      user_id: UserArg = None) -> Annotated[CallToolResult, fmt.RelationsOut]:
        user = t.user(ctx, user_id)
        chain = await t.run(t.get_service().history, user, relation_id)
        out = fmt.RelationsOut(relations=[fmt.relation_out(r) for r in chain])
        return _result(f"{len(chain)} version(s), oldest first:\n"
                       + "\n".join(fmt.relation_line(r) for r in out.relations), out)

    @mcp.tool(description=(
        "What changed in the user's memory since a time: facts recorded (added), closed "
        "(superseded or ended) or forgotten since then, newest first."), annotations=read_only)
    async def what_changed(
            ctx: Context,
            since: Annotated[str, Field(min_length=1, max_length=64,
                                        description="ISO-8601 date or date-time.")],
            until: TimeArg = None,
            limit: Annotated[int, Field(ge=1, le=200)] = 50,
            user_id: UserArg = None) -> Annotated[CallToolResult, fmt.ChangesOut]:
        from graphmem._mcp_changes import changes_since

        user = t.user(ctx, user_id)
        start = _time(since, "since")
        assert start is not None
        out = await t.run(changes_since, t.get_service(), user, start, _time(until, "until"),
                          limit)
        return _result(fmt.changes_text(out), out)

    @mcp.tool(description=(
        "Hide a memory (relation, episode, entity or abstraction, by id) from every read. "
        "Nothing is deleted: restore brings it back."),
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=True, open_world_hint=False))
    async def forget(ctx: Context, memory_id: IdArg,
                     user_id: UserArg = None) -> Annotated[CallToolResult, fmt.DoneOut]:
        user = t.user(ctx, user_id)
        changed = await t.run(t.get_service().forget, user, memory_id)
        return _result(f"{memory_id} {'forgotten' if changed else 'was already forgotten'}.",
                       fmt.DoneOut(id=memory_id, changed=changed))

    @mcp.tool(description="Bring a forgotten memory back, unchanged.", annotations=writes)
    async def restore(ctx: Context, memory_id: IdArg,
                      user_id: UserArg = None) -> Annotated[CallToolResult, fmt.DoneOut]:
        user = t.user(ctx, user_id)
        changed = await t.run(t.get_service().restore, user, memory_id)
        return _result(f"{memory_id} {'restored' if changed else 'was not forgotten'}.",
                       fmt.DoneOut(id=memory_id, changed=changed))

    @mcp.tool(description=(
        "Draw conclusions from repeated evidence in the user's facts (consistent "
        "preferences, habits, rules) and store them as abstractions; returns what changed."),
        annotations=writes)
    async def reflect(ctx: Context, user_id: UserArg = None
                      ) -> Annotated[CallToolResult, fmt.AbstractionsOut]:
        user = t.user(ctx, user_id)
        result = await t.run(t.get_service().reflect, user)
        out = fmt.AbstractionsOut(abstractions=[fmt.abstraction_out(a)
                                                for a in result.changed])
        return _result(fmt.abstractions_text(out, "Nothing new to conclude."), out)

    @mcp.tool(description=(
        "The conclusions drawn about the user (from reflect), most confident first; as_of "
        "for those that held at a time."), annotations=read_only)
    async def abstractions(ctx: Context, as_of: TimeArg = None, user_id: UserArg = None
                           ) -> Annotated[CallToolResult, fmt.AbstractionsOut]:
        user = t.user(ctx, user_id)
        found = await t.run(t.get_service().abstractions, user, as_of=_time(as_of, "as_of"))
        out = fmt.AbstractionsOut(abstractions=[fmt.abstraction_out(a) for a in found])
        return _result(fmt.abstractions_text(out, "No abstractions yet (call reflect)."), out)

    @mcp.resource("graphmem://users/{user_id}/facts", mime_type="text/plain",
                  description="The user's current facts (relations valid now), newest first.")
    async def facts(user_id: str, ctx: Context) -> str:
        user = _resource_user(t, ctx, user_id)
        try:
            rels = await t.run(t.get_service().relations, user, limit=500)
        except ToolError as e:
            raise ResourceError(str(e)) from None
        return "\n".join(fmt.relation_line(r) for r in rels) or "No facts."

    @mcp.resource("graphmem://users/{user_id}/episodes", mime_type="text/plain",
                  description="The user's 20 most recent episodes.")
    async def recent_episodes(user_id: str, ctx: Context) -> str:
        user = _resource_user(t, ctx, user_id)
        pages = episodes().episodes_page
        try:
            first = await t.run(pages, user, session_id=None, limit=1,
                                offset=0, include_forgotten=False)
            page = await t.run(pages, user, session_id=None, limit=20,
                               offset=max(0, first.total - 20), include_forgotten=False)
        except ToolError as e:
            raise ResourceError(str(e)) from None
        return fmt.episodes_text(page.items, page.total)

    return mcp


def _resource_user(t: _Tools, ctx: Context, user_id: str) -> str:
    try:
        return t.user(ctx, user_id)
    except ToolError as e:
        raise ResourceError(str(e)) from None


# --------------------------------------------------------------------------- transports


def run_stdio(service: MemoryService, default_user: str | None = None) -> None:
    """Serve MCP over stdin/stdout until the client closes it (the service is open)."""
    readers = Readers(service)
    mcp = build_mcp(lambda: service, episodes=lambda: readers, default_user=default_user)
    anyio.run(mcp.run_stdio_async)


def mount_mcp(get_service: Callable[[], MemoryService], host: str
              ) -> tuple[Any, Callable[[], Any]]:
    """The ``/mcp`` endpoint for the graphmem app: an ASGI app and the async context
    manager its lifespan must enter. Stateless JSON requests: every call is authorised on
    its own (the app's key middleware has put the caller in the request scope)."""
    from mcp.server.streamable_http_manager import StreamableHTTPASGIApp

    mcp = build_mcp(get_service, episodes=lambda: Readers(get_service()))
    mcp.streamable_http_app(stateless_http=True, json_response=True, host=host)
    manager = mcp.session_manager

    @asynccontextmanager
    async def running() -> AsyncIterator[None]:
        async with manager.run():
            yield

    return StreamableHTTPASGIApp(manager), running
