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
built, with a ``LatticeError`` naming an offending pair; so are edges of
another shape (a list of pairs, a string of successors), names that are not
markers (with the marker meant, when one is close) and categories, and
``accepts`` or ``true_divide`` naming an unknown operator or type.

Operators apply the join, then a check of the operand kinds each operator
accepts (by default JAX's: ``-`` refuses booleans, ``//`` and ``%`` complex
numbers, bitwise operators anything but booleans and integers, shifts
anything but integers); comparisons give ``bool_``; ``/`` needs an inexact
join unless ``true_divide`` maps integer types to the float they divide into;
``abs`` of a complex type is its real type.  In-place operators rebind the
name to the binary result.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import ClassVar, Final, cast

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
_EDGES_SHAPE: Final = "such as {'int8': ('int16',), 'int16': ()}"


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.75)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _checked_edges(edges: object) -> dict[str, tuple[str, ...]]:
    """Return ``edges`` as a dict of tuples, or raise ``LatticeError`` saying what is wrong."""
    prefix = "not a lattice of dtypes: "
    if not isinstance(edges, Mapping):
        raise LatticeError(
            f"{prefix}the edges must be a mapping from each marker name to the names "
            f"immediately above it ({_EDGES_SHAPE}), not a {type(edges).__name__}"
        )
    checked: dict[str, tuple[str, ...]] = {}
    for node, above in cast("Mapping[object, object]", edges).items():
        if not isinstance(node, str):
            raise LatticeError(f"{prefix}the edges' keys must be marker names, not {node!r}")
        if isinstance(above, str) or not isinstance(above, Iterable):
            raise LatticeError(
                f"{prefix}the types above {node!r} must be a tuple or list of marker names "
                f"({_EDGES_SHAPE}), not {above!r}"
            )
        successors: list[str] = []
        for other in cast("Iterable[object]", above):
            if not isinstance(other, str):
                raise LatticeError(
                    f"{prefix}the types above {node!r} must be marker names, not {other!r}"
                )
            successors.append(other)
        checked[node] = tuple(successors)
    used = dict.fromkeys(n for node, above in checked.items() for n in (node, *above))
    unknown = [n for n in used if n not in BY_NAME]
    if unknown:
        named = ", ".join(f"{n!r}{_did_you_mean(n, BY_NAME)}" for n in unknown)
        verb = "is not a marker" if len(unknown) == 1 else "are not markers"
        raise LatticeError(f"{prefix}{named} {verb}")
    categories = [n for n in used if BY_NAME[n].abstract]
    if categories:
        raise LatticeError(
            f"{prefix}{', '.join(map(repr, categories))}: a category of dtypes cannot be a "
            "node of the lattice (name the dtypes it holds)"
        )
    return checked


def _checked_accepts(accepts: object) -> Mapping[str, str]:
    """Return ``accepts`` if it maps operator names to kind letters, or raise ``LatticeError``."""
    if not isinstance(accepts, Mapping):
        raise LatticeError(
            "accepts must map operator names to the kinds of dtype they accept, such as "
            f"{{'and': 'biu'}}, not a {type(accepts).__name__}"
        )
    for op, kinds in cast("Mapping[object, object]", accepts).items():
        if not isinstance(op, str) or op not in DEFAULT_ACCEPTS:
            raise LatticeError(
                f"accepts: {op!r} is not an operator{_did_you_mean(str(op), DEFAULT_ACCEPTS)}; "
                f"valid names: {', '.join(DEFAULT_ACCEPTS)}"
            )
        if not isinstance(kinds, str) or not set(kinds) <= set("biufc"):
            raise LatticeError(
                f"accepts: the kinds {op!r} accepts must be a string of the letters b, i, u, f "
                f"and c (bool, signed, unsigned, floating, complex), not {kinds!r}"
            )
    return cast("Mapping[str, str]", accepts)


def _checked_true_divide(true_divide: object, types: tuple[str, ...]) -> dict[str, str]:
    """Return ``true_divide`` as a dict if it maps types of the lattice to types of it."""
    if true_divide is None:
        return {}
    if not isinstance(true_divide, Mapping):
        raise LatticeError(
            "true_divide must map a type of the lattice to the type it divides into, such as "
            f"{{'int8': 'float16'}}, not a {type(true_divide).__name__}"
        )
    checked: dict[str, str] = {}
    for source, target in cast("Mapping[object, object]", true_divide).items():
        for name in (source, target):
            if not isinstance(name, str) or name not in types:
                hint = _did_you_mean(name, types) if isinstance(name, str) else ""
                raise LatticeError(f"true_divide: {name!r} is not a type of the lattice{hint}")
        checked[cast("str", source)] = cast("str", target)
    return checked


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
        if not isinstance(name, str) or not name:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise LatticeError(f"a custom rule set needs a name (a non-empty string), not {name!r}")
        self._lattice = Lattice(_checked_edges(edges))
        self.name = name  # type: ignore[misc]  # an instance's own name
        self.title = title or f"the custom lattice {name!r}"  # type: ignore[misc]
        self.array_types = tuple(t for t in self._lattice.types if not BY_NAME[t].weak)  # type: ignore[misc]
        # The engine's data (typing_pkg.rules.base), this instance's own.
        self.accepts = {**DEFAULT_ACCEPTS, **_checked_accepts(accepts)}  # type: ignore[misc]
        true_divide = _checked_true_divide(true_divide, self._lattice.types)
        self.conversions = {"truediv": true_divide, "abs": REAL_OF_COMPLEX}  # type: ignore[misc]

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
