"""A module's dtype names, kept for the modules that import them.

``f32 = jnp.float32`` at the top of ``pkg/util.py``, then
``jnp.zeros(3, dtype=f32)`` in ``pkg/model.py``: JAX declares its dtype
names ``Any``, so the plugin reads what a name stands for from the program's
code (``mypy_plugin.dtype_names``).  Another module's code is not there when
mypy reads that module from its cache, and a warm run must answer as a cold
one does.  So each module the build parses records what its module-level
names bound once to a dotted name stand for, in a symbol of its own table
(``__typing_pkg_dtype_names__``, private, not exported by ``import *``): mypy
writes it to the cache with the module and compares it in the module's
interface, so a module importing ``f32`` is checked again when ``f32``
changes.

What is recorded is the dotted name resolved through the module's imports
(``jax.numpy.float32``, or ``pkg.util.f32`` for ``f32 = util.f32``, followed
when read): the name of a JAX dtype, or of a variable of the same top-level
package (another alias).  Nothing else is kept.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Final, cast

from mypy.nodes import (
    GDEF,
    AssignmentStmt,
    ClassDef,
    Decorator,
    Expression,
    ForStmt,
    FuncDef,
    GlobalDecl,
    Import,
    ImportFrom,
    MemberExpr,
    MypyFile,
    NameExpr,
    OverloadedFuncDef,
    Statement,
    SymbolTableNode,
    Var,
    WithStmt,
)
from mypy.types import AnyType, TypeOfAny

from mypy_plugin import mypy_internals as internals
from mypy_plugin import names
from mypy_plugin.program_facts import blocks, every_statement, target_names

__all__ = ["SUMMARY", "record", "recorded", "value_of"]

SUMMARY: Final = "__typing_pkg_dtype_names__"
"""The symbol holding a module's record (a JSON object: name → dotted name)."""


def record(file: MypyFile, dtype_names: frozenset[str]) -> None:
    """Record in ``file``'s table what its module-level dtype aliases stand for (at parse
    time: before mypy analyses the module).  ``dtype_names`` are ``jax.numpy``'s."""
    imports: dict[str, str] = {}
    bound: dict[str, int] = {}
    values: dict[str, list[str]] = {}
    for stmt in _top_level(file.defs):
        if isinstance(stmt, Import):
            for module, alias in stmt.ids:
                local = alias or module.split(".")[0]
                imports[local] = module if alias else local
                bound[local] = bound.get(local, 0) + 1
        elif isinstance(stmt, ImportFrom):
            base = internals.imported_module(file, stmt.id, stmt.relative)
            for name, alias in stmt.names:
                if base is not None:
                    imports[alias or name] = f"{base}.{name}" if base else name
                bound[alias or name] = bound.get(alias or name, 0) + 1
        elif isinstance(stmt, AssignmentStmt):
            for lvalue in stmt.lvalues:
                for name in [n.name for n in target_names(lvalue)]:
                    bound[name] = bound.get(name, 0) + 1
            chain = _chain(stmt.rvalue)
            if len(stmt.lvalues) == 1 and isinstance(stmt.lvalues[0], NameExpr) and chain:
                values[stmt.lvalues[0].name] = chain
        elif isinstance(stmt, FuncDef | Decorator | OverloadedFuncDef | ClassDef):
            bound[stmt.name] = bound.get(stmt.name, 0) + 1
        elif isinstance(stmt, ForStmt | WithStmt):
            for target in [stmt.index] if isinstance(stmt, ForStmt) else stmt.target:
                for name in [] if target is None else [n.name for n in target_names(target)]:
                    bound[name] = bound.get(name, 0) + 1
    package = file.fullname.split(".")[0]
    found: dict[str, str] = {}
    for name, chain in values.items():
        if bound.get(name) != 1:
            continue
        head, rest = chain[0], chain[1:]
        full = ".".join([imports.get(head, f"{file.fullname}.{head}"), *rest])
        module, _, last = full.rpartition(".")
        if (module == names.JAX_NUMPY and last in dtype_names) or full.split(".")[0] == package:
            found[name] = full
    if found:  # a function may bind one again
        for name in _declared_global(file):
            found.pop(name, None)
    if found:
        var = Var(SUMMARY, AnyType(TypeOfAny.special_form))
        var.final_value = json.dumps(found, sort_keys=True)  # not Final: mypy ignores it
        file.names[SUMMARY] = SymbolTableNode(GDEF, var, module_public=False)


def recorded(module: MypyFile | None, name: str) -> str | None:
    """The dotted name ``module``'s variable ``name`` stands for, if recorded."""
    node = None if module is None else module.names.get(SUMMARY)
    if node is None or not isinstance(node.node, Var):
        return None
    value = node.node.final_value
    if not isinstance(value, str):
        return None
    try:
        found: object = json.loads(value)
    except ValueError:
        return None
    if not isinstance(found, dict):
        return None
    full = cast("dict[str, object]", found).get(name)
    return full if isinstance(full, str) else None


def _declared_global(file: MypyFile) -> set[str]:
    """The names a function of ``file`` declares ``global``."""
    return {
        name
        for stmt in every_statement(file.defs)
        if isinstance(stmt, GlobalDecl)
        for name in stmt.names
    }


def _top_level(body: list[Statement]) -> Iterator[Statement]:
    """The module's statements, in its blocks too (``if``, ``try``), not in functions."""
    for stmt in body:
        yield stmt
        for block in blocks(stmt):
            yield from _top_level(block.body)


def _chain(expr: Expression) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]`` (a name and its attributes only)."""
    parts: list[str] = []
    while isinstance(expr, MemberExpr):
        parts.append(expr.name)
        expr = expr.expr
    if not isinstance(expr, NameExpr):
        return None
    return [expr.name, *reversed(parts)]


def value_of(modules: Mapping[str, MypyFile], var: Var) -> Expression | None:
    """What another module's variable stands for, as an expression naming it: a JAX dtype
    name, or the variable it aliases (read again by the caller)."""
    module, _, name = var.fullname.rpartition(".")
    full = recorded(modules.get(module), name)
    if full is None:
        return None
    owner, _, last = full.rpartition(".")
    expr = NameExpr(last)
    expr.fullname = full
    if owner != names.JAX_NUMPY:
        table = modules.get(owner)
        node = None if table is None else table.names.get(last)
        if node is None or not isinstance(node.node, Var):
            return None
        expr.node = node.node
    return expr
