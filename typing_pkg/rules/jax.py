"""JAX's rules: ``jax.numpy`` with standard or strict promotion, x64 on or off.

Three rule sets: ``jax`` is JAX as it runs by default (standard promotion,
``jax_enable_x64=False``); ``jax-x64`` the same with ``jax_enable_x64=True``
(the table of JAX's type promotion page); ``jax-strict`` strict promotion
with x64 off.  ``jax-x32`` is accepted as another name for ``jax``.

The promotion is a lattice (JAX's ``_type_promotion_lattice``), written below
as each type's immediate successors.  Operators then apply what the
``jax.numpy`` function behind each one does with the joined dtype:

* ``/`` makes the join inexact: booleans and integers of 4 to 32 bits become
  float32, 64-bit integers float64, a weak int a weak float (``int1``,
  ``int2``, ``uint1`` and ``uint2`` are not in JAX's table and divide as they
  are);
* ``**`` with a Python ``int`` exponent keeps the base's dtype; an integer
  power is strongly typed; a float or complex base with an integer exponent
  array keeps the base's dtype (both as ``jnp.power`` does);
* ``//``, ``%``, ``**`` and the shifts make it numeric: a boolean becomes int32;
* each ``lax`` primitive accepts only some dtypes (``-`` and unary ``-`` refuse
  booleans, ``%`` and ``//`` complex numbers, the bitwise operators anything
  but booleans and integers, the shifts anything but integers, ``abs`` the
  integers narrower than 8 bits);
* comparisons give ``bool_`` (a comparison of weak operands gives a weakly
  typed bool at run time; there is no weak bool in the lattice, so ``bool_``);
* ``abs`` of a complex number is its real counterpart.

A result is weakly typed when the join is a weak type; a computation whose
operands are all weak is promoted through their strong counterparts
(``int64``, ``float64``, ``complex128``; with x64 off their 32-bit
canonical types) and marked weak again, as JAX does.  A weak result is an
array of the default dtype of its kind at run time (``weak_dtypes``).

With x64 off (``jax``, ``jax-strict``) 64-bit types do not exist: an
operand or result of 64 bits is canonicalised to 32 bits (as JAX does with a
NumPy ``float64`` array or a ``dtype=float64`` request), and the only lattice edge that would
form a 64-bit type from 32-bit ones, ``uint32 → int64``, becomes
``uint32 → int32``.  Strict promotion (``jax-strict``) keeps only the edges
from each weak type to the strong types of its kind and up the weak chain.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME, NARROW_FLOATS, NARROW_INTS, NARROW_UINTS, WEAK_NAMES
from typing_pkg.lattice import Lattice
from typing_pkg.rules.base import REAL_OF_COMPLEX, Outcome, RuleSet, Undefined

__all__ = ["JaxRules", "JaxStrictRules", "JaxX64Rules"]

_SMALL_INTS: Final = NARROW_INTS
_SMALL_UINTS: Final = NARROW_UINTS
_SMALL_FLOATS: Final = NARROW_FLOATS
_INTS: Final = (*_SMALL_INTS, "int8", "int16", "int32", "int64")
_UINTS: Final = (*_SMALL_UINTS, "uint8", "uint16", "uint32", "uint64")
_FLOATS: Final = (*_SMALL_FLOATS, "bfloat16", "float16", "float32", "float64")
_COMPLEX: Final = ("complex64", "complex128")
_STRONG: Final = ("bool_", *_UINTS, *_INTS, *_FLOATS, *_COMPLEX)
_WEAK: Final = WEAK_NAMES

STANDARD_EDGES: Final[Mapping[str, tuple[str, ...]]] = {
    "bool_": ("weak_int",),
    "weak_int": ("uint8", *_SMALL_UINTS, "int8", *_SMALL_INTS),
    **{t: () for t in (*_SMALL_UINTS, *_SMALL_INTS)},
    "uint8": ("int16", "uint16"),
    "uint16": ("int32", "uint32"),
    "uint32": ("int64", "uint64"),
    "uint64": ("weak_float",),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": ("weak_float",),
    "weak_float": (*_SMALL_FLOATS, "bfloat16", "float16", "weak_complex"),
    **{t: () for t in _SMALL_FLOATS},
    "bfloat16": ("float32",),
    "float16": ("float32",),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "weak_complex": ("complex64",),
    "complex64": ("complex128",),
    "complex128": (),
}
"""JAX's standard lattice: each type and the types immediately above it."""

STRICT_EDGES: Final[Mapping[str, tuple[str, ...]]] = {
    "bool_": (),
    "weak_int": ("weak_float", *_INTS, *_UINTS),
    "weak_float": ("weak_complex", *_FLOATS),
    "weak_complex": _COMPLEX,
    **{t: () for t in _STRONG if t != "bool_"},
}
"""JAX's strict lattice: only weak types promote, to their own kind or the next weak type."""

# The x64-off canonicalisation of 64-bit types.
X32: Final[Mapping[str, str]] = {
    "int64": "int32", "uint64": "uint32", "float64": "float32", "complex128": "complex64",
}  # fmt: skip

# The strong counterpart of each weak type (x64 on).
_STRONG_OF_WEAK: Final = {
    "weak_int": "int64",
    "weak_float": "float64",
    "weak_complex": "complex128",
}

# jax.numpy's to_inexact_dtype: what true division turns a joined integer into.
TO_INEXACT: Final[Mapping[str, str]] = {
    "bool_": "float32",
    **{t: "float32" for t in ("uint4", "int4", "uint8", "int8", "uint16", "int16")},
    **{t: "float32" for t in ("uint32", "int32")},
    "uint64": "float64", "int64": "float64", "weak_int": "weak_float",
}  # fmt: skip
# jax.numpy's to_numeric_dtype: bool becomes int32 before //, %, ** and shifts.
TO_NUMERIC: Final[Mapping[str, str]] = {"bool_": "int32"}


# What the operator's lax primitive accepts, by kind of the (converted) join.
_ACCEPTS: Final[Mapping[str, str]] = {
    "sub": "iufc", "truediv": "iufc", "floordiv": "iuf", "mod": "iuf", "pow": "iufc",
    "and": "biu", "or": "biu", "xor": "biu", "lshift": "iu", "rshift": "iu",
    "neg": "iufc", "invert": "biu",
}  # fmt: skip
_CONVERSIONS: Final[Mapping[str, Mapping[str, str]]] = {
    "truediv": TO_INEXACT, "floordiv": TO_NUMERIC, "mod": TO_NUMERIC, "pow": TO_NUMERIC,
    "lshift": TO_NUMERIC, "rshift": TO_NUMERIC,
    # abs refuses the narrow signed integers, but int1 (whose only values are 0
    # and -1) is computed in int8.
    "abs": {**REAL_OF_COMPLEX, "int1": "int8"},
}  # fmt: skip
_REFUSES: Final[Mapping[str, frozenset[str]]] = {"abs": frozenset({"int2", "int4"})}


class JaxX64Rules(RuleSet):
    """``jax.numpy`` with standard promotion and ``jax_enable_x64=True``."""

    name: ClassVar[str] = "jax-x64"
    title: ClassVar[str] = "jax.numpy, standard promotion, jax_enable_x64=True"
    x64: ClassVar[bool] = True
    """JAX's ``jax_enable_x64`` under these rules."""
    promotion_mode: ClassVar[str] = "standard"
    """JAX's ``jax_numpy_dtype_promotion`` under these rules."""
    array_types: ClassVar[tuple[str, ...]] = (*_STRONG, *_WEAK)
    edges: ClassVar[Mapping[str, tuple[str, ...]]] = STANDARD_EDGES
    weak_dtypes: ClassVar[Mapping[str, str]] = _STRONG_OF_WEAK
    accepts: ClassVar[Mapping[str, str]] = _ACCEPTS
    conversions: ClassVar[Mapping[str, Mapping[str, str]]] = _CONVERSIONS
    refuses: ClassVar[Mapping[str, frozenset[str]]] = _REFUSES

    def __init__(self) -> None:
        super().__init__()
        self._lattice = Lattice(self.edges)

    @property
    def promotion(self) -> Lattice:
        """JAX's promotion lattice."""
        return self._lattice

    def _canon(self, t: str) -> str:
        return self.canonical.get(t, t)

    def join(self, a: str, b: str) -> Outcome:
        """Join in the lattice; two weak operands join through their strong counterparts."""
        a, b = self._canon(a), self._canon(b)
        if a in _STRONG_OF_WEAK and b in _STRONG_OF_WEAK:
            strong_a, strong_b = (self._canon(_STRONG_OF_WEAK[t]) for t in (a, b))
            both = self._lattice.join(strong_a, strong_b)
            if both is None:  # pragma: no cover - the strong counterparts always join
                return Undefined(f"{a} and {b} have no promotion")
            strong = {self._canon(s): w for w, s in _STRONG_OF_WEAK.items()}
            return strong.get(both, both)
        joined = super().join(a, b)
        return joined if isinstance(joined, Undefined) else self._canon(joined)

    def _strong(self, t: str) -> str:
        return self._canon(_STRONG_OF_WEAK.get(t, t))

    def binary(self, op: str, a: str, b: str) -> Outcome:
        """Join, then apply the operator; ``**`` has ``jnp.power``'s special cases first."""
        return self._power(a, b) if op == "pow" else super().binary(op, a, b)

    def _power(self, a: str, b: str) -> Outcome:
        """``jnp.power``: its special cases come before the usual promotion."""
        base = self.marker(a)
        if b in ("py_int", "py_bool"):  # a concrete integer exponent: lax.integer_pow
            return self.apply("pow", self._canon(base))
        joined = self.join(base, self.marker(b))
        if isinstance(joined, Undefined):
            return joined
        numeric = self.apply("pow", joined)
        if isinstance(numeric, Undefined):
            return numeric
        if BY_NAME[numeric].kind in "iu":  # integer powers are computed strongly typed
            return self._strong(numeric)
        exponent = self.marker(b)
        if BY_NAME[base].kind in "fc" and BY_NAME[exponent].kind in "iu":
            # lax.pow(x1, x2) with the exponent unpromoted
            weak = base in _STRONG_OF_WEAK and exponent in _STRONG_OF_WEAK
            return self._canon(base) if weak else self._strong(base)
        return numeric


class JaxRules(JaxX64Rules):
    """``jax.numpy`` as JAX runs by default: standard promotion, ``jax_enable_x64=False``."""

    name: ClassVar[str] = "jax"
    title: ClassVar[str] = "jax.numpy, standard promotion, jax_enable_x64=False (JAX's default)"
    x64: ClassVar[bool] = False
    array_types: ClassVar[tuple[str, ...]] = tuple(
        t for t in JaxX64Rules.array_types if t not in X32
    )
    edges: ClassVar[Mapping[str, tuple[str, ...]]] = {
        **STANDARD_EDGES,
        "uint32": ("int32", "uint64"),
    }
    canonical: ClassVar[Mapping[str, str]] = X32
    weak_dtypes: ClassVar[Mapping[str, str]] = {w: X32[s] for w, s in _STRONG_OF_WEAK.items()}


class JaxStrictRules(JaxRules):
    """``jax.numpy`` with ``jax_numpy_dtype_promotion='strict'`` and x64 off."""

    name: ClassVar[str] = "jax-strict"
    title: ClassVar[str] = "jax.numpy, strict promotion, jax_enable_x64=False"
    promotion_mode: ClassVar[str] = "strict"
    edges: ClassVar[Mapping[str, tuple[str, ...]]] = STRICT_EDGES

    def join(self, a: str, b: str) -> Outcome:
        """Join in the strict lattice: only weak types promote."""
        a, b = self._canon(a), self._canon(b)
        if a == b:
            return a
        joined = self._lattice.join(a, b)
        if joined is None:
            return Undefined(f"{a} and {b} have no implicit promotion path under strict promotion")
        return self._canon(joined)
