"""What a rule set is: a promotion plus the result of every operator.

A rule set answers two questions, both from data written in its own module:

* ``promote(a, b)``: the promotion of two dtypes (``promote_types``);
* ``result(op, left, right)``: the dtype ``left OP right`` produces at run time,
  for every operator of ``typing_pkg.ops`` (true division of integers,
  comparisons, bitwise operators refusing floats, in-place forms that must
  cast back, …), or ``Undefined`` with the reason the library refuses it.

Operands are marker names (``"float32"``, ``"weak_int"``) or Python scalar
kinds (``"py_bool"``, ``"py_int"``, ``"py_float"``, ``"py_complex"``), which a
rule set maps to markers (by default: ``bool_`` and the weak markers) but may
also tell apart: JAX treats a concrete Python ``int`` exponent differently
from a weakly typed integer array.  ``@`` with a Python scalar is undefined
under every rule set: matrix multiplication needs arrays of one dimension or
more.

The operator engine
-------------------

Every library computes an operator's dtype in the same steps, and a rule set
is mostly the data each step reads:

1. ``operand_accepts[op]``: the kinds (``"b"``, ``"i"``, ``"u"``, ``"f"``,
   ``"c"``) each operand must have (Python scalars too, unless
   ``checks_scalar_operands`` is false, as in the Array API);
2. ``join_operands(a, b)``: the promotion of the two operands, by default
   ``join`` of their markers (a lattice join or a table);
3. ``conversions[op]``: what the operator does to the joined dtype first
   (true division makes integers inexact; ``abs`` of a complex number is real);
4. ``canonical``: the dtype a result really has (JAX with x64 off turns 64-bit
   types into 32-bit ones);
5. ``accepts[op]`` and ``refuses[op]``: the kinds, and single dtypes, the
   operator's implementation refuses;
6. comparisons give ``bool_``.

An in-place operator by default rebinds the name to the binary result
(``inplace``); libraries that write the result back into the left operand
override it.  What no table expresses (NumPy's ufunc loop search, JAX's
``**``, PyTorch's ``@``) is a method override in the rule set's module.
Adding a rule set is one module of this shape, one truth file and one entry
in ``typing_pkg.rules``' registry (see the contributing page of the docs).
"""

from __future__ import annotations

import builtins
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME, CONCRETE, WEAK
from typing_pkg.lattice import Promotion
from typing_pkg.ops import BINARY, COMPARISON, INPLACE_OF, SYMBOL, UNARY

__all__ = [
    "PY_SCALARS",
    "PY_TYPES",
    "REAL_OF_COMPLEX",
    "WEAK_PY_TYPES",
    "Outcome",
    "RuleSet",
    "Undefined",
]

PY_SCALARS: Final[Mapping[str, str]] = {
    "py_bool": "bool_",
    "py_int": "weak_int",
    "py_float": "weak_float",
    "py_complex": "weak_complex",
}
"""Python scalar kinds and the markers they stand for (a Python bool is not weak)."""
PY_TYPES: Final[Mapping[str, type]] = {
    kind: getattr(builtins, kind.removeprefix("py_")) for kind in PY_SCALARS
}
"""The Python type of each scalar kind (``py_int`` → ``int``)."""
WEAK_PY_TYPES: Final[Mapping[str, type]] = {
    marker: PY_TYPES[kind] for kind, marker in PY_SCALARS.items() if marker.startswith("weak_")
}
"""Each weak marker and the Python type whose values it stands for (``weak_int`` → ``int``)."""


_MATMUL: Final = frozenset({"matmul", "imatmul"})
_COMPARISONS: Final = frozenset(COMPARISON)


@dataclass(frozen=True)
class Undefined:
    """An operation the rules leave undefined, and why."""

    reason: str

    def __str__(self) -> str:
        return self.reason


Outcome = str | Undefined
"""A result dtype's marker name, or ``Undefined``."""

REAL_OF_COMPLEX: Final[Mapping[str, str]] = {
    "complex32": "float16",
    "bcomplex32": "bfloat16",
    "complex64": "float32",
    "complex128": "float64",
    "weak_complex": "weak_float",
}
"""The real type of each complex type: what ``abs`` gives in every library."""


class RuleSet(ABC):
    """A named set of promotion rules; subclasses hold their library's semantics as data."""

    name: ClassVar[str]
    """The name users configure (``"jax"``, ``"numpy"``, …)."""
    title: ClassVar[str]
    """One line saying which library behaviour the rules reproduce."""
    array_types: ClassVar[tuple[str, ...]]
    """The dtypes arrays can have under these rules, in table order."""
    scalars: ClassVar[Mapping[str, str]] = PY_SCALARS
    """How Python scalar operands map to markers."""
    weak_dtypes: ClassVar[Mapping[str, str]] = {}
    """The dtype a weakly typed result has at run time (only JAX has weakly typed arrays)."""

    # -- the engine's data (see the module docstring) --------------------------

    operand_accepts: ClassVar[Mapping[str, str]] = {}
    """Operator → the kinds every operand must have (an operator not listed takes any)."""
    checks_scalar_operands: ClassVar[bool] = True
    """Whether ``operand_accepts`` applies to Python scalars too, or to arrays only."""
    conversions: ClassVar[Mapping[str, Mapping[str, str]]] = {"abs": REAL_OF_COMPLEX}
    """Operator → what it turns the joined dtype into before computing."""
    canonical: ClassVar[Mapping[str, str]] = {}
    """The dtype a computed dtype really is (JAX's x64 canonicalisation)."""
    accepts: ClassVar[Mapping[str, str]] = {}
    """Operator → the kinds of converted dtype it computes in (not listed: every kind)."""
    refuses: ClassVar[Mapping[str, frozenset[str]]] = {}
    """Operator → single dtypes it refuses although their kind is accepted."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, str | None], Outcome] = {}

    @property
    @abstractmethod
    def promotion(self) -> Promotion:
        """The promotion of types (a ``Lattice`` or a ``PromotionTable``)."""

    # -- the engine's steps -------------------------------------------------------

    def marker(self, operand: str) -> str:
        """Return the marker an operand stands for (a Python scalar kind maps to its marker)."""
        return self.scalars.get(operand, operand)

    def join(self, a: str, b: str) -> Outcome:
        """Return the promotion of markers ``a`` and ``b``, or why there is none."""
        joined = self.promotion.join(a, b)
        if joined is None:
            return Undefined(f"{a} and {b} have no implicit promotion path under {self.name!r}")
        return joined

    def join_operands(self, a: str, b: str) -> Outcome:
        """Return the promotion of two operands (``py_*`` kinds kept): by default of their markers.

        A library whose Python scalars promote unlike any dtype (PyTorch's
        "wrapped numbers") overrides this.
        """
        return self.join(self.marker(a), self.marker(b))

    def check_operands(self, op: str, *operands: str) -> Undefined | None:
        """Return why ``op`` refuses one of its operands (``py_*`` kinds kept), if it does."""
        kinds = self.operand_accepts.get(op)
        if kinds is None:
            return None
        for operand in operands:
            if operand in self.scalars and not self.checks_scalar_operands:
                continue
            marker = self.marker(operand)
            if BY_NAME[marker].kind not in kinds:
                return Undefined(f"{SYMBOL[op]} does not accept {marker}")
        return None

    def apply(self, op: str, t: str) -> Outcome:
        """Return what ``op`` computes from the joined (or single) dtype ``t``, or why not."""
        converted = self.conversions.get(op, {}).get(t, t)
        converted = self.canonical.get(converted, converted)
        kinds = self.accepts.get(op)
        if (kinds is not None and BY_NAME[converted].kind not in kinds) or converted in (
            self.refuses.get(op, ())
        ):
            return Undefined(f"{SYMBOL[op]} does not accept {converted}")
        return "bool_" if op in _COMPARISONS else converted

    def binary(self, op: str, a: str, b: str) -> Outcome:
        """Return the result of binary ``op`` on operands ``a`` and ``b`` (``py_*`` kept)."""
        refused = self.check_operands(op, a, b)
        if refused is not None:
            return refused
        joined = self.join_operands(a, b)
        return joined if isinstance(joined, Undefined) else self.apply(op, joined)

    def unary(self, op: str, a: str) -> Outcome:
        """Return the result of unary ``op`` on the array dtype ``a``."""
        refused = self.check_operands(op, a)
        return refused if refused is not None else self.apply(op, self.canonical.get(a, a))

    def inplace(self, op: str, a: str, b: str) -> Outcome:
        """Return the result of ``a OP= b``: by default the binary result (the name is rebound)."""
        return self.binary(INPLACE_OF[op], a, b)

    # -- the public queries ----------------------------------------------------

    def is_dtype(self, name: str) -> bool:
        """Return whether ``name`` is a dtype of these rules, or one they canonicalise."""
        return name in self.canonical or name in self.types

    @property
    def types(self) -> tuple[str, ...]:
        """The array dtypes and the weak scalar types, in the markers' table order."""
        present = {*self.array_types, *self.scalars.values()}
        return tuple(m.name for m in (*CONCRETE, *WEAK) if m.name in present)

    def promote(self, a: str, b: str) -> str | None:
        """Return the promotion of markers ``a`` and ``b``, or ``None`` where undefined."""
        joined = self.join(self.marker(a), self.marker(b))
        return None if isinstance(joined, Undefined) else joined

    def result(self, op: str, left: str, right: str | None = None) -> Outcome:
        """Return what ``left OP right`` (or ``OP left``) gives; operands may be ``py_*`` kinds."""
        key = (op, left, right)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if right is None:
            if op not in UNARY:
                raise ValueError(f"{op!r} is not a unary operator")
            outcome = self.unary(op, self.marker(left))
        elif op in _MATMUL and (left in PY_SCALARS or right in PY_SCALARS):
            outcome = Undefined("@ needs arrays of at least one dimension, not Python scalars")
        elif op in INPLACE_OF:
            outcome = self.inplace(op, left, right)
        elif op in BINARY:
            outcome = self.binary(op, left, right)
        else:
            raise ValueError(f"{op!r} is not a binary operator")
        self._cache[key] = outcome
        return outcome

    def __repr__(self) -> str:
        return f"<rules {self.name!r}: {self.title}>"
