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
from typing_pkg.ops import INPLACE_OF, SYMBOL
from typing_pkg.rules.base import Outcome, RuleSet, Undefined

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

# The kinds ("b"ool, "i"nt, "u"int, "f"loat, "c"omplex) each operator accepts for its arrays.
NUMERIC: Final = "iufc"
OPERAND_ACCEPTS: Final[Mapping[str, str]] = {
    "add": NUMERIC, "sub": NUMERIC, "mul": NUMERIC, "truediv": "fc", "floordiv": "iuf",
    "mod": "iuf", "pow": NUMERIC, "matmul": NUMERIC, "and": "biu", "or": "biu", "xor": "biu",
    "lshift": "iu", "rshift": "iu", "lt": "iuf", "le": "iuf", "gt": "iuf", "ge": "iuf",
    "eq": "biufc", "ne": "biufc", "neg": NUMERIC, "pos": NUMERIC, "invert": "biu", "abs": NUMERIC,
}  # fmt: skip
# What NumPy, which computes for array_api_strict, cannot do with the promoted dtype.
NO_COMPLEX_LOOP: Final[Mapping[str, str]] = {"floordiv": "biuf", "mod": "biuf"}


class ArrayApiRules(RuleSet):
    """The Array API standard (2025.12) as ``array_api_strict`` enforces it."""

    name: ClassVar[str] = "array-api"
    title: ClassVar[str] = "the Array API standard 2025.12, as array_api_strict enforces it"
    array_types: ClassVar[tuple[str, ...]] = tuple(t for t in EDGES if not BY_NAME[t].weak)
    operand_accepts: ClassVar[Mapping[str, str]] = OPERAND_ACCEPTS
    checks_scalar_operands: ClassVar[bool] = False
    accepts: ClassVar[Mapping[str, str]] = NO_COMPLEX_LOOP

    def __init__(self) -> None:
        super().__init__()
        self._lattice = Lattice(EDGES)

    @property
    def promotion(self) -> Lattice:
        """The Array API lattice."""
        return self._lattice

    def join(self, a: str, b: str) -> Outcome:
        """Join in the lattice: within a kind, and floats with complex numbers."""
        joined = self._lattice.join(a, b)
        return Undefined(f"{a} and {b} cannot be promoted together") if joined is None else joined

    def inplace(self, op: str, a: str, b: str) -> Outcome:
        """Apply the binary operator; its result must keep the left operand's dtype."""
        result = self.binary(INPLACE_OF[op], a, b)
        if isinstance(result, Undefined) or result == a:
            return result
        return Undefined(f"{SYMBOL[op]} would change {a} to {result}")
