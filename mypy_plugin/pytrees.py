"""Dicts whose keys the program writes: each key's own type (``params["embed"]``).

JAX programs keep parameters in dicts of arrays of several kinds: an
embedding, a dict of stacked layers, a step counter.  mypy types the display
``{"embed": e, "layers": stacked, "step": n}`` as one ``dict[str, V]``, ``V``
the join of the values (``object`` here), and what a function returns it
through as ``Any``: ``params["embed"]`` has no dtype.  The plugin keeps, on
the dict's type, the type of each key the program wrote (a *keyed dict*):

* A dict display with string keys, returned by a function of the program
  (or bound once to a name that is returned, passed or indexed), is typed
  ``dict[str, V]`` with each key's type.  The keys ride on the ``Instance``
  as mypy's ``extra_attrs`` (which it keeps through copies, the cache and
  type translations, and drops where it joins two types), under names no
  attribute can have (``['embed']``): nothing else of mypy reads them.
* ``d["embed"]`` on a keyed dict is that key's type — where mypy types it
  ``Any``, or where the key's type is ``V`` but for its dtypes.  A
  name or attribute whose items the module sets, deletes or updates anywhere
  (``d[k] = v``, ``d.update(…)``) is never read by key: its keys' types may
  have changed (``ModuleFacts.mutated``).
* ``jax.tree.map`` maps each key (``mypy_plugin.transforms``); a call of a
  function of the program passes the keys to its body
  (``mypy_plugin.inference``).
"""

from __future__ import annotations

from typing import Final

from mypy.nodes import (
    DictExpr,
    Expression,
    IndexExpr,
    MemberExpr,
    NameExpr,
    StrExpr,
    TupleExpr,
    Var,
)
from mypy.plugin import CheckerPluginInterface, MethodContext
from mypy.subtypes import is_subtype
from mypy.types import (
    AnyType,
    Instance,
    LiteralType,
    TupleType,
    Type,
    get_proper_type,
)

from mypy_plugin import mypy_internals as internals
from mypy_plugin.keyed_dicts import DICT, items_of, with_items, without_items
from mypy_plugin.program_facts import ModuleFacts
from mypy_plugin.program_types import erase_dtypes

__all__ = ["item_type", "refined"]

_DEPTH: Final = 8
"""How many names bound to displays ``refined`` follows (``a = {…}; b = {"a": a}``)."""


def refined(
    api: CheckerPluginInterface,
    facts: ModuleFacts | None,
    expr: Expression,
    typ: Type,
    depth: int = 0,
) -> Type:
    """``typ``, mypy's type of ``expr``, with the keys of the dict displays ``expr`` is or
    holds: a display, a tuple display of them, or a name bound once to one."""
    if facts is None or depth > _DEPTH:
        return typ
    if isinstance(expr, NameExpr | MemberExpr) and expr.name in facts.mutated:
        return without_items(typ)
    proper = get_proper_type(typ)
    if isinstance(expr, NameExpr) and isinstance(expr.node, Var):
        bound = facts.values.get(id(expr.node))
        if bound is not None and bound[0] is expr.node:
            return refined(api, facts, bound[1], typ, depth + 1)
        return typ
    if isinstance(expr, DictExpr) and isinstance(proper, Instance) and proper.type.fullname == DICT:
        items: dict[str, Type] = {}
        for key, value in expr.items:
            value_type = None if key is None else internals.type_of(api, value)
            if not isinstance(key, StrExpr) or value_type is None:
                return typ
            items[key.value] = refined(api, facts, value, value_type, depth + 1)
        return with_items(proper, items) if items else typ
    if (
        isinstance(expr, TupleExpr)
        and isinstance(proper, TupleType)
        and len(expr.items) == len(proper.items)
    ):
        new = [
            refined(api, facts, e, t, depth + 1)
            for e, t in zip(expr.items, proper.items, strict=True)
        ]
        if all(a is b for a, b in zip(new, proper.items, strict=True)):
            return typ
        return proper.copy_modified(items=new)
    return typ


def _key(ctx: MethodContext) -> str | None:
    """The string key of ``d[key]``: a literal, or a value of a literal type."""
    if len(ctx.args) != 1 or len(ctx.args[0]) != 1:
        return None
    expr = ctx.args[0][0]
    if isinstance(expr, StrExpr):
        return expr.value
    proper = get_proper_type(ctx.arg_types[0][0])
    literal = proper.last_known_value if isinstance(proper, Instance) else proper
    if isinstance(literal, LiteralType) and isinstance(literal.value, str):
        return literal.value
    return None


def item_type(ctx: MethodContext, facts: ModuleFacts | None) -> Type:
    """``d["key"]`` on a keyed dict: the key's type (see the module's docs)."""
    default = ctx.default_return_type
    key = _key(ctx)
    if key is None or facts is None:
        return default
    base = ctx.context.base if isinstance(ctx.context, IndexExpr) else None
    receiver = ctx.type if base is None else refined(ctx.api, facts, base, ctx.type)
    items = items_of(receiver)
    found = None if items is None else items.get(key)
    if found is None:
        return default
    if isinstance(get_proper_type(default), AnyType):
        return found
    if is_subtype(erase_dtypes(found), erase_dtypes(default)):
        return found  # the same kind of value, with its own dtypes
    return default
