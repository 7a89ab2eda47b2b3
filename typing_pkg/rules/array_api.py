"""The Array API standard's rules, as ``array_api_strict`` enforces them (API 2025.12).

The standard defines promotion only within a kind: booleans with booleans,
integers with integers (a signed and an unsigned integer promote to the
signed type wide enough for both, so ``int64`` with ``uint64`` is undefined),
real floats with real floats, and floats with complex numbers (``float32``
with ``complex128`` is ``complex128``).  Integers never promote to floats.

Python scalars are weak and take the array's dtype: a ``bool`` only with
boolean arrays; an ``int`` with integer and floating-point arrays; a
``float`` or ``complex`` with floating-point arrays (a ``complex`` scalar
turns ``float32`` into ``complex64``).  All of this is one lattice, written
below as each type's immediate successors.

Each operator accepts only some kinds for its array operands: ``/``
floating-point only (integers do not divide truly), ``//`` and ``%`` and the
ordering comparisons real numbers only, bitwise operators integers and
booleans, shifts integers, arithmetic any number but not booleans, ``==``
and ``!=`` everything.  ``array_api_strict`` checks the arrays, not the Python
scalars, and leaves the computation to NumPy: ``float32 < 1j`` is computed
(NumPy orders complex numbers), ``float32 // 1j`` fails (NumPy has no complex
floor division).
``abs`` of a complex number is its real counterpart.  An in-place operator
must not change the left operand's dtype (``int8 += int16`` is refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME
from typing_pkg.lattice import Lattice
from typing_pkg.ops import INPLACE_OF
from typing_pkg.rules.base import REAL_OF_COMPLEX, Outcome, RuleSet, Undefined, check_kind

__all__ = ["ArrayApiRules"]

EDGES: Final[Mapping[str, tuple[str, ...]]] = {
    "bool_": (),
    "weak_int": ("int8", "uint8", "weak_float"),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": (),
    "uint8": ("uint16", "int16"),
    "uint16": ("uint32", "int32"),
    "uint32": ("uint64", "int64"),
    "uint64": (),
    "weak_float": ("float32", "weak_complex"),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "weak_complex": ("complex64",),
    "complex64": ("complex128",),
    "complex128": (),
}
"""The Array API promotion lattice with Python scalars as weak types."""

# The kinds ("b"ool, "i"nt, "u"int, "f"loat, "c"omplex) each operator accepts.
NUMERIC: Final = "iufc"
ACCEPTS: Final[Mapping[str, str]] = {
    "add": NUMERIC, "sub": NUMERIC, "mul": NUMERIC, "truediv": "fc", "floordiv": "iuf",
    "mod": "iuf", "pow": NUMERIC, "matmul": NUMERIC, "and": "biu", "or": "biu", "xor": "biu",
    "lshift": "iu", "rshift": "iu", "lt": "iuf", "le": "iuf", "gt": "iuf", "ge": "iuf",
    "eq": "biufc", "ne": "biufc", "neg": NUMERIC, "pos": NUMERIC, "invert": "biu", "abs": NUMERIC,
}  # fmt: skip
# What NumPy, which computes for array_api_strict, cannot do with the promoted dtype.
NO_COMPLEX_LOOP: Final = frozenset({"floordiv", "mod"})
COMPARISONS: Final = frozenset({"lt", "le", "gt", "ge", "eq", "ne"})


class ArrayApiRules(RuleSet):
    """The Array API standard (2025.12) as ``array_api_strict`` enforces it."""

    name: ClassVar[str] = "array-api"
    title: ClassVar[str] = "the Array API standard 2025.12, as array_api_strict enforces it"
    array_types: ClassVar[tuple[str, ...]] = tuple(t for t in EDGES if not BY_NAME[t].weak)

    def __init__(self) -> None:
        super().__init__()
        self._lattice = Lattice(EDGES)

    @property
    def promotion(self) -> Lattice:
        """The Array API lattice."""
        return self._lattice

    def binary(self, op: str, a: str, b: str) -> Outcome:
        """Check each array operand's kind, join, and compute in the joined dtype."""
        for operand in (a, b):
            if operand not in self.scalars:
                checked = check_kind(op, operand, ACCEPTS)
                if isinstance(checked, Undefined):
                    return checked
        a, b = self.marker(a), self.marker(b)
        joined = self._lattice.join(a, b)
        if joined is None:
            return Undefined(f"{a} and {b} cannot be promoted together")
        if op in NO_COMPLEX_LOOP and BY_NAME[joined].kind == "c":
            return Undefined(f"{op} has no loop for {joined}")
        return "bool_" if op in COMPARISONS else joined

    def unary(self, op: str, a: str) -> Outcome:
        """Check the operator accepts ``a``; ``abs`` of complex is real."""
        checked = check_kind(op, a, ACCEPTS)
        if op == "abs" and not isinstance(checked, Undefined):
            return REAL_OF_COMPLEX.get(checked, checked)
        return checked

    def inplace(self, op: str, a: str, b: str) -> Outcome:
        """Apply the binary operator; its result must keep the left operand's dtype."""
        result = self.binary(INPLACE_OF[op], a, b)
        if isinstance(result, Undefined) or result == a:
            return result
        return Undefined(f"{op} would change {a} to {result}")
