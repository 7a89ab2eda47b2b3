"""JAX's dtype names as the program writes them: ``Any`` to mypy, read from the expression.

JAX declares ``jax.numpy.float32``, ``bfloat16``, … ``Any``, and with the
plugin they stay so: a variable bound to one and rebound to another
(``dtype = jnp.bfloat16`` in one branch, ``jnp.float16`` in the other), one
handed to NumPy (``np.zeros(3, dtype=jnp.float32)``), one used as an
annotation (``f64 = jnp.float64`` then ``x: f64``) check exactly as without
the plugin.  (A ``type[float32]`` of the plugin's refused the first, left
NumPy's overloads unsolved in the second, and was no type in the third.)

What the plugin needs is which dtype a value stands for, where a call reads
it; it reads that from the expression mypy typed ``Any``:

* a dtype name itself (any spelling mypy resolves to ``jax.numpy.float32``);
* a variable of the module being checked, bound once in its scope, to
  something read so (``f32 = jnp.float32``);
* another module's variable bound once at its top level to a dtype name or
  to another such variable (``from pkg.util import f32``): its tree is absent
  when mypy reads that module from its cache, so each module records these
  in its own table as it is parsed (``mypy_plugin.module_dtype_names``);
* JAX's scalar types called, ``jnp.float32(2.0)``: ``jnp.asarray(2.0,
  jnp.float32)`` (an ``InferredArray``: ``Any`` to mypy alone).

``DTypeNames.read`` gives the type the plugin reads (``type[float32]``,
``InferredArray[float32]``) in place of ``Any``; every hook reads its
arguments through it.  A scalar type called *as an operand's receiver*
(``jnp.float32(1) + x``) is not seen: mypy calls no hook on an ``Any``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from mypy.nodes import ARG_POS, CallExpr, Context, Expression, MypyFile, RefExpr, Var
from mypy.plugin import CheckerPluginInterface
from mypy.types import AnyType, Instance, ProperType, Type, TypeType, get_proper_type

from mypy_plugin import mypy_internals as internals
from mypy_plugin import names

__all__ = ["DTypeNames"]

_DEPTH: Final = 4
"""How many variables and calls deep a value is followed (``f = f32`` after ``f32 =
jnp.float32``); a cycle of variables (``a = jnp.float32(b)``, ``b = jnp.float32(a)``) stops."""


class DTypeNames:
    """Read what an expression mypy typed ``Any`` stands for (see the module docs)."""

    def __init__(
        self,
        scalar_types: Callable[[], Mapping[str, str]],
        marker: Callable[[str], Instance | None],
        value_of: Callable[[CheckerPluginInterface, Var], Expression | None],
        scalar_value: Callable[
            [str, Type, Expression, CheckerPluginInterface, Context], Type | None
        ],
        other_value_of: Callable[[Var], Expression | None] = lambda var: None,
    ) -> None:
        self._scalar_types = scalar_types
        """``jax.numpy``'s dtype names, with the marker each names (loaded on first use)."""
        self._marker = marker
        self._value_of = value_of
        """The expression a program's variable is bound to, if bound once in its scope."""
        self._scalar_value = scalar_value
        """``jnp.<marker>(value)``'s type, from the value's type."""
        self._other_value_of = other_value_of
        """What another module's variable stands for, if it recorded it
        (``mypy_plugin.module_dtype_names``)."""

    def read(self, api: CheckerPluginInterface, expr: Expression | None, typ: Type) -> Type:
        """``typ``, or what ``expr`` stands for when ``typ`` is ``Any`` and the plugin reads it."""
        if expr is None or not isinstance(get_proper_type(typ), AnyType):
            return typ
        found = self.read_expression(api, expr)
        return typ if found is None else found

    def read_all(
        self,
        api: CheckerPluginInterface,
        types: Sequence[Sequence[Type]],
        exprs: Sequence[Sequence[Expression]],
    ) -> list[list[Type]]:
        """``read`` for each actual of a hook's ``arg_types`` (``args`` alike, by formal)."""
        return [
            [
                self.read(api, exprs[i][j] if i < len(exprs) and j < len(exprs[i]) else None, t)
                for j, t in enumerate(formal)
            ]
            for i, formal in enumerate(types)
        ]

    def read_expression(self, api: CheckerPluginInterface, expr: Expression) -> Type | None:
        """What ``expr`` stands for (``type[float32]``, ``InferredArray[float32]``), if read."""
        return self._read(api, expr, 0)

    def marker_name(self, expr: Expression) -> str | None:
        """The marker a dtype name of ``jax.numpy`` written here names (no variable followed)."""
        if not isinstance(expr, RefExpr) or not expr.fullname.startswith(_PREFIX):
            return None
        return self._scalar_types().get(expr.fullname[len(_PREFIX) :])

    def _read(self, api: CheckerPluginInterface, expr: Expression, depth: int) -> Type | None:
        expr, depth = self._resolved(api, expr, depth)
        marker = self.marker_name(expr)
        if marker is not None:
            found = self._marker(marker)
            return None if found is None else TypeType.make_normalized(found)
        if not isinstance(expr, CallExpr) or len(expr.args) != 1 or expr.arg_kinds[0] != ARG_POS:
            return None
        # jnp.float32(value): JAX's scalar type called on one value
        callee, depth = self._resolved(api, expr.callee, depth)
        marker = self.marker_name(callee)
        value = expr.args[0]
        value_type = _expression_type(api, value)
        if marker is None or value_type is None or depth >= _DEPTH:
            return None
        if isinstance(value_type, AnyType):
            value_type = get_proper_type(self._read(api, value, depth + 1) or value_type)
        return self._scalar_value(marker, value_type, value, api, expr)

    def _resolved(
        self, api: CheckerPluginInterface, expr: Expression, depth: int
    ) -> tuple[Expression, int]:
        """``expr``, or the value of the variable it names if bound once (followed, bounded)."""
        while depth < _DEPTH and isinstance(expr, RefExpr) and isinstance(expr.node, Var):
            # a variable mypy infers only: an annotated one is the user's word
            var = expr.node
            value = None
            if var.is_inferred:
                value = self._value_of(api, var)
                checked = internals.module_checked(api)
                if value is None and checked is not None and not _of_module(var, checked):
                    value = self._other_value_of(var)
            if value is None:
                break
            expr, depth = value, depth + 1
        return expr, depth


_PREFIX: Final = names.JAX_NUMPY + "."


def _of_module(var: Var, module: MypyFile) -> bool:
    """Whether ``var`` is a top-level variable of ``module``."""
    return var.fullname.rpartition(".")[0] == module.fullname


def _expression_type(api: CheckerPluginInterface, expr: Expression) -> ProperType | None:
    """The type mypy gave an expression it has checked (``None`` if not yet)."""
    found = internals.type_of(api, expr)
    return None if found is None else get_proper_type(found)
