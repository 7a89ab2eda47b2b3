"""The promotion engine: a lattice given by its edges, and tables that are not lattices.

A ``Lattice`` is built from data: each type mapped to the types immediately
above it (JAX's ``_type_promotion_lattice`` has the same shape).  From the
edges we take the reflexive-transitive closure, the *upper bounds* ``UB(t)``
of every type; the promotion of ``a`` and ``b`` is their *join*, the least
upper bound: the one common upper bound ``c`` with ``UB(a) ∩ UB(b) ⊆ UB(c)``.

Two outcomes are legitimate for a pair: a unique join, or no common upper
bound at all (the rules leave that promotion undefined on purpose, as JAX does
for its 8-bit floats).  Anything else is not a lattice and is rejected when the
lattice is built, with an error naming an offending pair: a cycle (``a`` above
``b`` above ``a``), or two types with several minimal common upper bounds
(``a ∨ b`` ambiguous).  A join defined this way is commutative and
associative; ``verify`` checks both laws on the computed table anyway, and so
do the property tests.

A ``PromotionTable`` holds promotions that no lattice describes (NumPy's with
Python scalars, TensorFlow's asymmetric one): any function of two types,
tabulated, with the same query interface.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Protocol

__all__ = [
    "Lattice",
    "LatticeError",
    "Promotion",
    "PromotionTable",
    "Verification",
    "verify",
]


class LatticeError(ValueError):
    """The edges given do not form a lattice; the message names an offending pair."""


class Promotion(Protocol):
    """What the rule sets need of a promotion: a join of two types, or ``None``."""

    @property
    def types(self) -> tuple[str, ...]:
        """The types the promotion is defined over, in table order."""
        ...

    def join(self, a: str, b: str) -> str | None:
        """Return the promotion of ``a`` and ``b``, or ``None`` where it is undefined."""
        ...


class Lattice:
    """A promotion lattice given by each type's immediate successors."""

    def __init__(self, edges: Mapping[str, Iterable[str]]) -> None:
        successors: dict[str, tuple[str, ...]] = {}
        for node, above in edges.items():
            successors[node] = tuple(above)
            for other in successors[node]:
                successors.setdefault(other, ())
        self.edges: Final[Mapping[str, tuple[str, ...]]] = successors
        self.types: Final[tuple[str, ...]] = tuple(successors)
        self.upper_bounds: Final[Mapping[str, frozenset[str]]] = _closure(successors)
        self._joins: Final[dict[tuple[str, str], str | None]] = {}
        for a, b in itertools.combinations_with_replacement(self.types, 2):
            joined = self._least_upper_bound(a, b)
            self._joins[a, b] = self._joins[b, a] = joined

    def _least_upper_bound(self, a: str, b: str) -> str | None:
        ub = self.upper_bounds
        common = ub[a] & ub[b]
        if not common:
            return None
        least = [c for c in common if common <= ub[c]]
        if len(least) != 1:
            minimal = sorted(c for c in common if not any(c in ub[d] and c != d for d in common))
            raise LatticeError(
                f"not a lattice: {a} and {b} have no least upper bound; "
                f"their minimal common upper bounds are {', '.join(minimal)}"
            )
        return least[0]

    def join(self, a: str, b: str) -> str | None:
        """Return the least upper bound of ``a`` and ``b``, or ``None`` if they have none."""
        return self._joins[a, b]

    def join_all(self, types: Iterable[str]) -> str | None:
        """Return the least upper bound of several types (``None`` if any pair is unbounded)."""
        result: str | None = None
        for t in types:
            if result is None:
                result = t
                continue
            result = self._joins[result, t]
            if result is None:
                return None
        return result

    def leq(self, a: str, b: str) -> bool:
        """Return whether ``a`` promotes to ``b`` (``b`` is an upper bound of ``a``)."""
        return b in self.upper_bounds[a]

    def __repr__(self) -> str:
        return f"Lattice({len(self.types)} types)"


def _closure(successors: Mapping[str, Sequence[str]]) -> dict[str, frozenset[str]]:
    """Compute every node's upper bounds, rejecting cycles with the offending pair."""
    bounds: dict[str, frozenset[str]] = {}
    visiting: list[str] = []

    def visit(node: str) -> frozenset[str]:
        if node in bounds:
            return bounds[node]
        if node in visiting:
            cycle = [*visiting[visiting.index(node) :], node]
            raise LatticeError(
                f"not a lattice: {cycle[0]} and {cycle[1]} lie on a cycle ({' -> '.join(cycle)})"
            )
        visiting.append(node)
        found = {node}
        for above in successors[node]:
            found |= visit(above)
        visiting.pop()
        bounds[node] = frozenset(found)
        return bounds[node]

    for node in successors:
        visit(node)
    return bounds


@dataclass(frozen=True)
class PromotionTable:
    """Promotions given pair by pair (possibly asymmetric, possibly not associative)."""

    types: tuple[str, ...]
    table: Mapping[tuple[str, str], str | None] = field(repr=False)

    @classmethod
    def from_function(
        cls, types: Sequence[str], promote: Callable[[str, str], str | None]
    ) -> PromotionTable:
        """Tabulate ``promote`` over every ordered pair of ``types``."""
        return cls(tuple(types), {(a, b): promote(a, b) for a in types for b in types})

    def join(self, a: str, b: str) -> str | None:
        """Return the promotion of ``a`` with ``b``, or ``None`` where it is undefined."""
        return self.table[a, b]


@dataclass(frozen=True)
class Verification:
    """The lattice laws checked on a promotion's full table."""

    types: int
    defined: int
    undefined: int
    not_commutative: tuple[tuple[str, str], ...]
    not_associative: tuple[tuple[str, str, str], ...]
    not_idempotent: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Whether every law holds."""
        return not (self.not_commutative or self.not_associative or self.not_idempotent)


def verify(promotion: Promotion) -> Verification:
    """Check idempotence, commutativity and associativity on every pair and triple."""
    types = promotion.types
    join = promotion.join
    pairs = [(a, b) for a in types for b in types]
    defined = sum(join(a, b) is not None for a, b in pairs)
    not_commutative = tuple((a, b) for a, b in pairs if a < b and join(a, b) != join(b, a))
    not_idempotent = tuple(a for a in types if join(a, a) != a)

    def join3(x: str | None, y: str | None) -> str | None:
        return None if x is None or y is None else join(x, y)

    not_associative = tuple(
        (a, b, c)
        for a, b, c in itertools.product(types, repeat=3)
        if join3(join(a, b), c) != join3(a, join(b, c))
    )
    return Verification(
        types=len(types),
        defined=defined,
        undefined=len(pairs) - defined,
        not_commutative=not_commutative,
        not_associative=not_associative,
        not_idempotent=not_idempotent,
    )
