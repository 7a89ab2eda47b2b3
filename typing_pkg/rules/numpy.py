"""NumPy's rules: NumPy ≥ 2 (NEP 50) with the ml_dtypes types.

**Promotion** (``np.promote_types``) rests on NumPy's *safe casts*.  Among
NumPy's own types ``bool`` casts safely to everything, an unsigned integer to
wider unsigned integers and to strictly wider signed integers and floats, a
signed integer to wider signed integers and floats, every integer to
``float64``, a float to wider floats and to complex numbers twice as wide.
Two dtypes promote to the one the other casts to safely; failing that, to the
smallest NumPy type, of the higher kind (``bool < unsigned < signed < float <
complex``) or above, that both cast to safely: ``int8`` with ``uint8`` gives
``int16``, ``int64`` with ``uint64`` gives ``float64``.

The ml_dtypes types (``bfloat16``, the float4/6/8 types, ``int1`` to
``uint4``, ``complex32``, ``bcomplex32``) are NumPy "legacy user dtypes":
they cast safely only where ml_dtypes registers it (a float type to
``float32``, ``float64`` and the complex types; ``bool``, ``int8`` and
``uint8`` to a float type; a small integer to the wider NumPy integers and all
floats), and NumPy treats two such dtypes of the same kind character and size
as equivalent.  ml_dtypes gives its one-byte types the kind ``'V'`` (except
``float8_e5m2``, kind ``'f'``), so every cast it defines among them is safe
both ways, and the type registered later decides: ``float8_e3m4`` with
``float8_e4m3`` is ``float8_e3m4``, and ``int1`` with ``float8_e4m3`` is
``int1``.  Types with no safe cast either way have no promotion
(``bfloat16`` with ``float16``); the kind search above applies only to
NumPy's kinds (so ``float8_e5m2`` with ``int16`` is ``float32``).  The
result is not a lattice.

**Python scalars** are weak (NEP 50): an ``int`` takes the dtype of an
integer, float or complex array (``bool`` arrays give ``int64``); a ``float``
that of a float or complex array (``float64`` with integers); a ``complex``
that of a complex array (``complex64`` with ``float16`` and ``float32``).
For an ml_dtypes array NumPy asks the array's type to promote with
``uint8``, then ``int8``, then ``int64`` for an ``int`` (``int4`` with ``1``
is ``int8``), ``float16`` then ``float64`` for a ``float``, ``complex64``
then ``complex128`` for a ``complex``.

**Operators** are ufuncs, each with an ordered list of loops (``np.add.types``).
With NumPy's own dtypes only, ``+``, ``-``, ``*``, unary ``-`` and ``+`` and
the comparisons promote their operands and need a loop for the promoted
type; the others take the first loop every operand casts to safely, which
gives the same dtype.  ``/`` of integers and booleans is ``float64``; ``**``,
``//`` and ``%`` of booleans are ``int8`` (the first loop), ``-`` and unary
``-`` refuse booleans, unary ``+`` has no boolean loop, ``abs`` of a complex
number is its real counterpart, comparisons give ``bool_``.

With an ml_dtypes operand every operator searches linearly: first the loops
ml_dtypes registers for each ml_dtypes operand, then NumPy's own loops, and
takes the first that every operand casts to safely (a Python scalar fits a
loop when the dtype it promotes to with the loop's dtype casts to it).
ml_dtypes registers loops on its float types for the arithmetic operators
but ``@``, the comparisons, unary ``-``, ``+`` and ``abs``; on its complex
types for the same but ``//`` and ``%``; on its integer types for ``+``,
``-``, ``*``, ``//`` and ``%`` only; and none for the bitwise operators and
shifts.  So ``bfloat16 + float16`` is ``float32`` though
they do not promote, ``bfloat16 + 1.0`` is ``float32``, ``int4 / int4`` is
``float16``, ``int4 & int4`` is ``int8`` and ``bfloat16 & bfloat16`` is
undefined.

**In-place operators** compute the binary result and cast it back into the
left operand, which NumPy allows for a ``'same_kind'`` cast: a safe cast, or
one towards a later kind (``b < u < i < f < c`` and then ``'V'``, the
ml_dtypes kind).  ``int8 += 1.0`` is refused, ``bfloat16 += 1.0`` and
``int4 += int4`` are not; nothing casts into ``complex32`` or ``bcomplex32``
but themselves (their kind ``'W'`` is unordered).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME, CONCRETE, NARROW_INTS, NARROW_UINTS
from typing_pkg.lattice import PromotionTable
from typing_pkg.ops import COMPARISON, INPLACE_OF
from typing_pkg.rules.base import REAL_OF_COMPLEX, Outcome, RuleSet, Undefined

__all__ = ["NumpyRules"]

# -- NumPy's own types, in the order of NumPy's loops ---------------------------

_SIGNED: Final = ("int8", "int16", "int32", "int64")
_UNSIGNED: Final = ("uint8", "uint16", "uint32", "uint64")
_INTS: Final = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
_FLOATS: Final = ("float16", "float32", "float64")
_COMPLEX: Final = ("complex64", "complex128")
_NUMERIC: Final = (*_INTS, *_FLOATS, *_COMPLEX)
_BUILTIN: Final = ("bool_", *_NUMERIC)

SAFE_EDGES: Final[Mapping[str, tuple[str, ...]]] = {
    "bool_": ("uint8", "int8"),
    "uint8": ("uint16", "int16", "float16"),
    "uint16": ("uint32", "int32", "float32"),
    "uint32": ("uint64", "int64", "float64"),
    "uint64": ("float64",),
    "int8": ("int16", "float16"),
    "int16": ("int32", "float32"),
    "int32": ("int64", "float64"),
    "int64": ("float64",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "complex64": ("complex128",),
    "complex128": (),
}
"""NumPy's safe casts between its own types: each type's nearest safe targets."""

# NumPy's kinds in promotion order, with the types of each kind by size.
_KIND_LADDER: Final = (
    ("b", ("bool_",)),
    ("u", _UNSIGNED),
    ("i", _SIGNED),
    ("f", _FLOATS),
    ("c", _COMPLEX),
)
# The kind order of 'same_kind' casts ('W', ml_dtypes' complex kind, is unordered).
_SAME_KIND_ORDER: Final = {"b": 0, "u": 1, "i": 2, "f": 4, "c": 5, "V": 8}

# -- ml_dtypes types, in registration order (their type numbers grow along it) --

_ML_FLOATS: Final = (
    "bfloat16", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float6_e2m3fn", "float6_e3m2fn",
    "float4_e2m1fn", "float8_e8m0fnu",
)  # fmt: skip
_ML_INTS: Final = tuple(
    name for pair in zip(NARROW_INTS, NARROW_UINTS, strict=True) for name in pair
)
_ML_UNSIGNED: Final = NARROW_UINTS
_ML_COMPLEX: Final = ("bcomplex32", "complex32")
_TYPE_NUMBER: Final = {
    t: n for n, t in enumerate((*_BUILTIN, *_ML_FLOATS, *_ML_INTS, *_ML_COMPLEX))
}

# dtype.kind of the ml_dtypes types.
_ML_KIND: Final = {
    **{t: "V" for t in (*_ML_FLOATS, *_ML_INTS)},
    "float8_e5m2": "f",
    **{t: "W" for t in _ML_COMPLEX},
}

# The casts ml_dtypes registers as safe (PyArray_RegisterCanCast).
_ML_SAFE: Final = frozenset(
    {(t, to) for t in _ML_FLOATS for to in ("float32", "float64", *_COMPLEX)}
    | {(src, t) for t in (*_ML_FLOATS, *_ML_COMPLEX) for src in ("bool_", "int8", "uint8")}
    | {(t, to) for t in _ML_INTS for to in (*_SIGNED, *_FLOATS, *_COMPLEX)}
    | {(t, to) for t in _ML_UNSIGNED for to in _UNSIGNED}
    | {("bool_", t) for t in _ML_INTS}
    | {(t, to) for t in _ML_COMPLEX for to in _COMPLEX}
)

# The casts ml_dtypes defines between its own types (any cast to or from a NumPy
# type exists): among the float and complex types but float8_e8m0fnu (which
# casts to bfloat16 only), from the narrow integers to the wider ones, and both
# ways between the integers and those float types (int4 and uint4 do not fit
# in float6_e2m3fn).
_CASTING_FLOATS: Final = (*(t for t in _ML_FLOATS if t != "float8_e8m0fnu"), *_ML_COMPLEX)
_ML_CASTS: Final = frozenset(
    {(a, b) for a in _CASTING_FLOATS for b in _CASTING_FLOATS}
    | {("float8_e8m0fnu", "bfloat16"), ("bfloat16", "float8_e8m0fnu")}
    | {("int1", "int2"), ("int1", "int4"), ("int2", "int4")}
    | {("uint1", "uint2"), ("uint1", "uint4"), ("uint2", "uint4")}
    | {
        pair
        for i in _ML_INTS
        for f in _CASTING_FLOATS
        if not (i.endswith("int4") and f == "float6_e2m3fn")
        for pair in ((i, f), (f, i))
    }
)

# -- ufuncs and their loops ------------------------------------------------------

_UFUNC: Final = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "matmul": "matmul",
    "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor",
    "lshift": "left_shift", "rshift": "right_shift",
    "lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
    "eq": "equal", "ne": "not_equal",
    "neg": "negative", "pos": "positive", "invert": "invert", "abs": "absolute",
}  # fmt: skip
"""The ufunc behind each operator."""

_COMPARISONS: Final = frozenset(_UFUNC[op] for op in COMPARISON)

LOOPS: Final[Mapping[str, tuple[str, ...]]] = {
    "add": _BUILTIN,
    "subtract": _NUMERIC,
    "multiply": _BUILTIN,
    "true_divide": (*_FLOATS, *_COMPLEX),
    "floor_divide": (*_INTS, *_FLOATS),
    "remainder": (*_INTS, *_FLOATS),
    "power": _NUMERIC,
    "matmul": _BUILTIN,
    **{u: ("bool_", *_INTS) for u in ("bitwise_and", "bitwise_or", "bitwise_xor", "invert")},
    **{u: _INTS for u in ("left_shift", "right_shift")},
    **{u: _BUILTIN for u in _COMPARISONS},
    "negative": _NUMERIC,
    "positive": _NUMERIC,
    "absolute": _BUILTIN,
}
"""NumPy's loops for our dtypes, in ``ufunc.types`` order: each takes all inputs as one dtype."""

_ML_FLOAT_UFUNCS: Final = frozenset(
    {"add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
     "negative", "positive", "absolute", *_COMPARISONS}
)  # fmt: skip
_ML_INT_UFUNCS: Final = frozenset({"add", "subtract", "multiply", "floor_divide", "remainder"})
ML_LOOPS: Final[Mapping[str, frozenset[str]]] = {
    **{t: _ML_FLOAT_UFUNCS for t in _ML_FLOATS},
    **{t: _ML_INT_UFUNCS for t in _ML_INTS},
    **{t: _ML_FLOAT_UFUNCS - {"floor_divide", "remainder"} for t in _ML_COMPLEX},
}
"""The ufuncs for which ml_dtypes registers a loop on each of its types."""


_UNIFORM: Final = frozenset({"add", "subtract", "multiply", "negative", "positive", *_COMPARISONS})
"""Ufuncs that, on NumPy's own dtypes, promote first and then need that type's loop."""

_REFUSES_BOOL: Final = {
    "subtract": "subtract does not accept bool_ (use ^ or logical_xor)",
    "negative": "negative does not accept bool_ (use ~ or logical_not)",
}

# -- Python scalars -------------------------------------------------------------

_WEAK_DEFAULT: Final = {"weak_int": "int64", "weak_float": "float64", "weak_complex": "complex128"}
_WEAK_PROBES: Final = {
    "weak_int": ("uint8", "int8", "int64"),
    "weak_float": ("float16", "float64"),
    "weak_complex": ("complex64", "complex128"),
}
"""The NumPy types an ml_dtypes type is promoted with, in turn, to place a Python scalar."""
_SHOWN: Final = {"weak_int": "int", "weak_float": "float", "weak_complex": "complex"}
_COMPLEX_OF: Final = {"float16": "complex64", "float32": "complex64", "float64": "complex128"}
# How far up 'bool < integer < inexact < other' a dtype's kind is, for NEP 50's
# test whether a Python scalar's kind exceeds the arrays' (the scalar is then strong).
_KIND_LEVEL: Final = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 2}
_WEAK_LEVEL: Final = {"weak_int": 1, "weak_float": 2, "weak_complex": 2}


def _kind(t: str) -> str:
    """Return ``dtype.kind`` of a dtype (a weak marker has its kind's)."""
    return _ML_KIND.get(t) or BY_NAME[t].kind


def _itemsize(t: str) -> int:
    """Return ``dtype.itemsize``: bits rounded up to whole bytes."""
    return ((BY_NAME[t].bits or 8) + 7) // 8


@cache
def _safe_targets(t: str) -> frozenset[str]:
    """Return the NumPy types a NumPy type casts to safely (itself included)."""
    return frozenset({t}).union(*(_safe_targets(s) for s in SAFE_EDGES[t]))


def _cast_exists(a: str, b: str) -> bool:
    """Return whether NumPy can cast ``a`` to ``b`` at all."""
    return a == b or a in _BUILTIN or b in _BUILTIN or (a, b) in _ML_CASTS


@cache
def _safe(a: str, b: str) -> bool:
    """Return ``np.can_cast(a, b, 'safe')``."""
    if a in _BUILTIN and b in _BUILTIN:
        return b in _safe_targets(a)
    equivalent = _kind(a) == _kind(b) and _itemsize(a) == _itemsize(b)
    return a == b or (a, b) in _ML_SAFE or (equivalent and _cast_exists(a, b))


def _same_kind(a: str, b: str) -> bool:
    """Return ``np.can_cast(a, b, 'same_kind')``."""
    order_a, order_b = _SAME_KIND_ORDER.get(_kind(a)), _SAME_KIND_ORDER.get(_kind(b))
    later = order_a is not None and order_b is not None and order_a <= order_b
    return _safe(a, b) or (later and _cast_exists(a, b))


@cache
def _common(a: str, b: str) -> str | None:
    """Return ``np.promote_types(a, b)``, or ``None`` where NumPy finds no common dtype."""
    later, earlier = sorted((a, b), key=_TYPE_NUMBER.__getitem__, reverse=True)
    if _safe(later, earlier):
        return earlier
    if _safe(earlier, later):
        return later
    kinds = [k for k, _ in _KIND_LADDER]
    if _kind(a) not in kinds or _kind(b) not in kinds:
        return None
    start = max(kinds.index(_kind(a)), kinds.index(_kind(b)))
    for _, types in _KIND_LADDER[start:]:
        for t in types:
            if _safe(a, t) and _safe(b, t):
                return t
    return None  # pragma: no cover - every NumPy type casts safely to complex128


def _with_scalar(t: str, weak: str) -> str | None:
    """Return the dtype of an array of dtype ``t`` combined with a Python scalar (NEP 50)."""
    if t in _BUILTIN:
        level = _KIND_LEVEL[_kind(t)]
        if weak == "weak_complex" and _kind(t) == "f":
            return _COMPLEX_OF[t]
        if level == 0 or level < _WEAK_LEVEL[weak]:
            return _WEAK_DEFAULT[weak]
        return t
    found = (_common(t, probe) for probe in _WEAK_PROBES[weak])
    return next((f for f in found if f is not None), None)


def _promote(a: str, b: str) -> str | None:
    """Return the promotion of two dtypes or weak scalar types (``np.result_type``)."""
    if a in _WEAK_DEFAULT and b in _WEAK_DEFAULT:
        return max(a, b, key=list(_WEAK_DEFAULT).index)
    if a in _WEAK_DEFAULT:
        return _with_scalar(b, a)
    if b in _WEAK_DEFAULT:
        return _with_scalar(a, b)
    return _common(a, b)


def _output(ufunc: str, loop: str) -> str:
    """Return the dtype a ufunc's loop on ``loop`` produces."""
    if ufunc in _COMPARISONS:
        return "bool_"
    return REAL_OF_COMPLEX.get(loop, loop) if ufunc == "absolute" else loop


def _fits(operand: str, loop: str, scalars_weak: bool) -> bool:
    """Return whether an operand casts safely to a loop's dtype (a weak scalar by NEP 50)."""
    if operand not in _WEAK_DEFAULT:
        return _safe(operand, loop)
    if not scalars_weak:
        return _safe(_WEAK_DEFAULT[operand], loop)
    return _safe(_with_scalar(loop, operand) or _WEAK_DEFAULT[operand], loop)


def _scalars_weak(operands: Iterable[str]) -> bool:
    """Return whether Python scalars stay weak: their kind does not exceed the arrays'."""
    levels = [_KIND_LEVEL.get(_kind(o), 3) for o in operands if o not in _WEAK_DEFAULT]
    weak = [_WEAK_LEVEL[o] for o in operands if o in _WEAK_DEFAULT]
    return bool(levels) and max(levels) >= max(weak, default=0)


def _linear_search(ufunc: str, operands: tuple[str, ...]) -> str | None:
    """Return the output of the first loop every operand casts to (ml_dtypes' loops first)."""
    weak = _scalars_weak(operands)
    registered = [t for t in operands if ufunc in ML_LOOPS.get(t, ())]
    for loop in (*registered, *LOOPS[ufunc]):
        if all(_fits(o, loop, weak) for o in operands):
            return _output(ufunc, loop)
    return None


def _promote_first(ufunc: str, operands: tuple[str, ...]) -> Outcome | None:
    """Promote NumPy-only operands, then take the promoted type's loop (``SimpleUniform``)."""
    promoted = operands[0]
    for other in operands[1:]:
        joined = _promote(promoted, other)
        assert joined is not None, "NumPy's own types always promote"
        promoted = joined
    promoted = _WEAK_DEFAULT.get(promoted, promoted)  # Python scalars only: their default
    if promoted == "bool_" and ufunc in _REFUSES_BOOL:
        return Undefined(_REFUSES_BOOL[ufunc])
    return _output(ufunc, promoted) if promoted in LOOPS[ufunc] else None


def _apply(ufunc: str, operands: tuple[str, ...]) -> Outcome:
    """Return what a ufunc gives on the operands' dtypes, or why NumPy refuses it."""
    numpy_only = all(o in _BUILTIN or o in _WEAK_DEFAULT for o in operands)
    if ufunc == "true_divide" and numpy_only and all(_kind(o) in "bui" for o in operands):
        return "float64"
    if numpy_only and ufunc in _UNIFORM:
        found = _promote_first(ufunc, operands)
    else:
        found = _linear_search(ufunc, operands)
    if found is None:
        shown = " and ".join(_SHOWN.get(o, o) for o in operands)
        return Undefined(f"{ufunc} has no loop for {shown}")
    return found


class NumpyRules(RuleSet):
    """NumPy ≥ 2 with NEP 50 promotion and the ml_dtypes types."""

    name: ClassVar[str] = "numpy"
    title: ClassVar[str] = "NumPy 2 (NEP 50) with ml_dtypes"
    array_types: ClassVar[tuple[str, ...]] = tuple(m.name for m in CONCRETE)

    def __init__(self) -> None:
        super().__init__()
        self._table = PromotionTable.from_function(self.types, _promote)

    @property
    def promotion(self) -> PromotionTable:
        """``np.result_type`` of two dtypes or weak scalar types (not a lattice)."""
        return self._table

    def binary(self, op: str, a: str, b: str) -> Outcome:
        """Resolve the operator's ufunc on the two operands."""
        return _apply(_UFUNC[op], (self.marker(a), self.marker(b)))

    def unary(self, op: str, a: str) -> Outcome:
        """Resolve the operator's ufunc on one operand."""
        return _apply(_UFUNC[op], (a,))

    def inplace(self, op: str, a: str, b: str) -> Outcome:
        """Compute ``a OP b`` and cast it back into ``a`` if the cast is 'same_kind'."""
        result = self.binary(INPLACE_OF[op], a, b)
        if isinstance(result, Undefined):
            return result
        if _same_kind(result, a):
            return a
        return Undefined(f"cannot cast {result} back to {a} in place")
