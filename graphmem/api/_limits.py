"""Request limits measured on the parsed document before it is validated or run.

One pass over the document gives, per operation, its depth, its aliases and its cost as if
every fragment were expanded, without expanding anything: each fragment is measured once
(memoised) and a spread adds that fragment's measure, so a doubling fragment chain of 25
levels costs 2^25 and is refused in microseconds instead of being walked 2^25 times.
Fragment cycles are refused on the way.

Cost: every field costs 1; a field with a selection set adds its children's cost times its
list size: a list field's ``limit`` or ``first`` argument (or ``input.limit``, or the size
argument of the page field it belongs to, or the length of a list argument as in
``addEpisodes``), else ``DEFAULT_LIST_SIZE``. Introspection is counted like any other field
(it is not counted for depth, which GraphiQL's own introspection query would exceed).

Parsing, these limits and validation run in a worker thread (``RequestLimits``), so a large
document never holds the event loop; all three are bounded by the body size and the token
limit.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLError,
    GraphQLField,
    GraphQLInputObjectType,
    GraphQLInterfaceType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    InlineFragmentNode,
    IntValueNode,
    ListValueNode,
    NameNode,
    ObjectValueNode,
    OperationDefinitionNode,
    OperationType,
    SelectionSetNode,
    ValueNode,
    VariableNode,
    get_named_type,
    parse,
)
from graphql.type import SchemaMetaFieldDef, TypeMetaFieldDef, TypeNameMetaFieldDef
from strawberry.extensions import SchemaExtension
from strawberry.schema.schema import validate_document

from graphmem.api.errors import INTERNAL

log = logging.getLogger("graphmem.api")

DEFAULT_LIST_SIZE = 10
#: the arguments that bound how many items a field returns (page size)
_SIZE_ARGUMENTS = ("limit", "first")
_CAP = 10**18  # costs are clamped here: the comparison with the budget stays cheap


@dataclass(frozen=True, slots=True)
class Budget:
    max_depth: int
    max_aliases: int
    max_cost: int
    max_tokens: int


@dataclass(frozen=True, slots=True)
class Measure:
    cost: int
    depth: int
    aliases: int

    def __add__(self, other: Measure) -> Measure:
        return Measure(min(self.cost + other.cost, _CAP), max(self.depth, other.depth),
                       self.aliases + other.aliases)


_ZERO = Measure(0, 0, 0)


class FragmentCycle(Exception):
    def __init__(self, names: list[str]) -> None:
        super().__init__(" -> ".join(names))
        self.names = names


class _Walker:
    def __init__(self, schema: GraphQLSchema, document: DocumentNode,
                 variables: dict[str, Any] | None) -> None:
        self.schema = schema
        self.variables = variables or {}
        self.fragments = {d.name.value: d for d in document.definitions
                          if isinstance(d, FragmentDefinitionNode)}
        self.memo: dict[tuple[str, int | None], Measure] = {}
        self.active: list[str] = []

    def operation(self, op: OperationDefinitionNode) -> Measure:
        root = {OperationType.QUERY: self.schema.query_type,
                OperationType.MUTATION: self.schema.mutation_type,
                OperationType.SUBSCRIPTION: self.schema.subscription_type}[op.operation]
        return self.selections(root, op.selection_set, None)

    def selections(self, parent: Any, node: SelectionSetNode, page: int | None) -> Measure:
        total = _ZERO
        for sel in node.selections or ():
            if isinstance(sel, FieldNode):
                total += self.field(parent, sel, page)
            elif isinstance(sel, InlineFragmentNode):
                on = parent if sel.type_condition is None \
                    else self.schema.get_type(sel.type_condition.name.value)
                total += self.selections(on, sel.selection_set, page)
            elif isinstance(sel, FragmentSpreadNode):
                total += self.spread(sel.name.value, page)
        return total

    def spread(self, name: str, page: int | None) -> Measure:
        fragment = self.fragments.get(name)
        if fragment is None:
            return _ZERO  # validation names the unknown fragment
        if name in self.active:
            raise FragmentCycle([*self.active[self.active.index(name):], name])
        key = (name, page)
        if (known := self.memo.get(key)) is not None:
            return known
        self.active.append(name)
        try:
            measure = self.selections(self.schema.get_type(fragment.type_condition.name.value),
                                      fragment.selection_set, page)
        finally:
            self.active.pop()
        self.memo[key] = measure
        return measure

    def field(self, parent: Any, node: FieldNode, page: int | None) -> Measure:
        alias = 1 if node.alias is not None else 0
        if node.selection_set is None:
            return Measure(1, 0, alias)
        definition = self._definition(parent, node.name.value)
        is_list, named = False, None
        if definition is not None:
            t = definition.type.of_type if isinstance(definition.type, GraphQLNonNull) \
                else definition.type
            is_list, named = isinstance(t, GraphQLList), get_named_type(t)
        limit = self._limit(node, definition)
        if is_list:
            size = limit or page or self._list_argument_length(node) or DEFAULT_LIST_SIZE
            inner = self.selections(named, node.selection_set, None)
        else:
            size = 1
            inner = self.selections(named, node.selection_set, limit)
        depth = 0 if node.name.value.startswith("__") else inner.depth + 1
        return Measure(min(1 + size * inner.cost, _CAP), depth, alias + inner.aliases)

    def _definition(self, parent: Any, name: str) -> GraphQLField | None:
        if name == "__typename":
            return TypeNameMetaFieldDef
        if parent is self.schema.query_type and name in ("__schema", "__type"):
            return SchemaMetaFieldDef if name == "__schema" else TypeMetaFieldDef
        if isinstance(parent, GraphQLObjectType | GraphQLInterfaceType):
            return parent.fields.get(name)
        return None

    def _limit(self, node: FieldNode, definition: GraphQLField | None) -> int | None:
        """The field's ``limit``/``first`` (or ``input.limit``): as sent, else the schema's
        default."""
        for arg in node.arguments or ():
            if arg.name.value in _SIZE_ARGUMENTS:
                return self._int(arg.value)
            if arg.name.value == "input":
                value = arg.value
                if isinstance(value, ObjectValueNode):
                    for f in value.fields or ():
                        if f.name.value == "limit":
                            return self._int(f.value)
                elif isinstance(value, VariableNode):
                    given = self.variables.get(value.name.value)
                    if isinstance(given, dict) and "limit" in given:
                        return _positive(given["limit"])
        if definition is None:
            return None
        for name in _SIZE_ARGUMENTS:
            if name in definition.args:
                return _positive(definition.args[name].default_value)
        if "input" in definition.args:
            input_type = get_named_type(definition.args["input"].type)
            if isinstance(input_type, GraphQLInputObjectType) and "limit" in input_type.fields:
                return _positive(input_type.fields["limit"].default_value)
        return None

    def _int(self, value: ValueNode) -> int | None:
        if isinstance(value, IntValueNode):
            try:
                return _positive(int(value.value))
            except ValueError:  # past Python's digit limit: validation refuses it
                return None
        if isinstance(value, VariableNode):
            return _positive(self.variables.get(value.name.value))
        return None

    def _list_argument_length(self, node: FieldNode) -> int | None:
        longest = None
        for arg in node.arguments or ():
            value = arg.value
            n = None
            if isinstance(value, ListValueNode):
                n = len(value.values or ())
            elif isinstance(value, VariableNode):
                given = self.variables.get(value.name.value)
                n = len(given) if isinstance(given, list) else None
            if n is not None:
                longest = max(longest or 0, n)
        return longest or None


def _positive(value: Any) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return max(1, min(value, _CAP))
    return None


def check_limits(schema: GraphQLSchema, document: DocumentNode,
                 variables: dict[str, Any] | None, budget: Budget) -> list[GraphQLError]:
    """The limit errors of ``document`` (empty when within budget), each with a code."""
    walker = _Walker(schema, document, variables)
    errors: list[GraphQLError] = []
    try:
        for op in document.definitions:
            if not isinstance(op, OperationDefinitionNode):
                continue
            m = walker.operation(op)
            name = f"operation '{op.name.value}'" if op.name else "the operation"
            if m.depth > budget.max_depth:
                errors.append(GraphQLError(
                    f"{name}: depth {m.depth} exceeds the maximum depth of {budget.max_depth} "
                    f"(GRAPHMEM_MAX_QUERY_DEPTH)", [op],
                    extensions={"code": "GRAPHQL_VALIDATION_FAILED"}))
            if m.aliases > budget.max_aliases:
                errors.append(GraphQLError(
                    f"{name}: {m.aliases} aliases exceed the maximum of {budget.max_aliases} "
                    f"(GRAPHMEM_MAX_ALIASES)", [op],
                    extensions={"code": "GRAPHQL_VALIDATION_FAILED"}))
            if m.cost > budget.max_cost and not errors:  # the plainer limits speak first
                errors.append(GraphQLError(
                    f"{name}: query cost {m.cost if m.cost < _CAP else 'over 10^18'} exceeds "
                    f"the budget of {budget.max_cost} (GRAPHMEM_MAX_QUERY_COST); ask for fewer "
                    f"items (smaller limits) or nest less", [op],
                    extensions={"code": "QUERY_TOO_COMPLEX"}))
    except FragmentCycle as cycle:
        errors.append(GraphQLError(
            f"fragment cycle: {cycle} (a fragment must not spread itself)",
            [walker.fragments[n] for n in cycle.names[:-1]],
            extensions={"code": "GRAPHQL_VALIDATION_FAILED"}))
    except RecursionError:
        errors.append(GraphQLError("the document nests fields or fragments too deeply",
                                   extensions={"code": "GRAPHQL_VALIDATION_FAILED"}))
    return errors


def prepare(schema: GraphQLSchema, query: str, variables: dict[str, Any] | None,
            rules: tuple[Any, ...], budget: Budget,
            ) -> tuple[DocumentNode | None, list[GraphQLError]]:
    """Parse (token-limited), check the limits, then validate: the document and its errors."""
    try:
        document = parse(query, max_tokens=budget.max_tokens)
    except GraphQLError as e:
        return None, [e]
    except RecursionError:
        return None, [GraphQLError("Syntax Error: the document nests too deeply",
                                   extensions={"code": "GRAPHQL_PARSE_FAILED"})]
    errors = check_limits(schema, document, variables, budget)
    if errors:
        return document, errors
    try:
        return document, validate_document(schema, document, rules)
    except RecursionError:
        return document, [GraphQLError("the document nests fields or fragments too deeply",
                                       extensions={"code": "GRAPHQL_VALIDATION_FAILED"})]


def _stand_in(operation_name: str | None) -> DocumentNode:
    """A one-field query named like the requested operation: what strawberry holds while it
    reports a document that did not parse (it reads the operation type before validation)."""
    return DocumentNode(definitions=(OperationDefinitionNode(
        operation=OperationType.QUERY,
        name=NameNode(value=operation_name) if operation_name else None,
        variable_definitions=(), directives=(),
        selection_set=SelectionSetNode(selections=(FieldNode(
            name=NameNode(value="__typename"), arguments=(), directives=()),))),))


class RequestLimits(SchemaExtension):
    """Parses, checks ``Budget`` and validates in a worker thread, before strawberry would do
    the same on the event loop; strawberry then runs the prepared document (or reports its
    errors, which ``ClientErrors`` maps like any other)."""

    def __init__(self, budget: Budget) -> None:
        self.budget = budget

    async def on_operation(self) -> AsyncIterator[None]:  # type: ignore[override]
        ec = self.execution_context
        if ec.query and ec.graphql_document is None:
            try:
                document, errors = await anyio.to_thread.run_sync(
                    prepare, ec.schema._schema, ec.query, ec.variables, ec.validation_rules,
                    self.budget)
            except Exception:  # a fault here, not in the request: masked, logged whole
                log.exception("preparing an operation failed")
                document, errors = None, [GraphQLError(
                    INTERNAL, extensions={"code": "INTERNAL_SERVER_ERROR"})]
            ec.graphql_document = document if document is not None \
                else _stand_in(ec.operation_name)
            # A list (even empty) tells strawberry validation has run.
            ec.pre_execution_errors = errors
        yield
