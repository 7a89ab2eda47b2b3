"""What the plugin reads of a module's code: its blocks, loops, bindings and rebindings
(``ModuleFacts``), before mypy types it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from mypy.nodes import (
    FUNC_NO_INFO,
    AssignmentStmt,
    Block,
    CallExpr,
    ClassDef,
    Context,
    Decorator,
    DelStmt,
    Expression,
    ExpressionStmt,
    FloatExpr,
    ForStmt,
    FuncDef,
    FuncItem,
    GlobalDecl,
    IfStmt,
    IndexExpr,
    IntExpr,
    ListExpr,
    MatchStmt,
    MemberExpr,
    MypyFile,
    NameExpr,
    NonlocalDecl,
    OperatorAssignmentStmt,
    OverloadedFuncDef,
    RaiseStmt,
    ReturnStmt,
    StarExpr,
    Statement,
    TryStmt,
    TupleExpr,
    UnaryExpr,
    Var,
    WhileStmt,
    WithStmt,
)
from mypy.plugin import CheckerPluginInterface
from mypy.subtypes import is_subtype
from mypy.types import (
    AnyType,
    Type,
    TypeOfAny,
    get_proper_type,
)

from mypy_plugin import mypy_internals as internals

__all__ = [
    "Memo",
    "ModuleFacts",
    "RevealKey",
    "blocks",
    "declare_any",
    "ends",
    "every_statement",
    "in_place_on_declared",
    "literal_value",
    "looped_over",
    "target_names",
]

# ---------------------------------------------------------------------- the AST


def blocks(stmt: Statement) -> Iterator[Block]:
    """The blocks of a compound statement (not of nested functions or classes)."""
    if isinstance(stmt, IfStmt):
        yield from stmt.body
        if stmt.else_body is not None:
            yield stmt.else_body
    elif isinstance(stmt, ForStmt | WhileStmt):
        yield stmt.body
        if stmt.else_body is not None:
            yield stmt.else_body
    elif isinstance(stmt, WithStmt):
        yield stmt.body
    elif isinstance(stmt, TryStmt):
        yield stmt.body
        yield from stmt.handlers
        if stmt.else_body is not None:
            yield stmt.else_body
        if stmt.finally_body is not None:
            yield stmt.finally_body
    elif isinstance(stmt, MatchStmt):
        yield from stmt.bodies
    elif isinstance(stmt, Block):
        yield stmt


def every_statement(body: list[Statement]) -> Iterator[Statement]:
    """The statements of ``body`` and of its nested blocks, functions and classes."""
    pending = list(body)
    while pending:
        stmt = pending.pop()
        yield stmt
        if isinstance(stmt, Decorator):
            pending += stmt.func.body.body
        elif isinstance(stmt, FuncDef):
            pending += stmt.body.body
        elif isinstance(stmt, OverloadedFuncDef):
            pending += [i.func if isinstance(i, Decorator) else i for i in stmt.items]
            if stmt.impl is not None:
                pending.append(stmt.impl)
        elif isinstance(stmt, ClassDef):
            pending += stmt.defs.body
        else:
            for block in blocks(stmt):
                pending += block.body


def looped_over(body: list[Statement]) -> set[int]:
    """The ids of the expressions the ``for`` statements of ``body`` iterate over, in nested
    blocks, functions and classes too (comprehensions are expressions: not walked)."""
    return {id(stmt.expr) for stmt in every_statement(body) if isinstance(stmt, ForStmt)}


def ends(block: Block) -> bool:
    """Whether every path through ``block`` ends in ``return`` or ``raise``."""
    if not block.body:
        return False
    last = block.body[-1]
    if isinstance(last, ReturnStmt | RaiseStmt):
        return True
    if isinstance(last, IfStmt):
        return last.else_body is not None and all(ends(b) for b in (*last.body, last.else_body))
    if isinstance(last, WithStmt):
        return ends(last.body)
    if isinstance(last, TryStmt):
        if last.finally_body is not None and ends(last.finally_body):
            return True
        main = last.else_body if last.else_body is not None else last.body
        return ends(main) and all(ends(h) for h in last.handlers)
    if isinstance(last, Block):
        return ends(last)
    if isinstance(last, ExpressionStmt) and isinstance(last.expr, CallExpr):
        callee = last.expr.callee
        return isinstance(callee, NameExpr) and callee.fullname in ("sys.exit", "builtins.exit")
    return False


class _Binding:
    """An assignment binding names of a rebound variable: its value and the names, by position.

    ``defines``: the first assignment of one of the names in its scope (a later
    one rebinds it); otherwise it rebinds a name bound before.
    """

    __slots__ = ("defines", "names", "value")

    def __init__(
        self, value: Expression | Statement, names: list[NameExpr | None], defines: bool
    ) -> None:
        self.value = value
        self.names = names
        self.defines = defines


class ModuleFacts:
    """What the plugin needs from a module's AST, read once per tree.

    ``functions``: every function defined in the module (methods and nested
    ones too); ``returns``: each function's ``return`` statements (not those of
    nested functions); ``bindings``: by the value (or the ``x += …`` statement),
    each assignment to a variable its scope binds more than once.
    """

    def __init__(self, tree: MypyFile) -> None:
        self.tree = tree
        self.functions: dict[int, FuncItem] = {}
        self.returns: dict[int, list[ReturnStmt]] = {}
        self.bindings: dict[int, _Binding] = {}
        self.constants: dict[int, tuple[Var, int | float]] = {}
        """Variables assigned once, a number literal (``d_model, n = 8, 16``), by ``Var``."""
        self.values: dict[int, tuple[Var, Expression]] = {}
        """Variables bound once in their scope, with the value (``f32 = jnp.float32``)."""
        self.parents: dict[int, FuncItem] = {}
        """The function each nested function is defined in."""
        self.variables: dict[int, list[Var]] = {}
        """The variables each function's body infers the type of (its nested functions' too)."""
        self.attribute_definitions: dict[int, MemberExpr] = {}
        """``self.x = value`` defining an attribute its class's methods bind more than once
        (``self.blocks = create_block(…)``, then ``self.blocks = nnx.List(…)``), by the
        value's id."""
        self._attribute_bindings: dict[tuple[int, str], list[tuple[Expression, MemberExpr]]] = {}
        self.rebound_functions: set[int] = set()
        """Decorated functions whose name their scope binds again (``f = jit(partial(f, …))``)."""
        self.mutated: set[str] = set()
        """Names of the variables and attributes whose items the module sets or deletes
        anywhere (``d[k] = v``, ``del d[k]``, ``d.update(…)``): their keys' types may change
        (``mypy_plugin.pytrees``)."""
        self.discarded: dict[int, CallExpr] = {}
        """Calls whose value is discarded (an expression statement: ``main()``), by id."""
        self.called_results: dict[int, CallExpr] = {}
        """Calls whose value a statement calls at once (``make_step(…)(state, key)``), or
        binds to a variable bound nowhere else in its scope (``step = make_step(…)``), by
        id: a function the call returns is no rebound variable's value."""
        self.memo: dict[tuple[int, tuple[Type, ...]], Memo] = {}
        """Specialisations that hold for the whole module (see ``Inference._specialise``)."""
        self.memo_owner: tuple[object, int] | None = None
        """The check (the checker and its pass) ``memo`` belongs to."""
        self._enclosing: list[FuncItem] = []
        self._rebound_elsewhere: set[str] = set()
        """Names a nested scope declares ``global`` or ``nonlocal`` (bound there too)."""
        self._scope(tree.defs, set(), None)
        for bindings in self._attribute_bindings.values():
            if len(bindings) > 1:
                self.attribute_definitions.update(
                    (id(value), target) for value, target in bindings if target.is_inferred_def
                )

    def _scope(
        self,
        body: list[Statement],
        params: set[str],
        function: FuncItem | None,
        annotated: frozenset[str] = frozenset(),
    ) -> None:
        """Read one scope (a module, class body or function body) in textual order.

        ``annotated``: the parameters with an annotation, declared like annotated variables.
        """
        declared: set[str] = set(annotated)
        self._declarations(body, declared)
        returns: list[ReturnStmt] = []
        assignments: list[tuple[Expression | Statement, list[NameExpr | None]]] = []
        other: set[str] = set()
        variables: list[Var] = []
        self._walk(body, declared, returns, assignments, other, variables)
        if function is not None:
            self.returns[id(function)] = returns
            self.variables[id(function)] = variables
        counts: dict[str, int] = dict.fromkeys((*params, *other, *declared), 1)
        for _, names in assignments:
            for name in names:
                if name is not None:
                    counts[name.name] = counts.get(name.name, 0) + 1
        for value, names in assignments:
            for name, item in zip(names, _items(value, len(names)), strict=True):
                if (
                    name is None
                    or item is None
                    or counts.get(name.name) != 1
                    or name.name in self._rebound_elsewhere
                    or not isinstance(name.node, Var)
                ):
                    continue
                self.values[id(name.node)] = (name.node, item)
                if isinstance(item, CallExpr) and item is value:
                    self.called_results[id(item)] = item  # step = make_step(…), bound once
                literal = literal_value(item)
                if literal is not None:
                    self.constants[id(name.node)] = (name.node, literal)
        assigned = {n.name for _, names in assignments for n in names if n is not None}
        self.rebound_functions.update(
            id(stmt.func) for stmt in body if isinstance(stmt, Decorator) and stmt.name in assigned
        )
        rebound = {name for name, count in counts.items() if count > 1}
        seen = set(params)
        for value, names in assignments:
            kept = [n if n is not None and n.name in rebound else None for n in names]
            if any(n is not None for n in kept):
                defines = any(n is not None and n.name not in seen for n in kept)
                if defines:
                    kept = [n if n is not None and n.name not in seen else None for n in kept]
                self.bindings[id(value)] = _Binding(value, kept, defines)
            seen.update(n.name for n in names if n is not None)

    def _declarations(self, body: list[Statement], declared: set[str]) -> None:
        """Names the scope annotates, or declares global or nonlocal: never ours to widen."""
        for stmt in body:
            if isinstance(stmt, AssignmentStmt) and stmt.unanalyzed_type is not None:
                declared.update(n.name for n in stmt.lvalues if isinstance(n, NameExpr))
            elif isinstance(stmt, GlobalDecl | NonlocalDecl):
                declared.update(stmt.names)
                self._rebound_elsewhere.update(stmt.names)
            for block in blocks(stmt):
                self._declarations(block.body, declared)

    def _walk(
        self,
        body: list[Statement],
        declared: set[str],
        returns: list[ReturnStmt],
        assignments: list[tuple[Expression | Statement, list[NameExpr | None]]],
        other: set[str],
        variables: list[Var],
    ) -> None:
        for stmt in body:
            if isinstance(stmt, ForStmt):
                other.update(n.name for n in target_names(stmt.index))
                variables += _inferred_targets(stmt.index)
            elif isinstance(stmt, WithStmt):
                for target in stmt.target:
                    if target is not None:
                        other.update(n.name for n in target_names(target))
                        variables += _inferred_targets(target)
            self._mutations(stmt)
            self._called_result(stmt)
            if isinstance(stmt, AssignmentStmt):
                for lvalue in stmt.lvalues:
                    variables += _inferred_targets(lvalue)
                    self._attribute_binding(lvalue, stmt.rvalue)
                if stmt.unanalyzed_type is None:
                    for lvalue in stmt.lvalues:
                        names = _positions(lvalue, declared)
                        if names is not None:
                            assignments.append((stmt.rvalue, names))
            elif isinstance(stmt, OperatorAssignmentStmt):
                names = _positions(stmt.lvalue, declared)
                if names is not None and len(names) == 1:
                    assignments.append((stmt, names))
            elif isinstance(stmt, ReturnStmt):
                returns.append(stmt)
            elif isinstance(stmt, ExpressionStmt) and isinstance(stmt.expr, CallExpr):
                self.discarded[id(stmt.expr)] = stmt.expr
            elif isinstance(stmt, FuncDef):
                self._function(stmt)
                variables += self.variables.get(id(stmt), [])
            elif isinstance(stmt, Decorator):
                self._function(stmt.func)
                variables += self.variables.get(id(stmt.func), [])
            elif isinstance(stmt, OverloadedFuncDef):
                for item in stmt.items:
                    if isinstance(item, Decorator):
                        self._function(item.func)
                    elif isinstance(item, FuncDef):
                        self._function(item)
                if isinstance(stmt.impl, Decorator):
                    self._function(stmt.impl.func)
                elif isinstance(stmt.impl, FuncDef):
                    self._function(stmt.impl)
            elif isinstance(stmt, ClassDef):
                self._scope(stmt.defs.body, set(), None)
            else:
                for block in blocks(stmt):
                    self._walk(block.body, declared, returns, assignments, other, variables)

    def _mutations(self, stmt: Statement) -> None:
        """Note the names whose items ``stmt`` sets, deletes or updates."""
        targets: list[Expression] = []
        if isinstance(stmt, AssignmentStmt):
            for lvalue in stmt.lvalues:
                targets += lvalue.items if isinstance(lvalue, TupleExpr | ListExpr) else [lvalue]
            value: Expression | None = stmt.rvalue
        elif isinstance(stmt, OperatorAssignmentStmt):
            targets.append(stmt.lvalue)
            value = stmt.rvalue
        elif isinstance(stmt, DelStmt):
            targets += stmt.expr.items if isinstance(stmt.expr, TupleExpr) else [stmt.expr]
            value = None
        else:
            value = stmt.expr if isinstance(stmt, ExpressionStmt) else None
        for target in targets:
            if isinstance(target, IndexExpr):
                self._mutated(target.base)
        if (
            isinstance(value, CallExpr)
            and isinstance(value.callee, MemberExpr)
            and value.callee.name in _MUTATORS
        ):
            self._mutated(value.callee.expr)

    def _called_result(self, stmt: Statement) -> None:
        """Note the call a statement's value calls at once (``make_step(…)(state, key)``)."""
        value = (
            stmt.rvalue
            if isinstance(stmt, AssignmentStmt)
            else stmt.expr
            if isinstance(stmt, ExpressionStmt | ReturnStmt)
            else None
        )
        if isinstance(value, CallExpr) and isinstance(value.callee, CallExpr):
            self.called_results[id(value.callee)] = value.callee

    def _mutated(self, base: Expression) -> None:
        if isinstance(base, NameExpr | MemberExpr):
            self.mutated.add(base.name)

    def _attribute_binding(self, target: Expression, value: Expression) -> None:
        """Count ``self.x = value`` in a method (``self``: the method's first parameter)."""
        if not isinstance(target, MemberExpr) or not isinstance(target.expr, NameExpr):
            return
        method = self._enclosing[-1] if self._enclosing else None
        if not isinstance(method, FuncDef) or method.info is FUNC_NO_INFO or not method.arguments:
            return
        if target.expr.name != method.arguments[0].variable.name:
            return
        key = (id(method.info), target.name)
        self._attribute_bindings.setdefault(key, []).append((value, target))

    def _function(self, func: FuncItem) -> None:
        self.functions[id(func)] = func
        if self._enclosing:
            self.parents[id(func)] = self._enclosing[-1]
        params = {arg.variable.name for arg in func.arguments}
        annotated = frozenset(
            arg.variable.name for arg in func.arguments if arg.type_annotation is not None
        )
        self._enclosing.append(func)
        self._scope(func.body.body, params, func, annotated)
        self._enclosing.pop()


_MUTATORS: Final = frozenset(
    {"update", "pop", "popitem", "setdefault", "clear", "__setitem__", "__delitem__"}
)
"""The methods that change a dict's items."""


def _positions(target: Expression, declared: set[str]) -> list[NameExpr | None] | None:
    """The names an assignment target binds, by position (``None``: not a plain name).

    ``_`` is never one: mypy lets it take any type at each binding (``_, u, _ = carry``).
    """
    if isinstance(target, NameExpr):
        return [target] if target.name not in declared and target.name != "_" else None
    if isinstance(target, TupleExpr | ListExpr):
        return [
            i if isinstance(i, NameExpr) and i.name not in declared and i.name != "_" else None
            for i in target.items
        ]
    return None


def literal_value(expr: Expression) -> int | float | None:
    """The value of a number literal (``8``, ``-0.5``), else ``None``."""
    if isinstance(expr, IntExpr | FloatExpr):
        return expr.value
    if (
        isinstance(expr, UnaryExpr)
        and expr.op == "-"
        and isinstance(expr.expr, IntExpr | FloatExpr)
    ):
        return -expr.expr.value
    return None


def _items(value: Expression | Statement, count: int) -> list[Expression | None]:
    """The value each of ``count`` targets is bound to (``a, b = 8, 16``), ``None`` if unknown."""
    if count == 1 and isinstance(value, Expression):
        return [value]
    if isinstance(value, TupleExpr) and len(value.items) == count:
        return list(value.items)
    return [None] * count


def declare_any(
    api: CheckerPluginInterface, target: NameExpr | MemberExpr, var: Var, value: Type
) -> Type:
    """Declare ``var`` (what ``target`` binds) ``Any``, as mypy alone does, narrowed to ``value``.

    A variable declared elsewhere (a class attribute, in the class body) is left as it is.
    """
    if var.type is not None and not isinstance(get_proper_type(var.type), AnyType):
        return value
    any_type = AnyType(TypeOfAny.special_form)
    var.type = any_type  # the design's side effect (see the module docs)
    internals.narrow(api, target, value)
    return any_type


def in_place_on_declared(api: CheckerPluginInterface, context: Context, result: Type) -> Type:
    """``x op= y`` on a name the program declared: its declaration, where it holds the result.

    A value narrowed further than its declaration (``x: jax.Array``, then ``x =
    jnp.argsort(x)``) takes any value the declaration accepts: ``x /= n`` makes
    it ``float32``, as JAX rebinds it.  mypy checks the result against the
    narrowed type, and keeps that: the check gets the declaration (of unknown
    dtypes there), the name is narrowed to the result.
    A result the declaration refuses stays (``a: Array[int8]; a += b`` of
    ``int16``: reported).
    """
    if not isinstance(context, OperatorAssignmentStmt) or not isinstance(context.lvalue, NameExpr):
        return result
    var = context.lvalue.node
    if not isinstance(var, Var) or var.is_inferred or var.type is None:
        return result
    narrowed = internals.type_of(api, context.lvalue)
    if narrowed is None or is_subtype(result, narrowed) or not is_subtype(result, var.type):
        return result
    internals.narrow(api, context.lvalue, result)  # mypy leaves the name narrowed as it was
    return var.type


def _inferred_targets(target: Expression) -> list[Var]:
    """The variables an assignment target defines by inference (``x``, ``self.x``, ``a, *b``)."""
    if isinstance(target, NameExpr):
        return [target.node] if target.is_inferred_def and isinstance(target.node, Var) else []
    if isinstance(target, MemberExpr):
        return [target.def_var] if target.is_inferred_def and target.def_var is not None else []
    if isinstance(target, StarExpr):
        return _inferred_targets(target.expr)
    if isinstance(target, TupleExpr | ListExpr):
        return [v for item in target.items for v in _inferred_targets(item)]
    return []


def target_names(target: Expression) -> list[NameExpr]:
    """The names an assignment target binds (``a``, ``a, (b, *c)``)."""
    if isinstance(target, NameExpr):
        return [target]
    if isinstance(target, StarExpr):
        return target_names(target.expr)
    if isinstance(target, TupleExpr | ListExpr):
        return [n for item in target.items for n in target_names(item)]
    return []


# ------------------------------------------------------------- specialisations' memo


RevealKey = tuple[str, int, int, int | None, int | None]
"""A body's ``reveal_type``: its module's path (and a NUL), line, column, end line, end column."""


class Memo:
    """One specialisation: its result, and what it reported (reported again at each use: the
    first report may have been made where mypy discards diagnostics, as it does when it
    tries an overload or infers a type argument)."""

    __slots__ = ("defn", "errors", "result", "reveals")

    def __init__(
        self,
        defn: FuncItem,
        result: Type | None,
        errors: list[internals.Reported],
        reveals: internals.Reveals | None,
    ) -> None:
        self.defn = defn
        self.result = result
        self.errors = errors
        self.reveals = reveals
