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
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME, CONCRETE, WEAK
from typing_pkg.lattice import Promotion
from typing_pkg.ops import BINARY, INPLACE_OF, UNARY

__all__ = ["PY_SCALARS", "REAL_OF_COMPLEX", "Outcome", "RuleSet", "Undefined", "check_kind"]

PY_SCALARS: Final[Mapping[str, str]] = {
    "py_bool": "bool_",
    "py_int": "weak_int",
    "py_float": "weak_float",
    "py_complex": "weak_complex",
}
"""Python scalar kinds and the markers they stand for (a Python bool is not weak)."""


_MATMUL: Final = frozenset({"matmul", "imatmul"})


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


def check_kind(op: str, t: str, accepts: Mapping[str, str]) -> Outcome:
    """Return ``t`` if ``op`` accepts its kind (``accepts[op]``: kind letters), else why not."""
    if BY_NAME[t].kind not in accepts[op]:
        return Undefined(f"{op} does not accept {t}")
    return t


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

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, str | None], Outcome] = {}

    # -- what subclasses provide ---------------------------------------------

    @property
    @abstractmethod
    def promotion(self) -> Promotion:
        """The promotion of types (a ``Lattice`` or a ``PromotionTable``)."""

    @abstractmethod
    def binary(self, op: str, a: str, b: str) -> Outcome:
        """Return the result of binary ``op`` on operands ``a`` and ``b`` (``py_*`` kept)."""

    @abstractmethod
    def unary(self, op: str, a: str) -> Outcome:
        """Return the result of unary ``op`` on the array dtype ``a``."""

    def inplace(self, op: str, a: str, b: str) -> Outcome:
        """Return the result of ``a OP= b``: by default the binary result (the name is rebound)."""
        return self.binary(INPLACE_OF[op], a, b)

    def marker(self, operand: str) -> str:
        """Return the marker an operand stands for (a Python scalar kind maps to its marker)."""
        return self.scalars.get(operand, operand)

    # -- the public queries ----------------------------------------------------

    @property
    def types(self) -> tuple[str, ...]:
        """The array dtypes and the weak scalar types, in the markers' table order."""
        present = {*self.array_types, *self.scalars.values()}
        return tuple(m.name for m in (*CONCRETE, *WEAK) if m.name in present)

    def promote(self, a: str, b: str) -> str | None:
        """Return the promotion of markers ``a`` and ``b``, or ``None`` where undefined."""
        return self.promotion.join(self.scalars.get(a, a), self.scalars.get(b, b))

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
        else:
            if op in INPLACE_OF:
                outcome = self.inplace(op, left, right)
            elif op in BINARY:
                outcome = self.binary(op, left, right)
            else:
                raise ValueError(f"{op!r} is not a binary operator")
        self._cache[key] = outcome
        return outcome

    def __repr__(self) -> str:
        return f"<rules {self.name!r}: {self.title}>"
