"""Named exceptions: where a library fails for reasons that are not dtype semantics.

A truth file records every failure with its kind (``tools.conformance
.observe.ERROR_RULES`` decides it): ``dtype`` when the library refuses the
dtypes, ``kernel`` when PyTorch lacks a CPU kernel, ``shape`` for shape
errors, ``bug`` for anything else.  Where a rule set gives a dtype although
the library failed with one of the last three kinds, the cell must be listed
here with the reason; a rule set that calls such a cell undefined agrees with
the library and needs no entry.  The conformance tests fail on a failure cell
that no entry covers and on an entry that no longer covers any cell.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from tools.conformance.truthfile import Cell
from typing_pkg.dtypes import SUB_BYTE_INTEGERS

__all__ = ["KNOWN_FAILURES", "KnownFailure", "covering"]

_JAX: Final = frozenset({"jax", "jax-x64", "jax-strict"})
_NARROW_INTS: Final = frozenset(SUB_BYTE_INTEGERS)


@dataclass(frozen=True)
class KnownFailure:
    """Cells where a library fails although its dtype rules define a result."""

    rules: frozenset[str]
    kind: str
    reason: str
    message: str
    """A regular expression the recorded error matches."""
    ops: frozenset[str] | None = None
    """The operators concerned (``None``: any)."""
    operands: frozenset[str] | None = field(default=None)
    """Operands of which at least one must take part (``None``: any)."""

    def covers(self, rules: str, cell: Cell) -> bool:
        """Return whether this entry explains the failure recorded in ``cell``."""
        return (
            rules in self.rules
            and cell.error_kind == self.kind
            and (self.ops is None or cell.op in self.ops)
            and (self.operands is None or bool({cell.left, cell.right} & self.operands))
            and re.search(self.message, cell.error or "") is not None
        )


KNOWN_FAILURES: Final[tuple[KnownFailure, ...]] = (
    KnownFailure(
        rules=_JAX,
        kind="bug",
        reason=(
            "jnp.power on 1-, 2- and 4-bit integers fails inside JAX's integer power "
            "implementation (its bit-width table has no entry for them); the promotion "
            "itself is defined"
        ),
        message=r"Invalid integer data type",
        ops=frozenset({"pow", "ipow"}),
        operands=_NARROW_INTS,
    ),
    KnownFailure(
        rules=_JAX,
        kind="bug",
        reason=(
            "jnp.matmul of a strongly typed array with a wider weakly typed one asks "
            "lax.dot_general for the (narrower) promoted type as preferred_element_type, "
            "which it rejects; the promotion is defined and elementwise operators apply it"
        ),
        message=r"preferred_element_type. must not be narrower",
        ops=frozenset({"matmul", "imatmul"}),
        operands=frozenset({"weak_int", "weak_complex"}),
    ),
    KnownFailure(
        rules=_JAX - {"jax-strict"},
        kind="bug",
        reason="lax.dot_general has no bool × int1 case, although bool promotes to int1",
        message=r"lax.dot_general argument type error",
        ops=frozenset({"matmul", "imatmul"}),
        operands=frozenset({"int1"}),
    ),
    KnownFailure(
        rules=frozenset({"numpy"}),
        kind="bug",
        reason=(
            "a value effect, not a dtype one: the ones of ml_dtypes.int1 are -1 (its only "
            "non-zero value), and NumPy refuses negative integer powers of integers"
        ),
        message=r"Integers to negative integer powers are not allowed",
        ops=frozenset({"pow", "ipow"}),
        operands=frozenset({"int1"}),
    ),
    KnownFailure(
        rules=frozenset({"torch"}),
        kind="kernel",
        reason=(
            "uint16, uint32 and uint64 have 'limited support' in PyTorch: the CPU build has "
            "no kernel for +, -, //, %, **, shifts, ordering comparisons, @, unary -, ~ and "
            "abs on them, although their promotion is defined"
        ),
        message=r"not implemented for 'UInt(16|32|64)'",
    ),
    KnownFailure(
        rules=frozenset({"torch"}),
        kind="kernel",
        reason=(
            "the float8 types are storage types in PyTorch: the CPU build has no arithmetic, "
            "ordering or negation kernels for them (the computation dtype named in the error "
            "is float8 even when a Python scalar takes part)"
        ),
        message=r"not implemented for 'Float8_\w+'",
    ),
    KnownFailure(
        rules=frozenset({"torch"}),
        kind="kernel",
        reason=(
            "complex32 (ComplexHalf) support is experimental: the CPU build has no division, "
            "power or matmul kernel for it, also when a float16 tensor meets a complex scalar"
        ),
        message=r"not implemented for 'ComplexHalf'",
    ),
    KnownFailure(
        rules=frozenset({"torch"}),
        kind="kernel",
        reason="the CPU build has no bool kernel for **, abs and @, which keep bool as dtype",
        message=r"not implemented for 'Bool'",
        ops=frozenset({"pow", "ipow", "abs", "matmul", "imatmul"}),
    ),
)
"""Every named exception, with its reason."""


def covering(
    rules: str, cell: Cell, entries: Iterable[KnownFailure] = KNOWN_FAILURES
) -> list[KnownFailure]:
    """Return the entries that explain ``cell``'s failure under ``rules``."""
    return [entry for entry in entries if entry.covers(rules, cell)]
