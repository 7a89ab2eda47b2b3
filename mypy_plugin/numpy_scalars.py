"""NumPy scalars the plugin infers where NumPy's stubs say ``Any``: ``np.sqrt(d)`` of a number.

NumPy's stubs type a ufunc of Python numbers or NumPy scalars ``Any``
(``1 / np.sqrt(d_model)``, ``np.sqrt(head).astype(np.float32)``), which hides
a dtype JAX then promotes with: a NumPy scalar is strongly typed in JAX
(``bfloat16`` activations divided by a NumPy ``float32`` are ``float32``).
NumPy itself says which loop a call runs (``ufunc.resolve_dtypes``, Python
numbers weakly typed as NEP 50 has it), and the scalar has that loop's
output dtype: the plugin asks it.

The value is ``Any`` to mypy alone, so it must stay accepted wherever
``Any`` is (jax-md returns ``np.sqrt(dim)`` where it declares ``jax.Array``;
neural-tangents passes one to ``min``): the plugin gives an *inferred* NumPy
scalar, ``typing_pkg.typing.InferredFloat64`` and its kin, subclasses of
NumPy's scalar types whose classes fall back to ``Any`` (as
``InferredArray`` does).  NumPy's methods on one keep it inferred
(``.astype(np.float32)``); its operators are declared by ``typing_pkg``
(NumPy declares them as attributes of callable protocols, which no hook
sees), and the plugin types them with a Python number or a NumPy scalar as
NumPy computes them (``1.0 / s``), with an array as the array's promotion.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from mypy.nodes import ARG_POS, Expression, TypeInfo
from mypy.plugin import AttributeContext, CheckerPluginInterface, MethodContext
from mypy.types import AnyType, Instance, LiteralType, Type, get_proper_type

from mypy_plugin.names import INFERRED_SCALARS
from mypy_plugin.types import classify, numpy_scalar
from typing_pkg.dtypelike import marker_named
from typing_pkg.dtypes import BY_NAME

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "FINFO_LIMITS",
    "INFERRED_CLASSES",
    "finfo_callback",
    "inferred_result",
    "is_inferred_scalar",
    "is_operator",
    "operator_callback",
    "ufunc_callback",
]

INFERRED_CLASSES: Final = frozenset(INFERRED_SCALARS.values())
_UFUNC_OF: Final = {
    "add": "add",
    "sub": "subtract",
    "mul": "multiply",
    "truediv": "true_divide",
    "floordiv": "floor_divide",
    "mod": "remainder",
    "pow": "power",
    "neg": "negative",
    "pos": "positive",
    "abs": "absolute",
}
"""The ufunc behind each operator of a NumPy scalar."""
_PYTHON_TYPES: Final = {"py_int": int, "py_float": float, "py_complex": complex}

ClassLookup = Callable[[str], TypeInfo | None]
DTypeReader = Callable[[CheckerPluginInterface, Expression, Type], Type]
"""What an argument typed ``Any`` stands for (``DTypeNames.read``: ``jnp.float32``)."""
_Input: TypeAlias = "np.dtype[Any] | type"
"""An operand as ``ufunc.resolve_dtypes`` takes it."""


def is_inferred_scalar(typ: Type) -> bool:
    """Whether ``typ`` is one of the plugin's inferred NumPy scalars."""
    proper = get_proper_type(typ)
    return isinstance(proper, Instance) and proper.type.fullname in INFERRED_CLASSES


def _inferred(marker: str | None, lookup: ClassLookup) -> Instance | None:
    """The inferred scalar of an inexact dtype (``None`` for others: an integer stays NumPy's
    ``Any``, which ``min(batch_size, np.gcd(n1, n2) // devices)`` needs, mypy joining an
    ``int`` with a NumPy integer to a protocol where it joins ``Any`` to ``Any``)."""
    name = None if marker is None else INFERRED_SCALARS.get(marker)
    info = None if name is None else lookup(name)
    return None if info is None else Instance(info, [])


def ufunc_callback(lookup: ClassLookup, ctx: MethodContext) -> Type:
    """``np.<ufunc>(a[, b])`` of Python numbers and NumPy scalars: NumPy's loop's scalar."""
    default = ctx.default_return_type
    receiver = ctx.type
    if not isinstance(get_proper_type(default), AnyType) or not isinstance(receiver, Instance):
        return default
    name = get_proper_type(receiver.args[0]) if receiver.args else None
    if not isinstance(name, LiteralType) or not isinstance(name.value, str):
        return default
    import numpy as np

    ufunc = getattr(np, name.value, None)
    if not isinstance(ufunc, np.ufunc):
        return default
    given = [(types, kinds) for types, kinds in zip(ctx.arg_types, ctx.arg_kinds, strict=True)]
    inputs: list[_Input] = []
    for i, (types, kinds) in enumerate(given):
        if i >= ufunc.nin:
            if types:
                return default  # out=, dtype=, where=, …: NumPy's answer
            continue
        if len(types) != 1 or kinds != [ARG_POS]:
            return default
        found = _numpy_input(types[0])
        if found is None:
            return default
        inputs.append(found)
    made = _resolve(ufunc, inputs, lookup)
    return default if made is None else made


def _numpy_input(typ: Type) -> _Input | None:
    """What ``ufunc.resolve_dtypes`` takes for an operand: a Python number's type (weak, as
    NEP 50 has it) or a NumPy scalar's dtype; ``None`` for anything else."""
    import numpy as np

    proper = get_proper_type(typ)
    operand = classify(proper)
    if operand is None or operand.is_array or operand.name is None:
        return None
    if operand.name in _PYTHON_TYPES:
        return _PYTHON_TYPES[operand.name]
    if operand.name == "py_bool":
        return np.dtype(bool)
    if isinstance(proper, Instance) and numpy_scalar(proper) is not None:
        return np.dtype(BY_NAME[operand.name])
    return None


def _resolve(ufunc: object, inputs: list[_Input], lookup: ClassLookup) -> Instance | None:
    """The inferred scalar of NumPy's loop for these inputs (``None``: none)."""
    import numpy as np

    if not isinstance(ufunc, np.ufunc) or len(inputs) != ufunc.nin or ufunc.nout != 1:
        return None
    try:
        resolved = ufunc.resolve_dtypes((*inputs, None))
    except (TypeError, ValueError):
        return None
    marker = marker_named(resolved[-1].name)
    return _inferred(None if marker is None else marker.name, lookup)


def is_operator(method: str) -> bool:
    """Whether ``method`` is an arithmetic operator of a NumPy scalar (reflected or not)."""
    name = method.strip("_")
    return name in _UFUNC_OF or (name.startswith("r") and name[1:] in _UFUNC_OF)


def operator_callback(lookup: ClassLookup, method: str, ctx: MethodContext) -> Type:
    """An operator of an inferred scalar with a Python number or a NumPy scalar: NumPy's
    result, inferred (``1.0 / np.sqrt(d)`` is a ``float64``); anything else ``Any``."""
    import numpy as np

    default = ctx.default_return_type
    name = method.strip("_")
    reflected = name.startswith("r") and name[1:] in _UFUNC_OF
    ufunc = getattr(np, _UFUNC_OF.get(name[1:] if reflected else name, ""), None)
    own = _numpy_input(ctx.type)
    if ufunc is None or own is None:
        return default
    inputs: list[_Input] = [own]
    for types in ctx.arg_types:
        for typ in types:
            other = _numpy_input(typ)
            if other is None:
                return default
            inputs.append(other)
    if reflected:
        inputs.reverse()
    made = _resolve(ufunc, inputs, lookup)
    return default if made is None else made


FINFO_LIMITS: Final = frozenset(
    {"min", "max", "eps", "epsneg", "tiny", "smallest_normal", "smallest_subnormal", "resolution"}
)
"""The attributes of ``finfo(dtype)`` that are scalars of that dtype."""


def finfo_callback(lookup: ClassLookup, read: DTypeReader, ctx: AttributeContext) -> Type:
    """``jnp.finfo(x.dtype).min`` and its kin: a NumPy scalar of ``x``'s dtype, where it is
    ``float16``, ``float32`` or ``float64`` (ml_dtypes's ``finfo`` types them
    ``floating[Any]``; an ml_dtypes scalar, ``bfloat16``'s, has no inferred class)."""
    from mypy.nodes import CallExpr, MemberExpr

    from mypy_plugin.jax_api import read_dtype
    from mypy_plugin.mypy_internals import type_of

    default = ctx.default_attr_type
    proper = get_proper_type(default)
    if isinstance(proper, Instance) and numpy_scalar(proper) is not None:
        return default  # np.finfo(np.float32).min: NumPy's stubs know it
    member = ctx.context
    if not isinstance(member, MemberExpr) or not isinstance(member.expr, CallExpr):
        return default
    call = member.expr
    if len(call.args) != 1 or call.arg_kinds != [ARG_POS]:
        return default
    argument = type_of(ctx.api, call.args[0])
    if argument is None:
        return default
    argument = read(ctx.api, call.args[0], argument)  # jnp.finfo(jnp.bfloat16): Any to mypy
    marker = read_dtype(ctx.api, call.args[0], argument)
    made = _inferred(marker, lookup) if isinstance(marker, str) else None
    return default if made is None else made


def inferred_result(lookup: ClassLookup, ctx: MethodContext) -> Type:
    """A NumPy method or operator of an inferred scalar: its NumPy scalar result, inferred."""
    result = ctx.default_return_type
    if not is_inferred_scalar(ctx.type):
        return result
    proper = get_proper_type(result)
    if not isinstance(proper, Instance) or is_inferred_scalar(proper):
        return result
    made = _inferred(numpy_scalar(proper), lookup)
    return result if made is None else made
