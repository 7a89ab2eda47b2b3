"""Your own promotion rules: a lattice given as data.

``LatticeRules`` turns a lattice — each type and the types immediately above
it — into a rule set the runtime functions, the command line and the mypy
plugin can use::

    from typing_pkg.rules import register
    from typing_pkg.rules.custom import LatticeRules

    # Integers never meet floats; weak Python scalars join either chain.
    STRICT_FLOATS = LatticeRules(
        "strict-floats",
        {
            "bool_": ("weak_int",),
            "weak_int": ("int8",),
            "int8": ("int16",),
            "int16": ("int32",),
            "int32": (),
            "weak_float": ("float16",),
            "float16": ("float32",),
            "float32": (),
        },
    )
    register(STRICT_FLOATS)

The nodes are marker names.  Edges that do not form a lattice — a cycle, or
two types with several least upper bounds — are rejected when the rules are
built, with a ``LatticeError`` naming an offending pair.

Operators apply the join, then a check of the operand kinds each operator
accepts (by default JAX's: ``-`` refuses booleans, ``//`` and ``%`` complex
numbers, bitwise operators anything but booleans and integers, shifts
anything but integers); comparisons give ``bool_``; ``/`` needs an inexact
join unless ``true_divide`` maps integer types to the float they divide into;
``abs`` of a complex type is its real type.  In-place operators rebind the
name to the binary result.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME
from typing_pkg.lattice import Lattice, LatticeError
from typing_pkg.rules.base import REAL_OF_COMPLEX, Outcome, RuleSet, Undefined

__all__ = ["DEFAULT_ACCEPTS", "LatticeRules"]

DEFAULT_ACCEPTS: Final[Mapping[str, str]] = {
    "add": "biufc", "sub": "iufc", "mul": "biufc", "truediv": "fc", "floordiv": "iuf",
    "mod": "iuf", "pow": "iufc", "matmul": "biufc", "and": "biu", "or": "biu", "xor": "biu",
    "lshift": "iu", "rshift": "iu", "lt": "biuf", "le": "biuf", "gt": "biuf", "ge": "biuf",
    "eq": "biufc", "ne": "biufc", "neg": "iufc", "pos": "biufc", "invert": "biu", "abs": "biufc",
}  # fmt: skip
"""The kinds of joined dtype each operator accepts unless told otherwise."""


class LatticeRules(RuleSet):
    """A rule set made from a user's lattice of marker names."""

    title: ClassVar[str] = "a custom lattice"

    def __init__(
        self,
        name: str,
        edges: Mapping[str, Iterable[str]],
        *,
        title: str | None = None,
        accepts: Mapping[str, str] = DEFAULT_ACCEPTS,
        true_divide: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        unknown = sorted({n for n, above in edges.items() for n in (n, *above)} - set(BY_NAME))
        if unknown:
            raise LatticeError(f"not a lattice of dtypes: {', '.join(unknown)} are not markers")
        self._lattice = Lattice(edges)
        self.name = name  # type: ignore[misc]  # an instance's own name
        self.title = title or f"the custom lattice {name!r}"  # type: ignore[misc]
        self.array_types = tuple(t for t in self._lattice.types if not BY_NAME[t].weak)  # type: ignore[misc]
        # The engine's data (typing_pkg.rules.base), this instance's own.
        self.accepts = {**DEFAULT_ACCEPTS, **accepts}  # type: ignore[misc]
        self.conversions = {"truediv": dict(true_divide or {}), "abs": REAL_OF_COMPLEX}  # type: ignore[misc]

    @property
    def promotion(self) -> Lattice:
        """The user's lattice."""
        return self._lattice

    def join(self, a: str, b: str) -> Outcome:
        """Join in the user's lattice (a type outside it promotes with nothing)."""
        outside = [t for t in (a, b) if t not in self._lattice.types]
        if outside:
            return Undefined(f"{outside[0]} is not in the {self.name!r} lattice")
        return super().join(a, b)

    def unary(self, op: str, a: str) -> Outcome:
        """Apply the operator's kind check to a type of the lattice."""
        if a not in self._lattice.types:
            return Undefined(f"{a} is not in the {self.name!r} lattice")
        return super().unary(op, a)
