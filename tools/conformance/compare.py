"""Comparing a rule set with observed cells (a truth file or the live library).

Each cell falls into one of these classes:

``exact``
    the library gave a dtype and the rules give the same one (a weakly typed
    JAX result must be the rules' weak marker, whose run-time dtype is the
    rule set's ``weak_dtypes`` entry; a weakly typed JAX bool is ``bool_``);
``refused``
    the library refused the dtypes and the rules call the operation undefined;
``failed``
    the library failed for another reason (no kernel, a shape, a bug) and the
    rules call it undefined too;
``excepted``
    the library failed for another reason and the rules give the dtype it
    intends, under a named exception (``known_failures``);
``mismatch``
    anything else: a wrong dtype, a missed or a false error, or a failure no
    named exception explains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from tools.conformance.known_failures import KNOWN_FAILURES, KnownFailure, covering
from tools.conformance.truthfile import Cell
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules import RuleSet, Undefined, get_rules

__all__ = ["Mismatch", "Report", "compare"]


@dataclass(frozen=True)
class Mismatch:
    """A cell where the rules and the library disagree."""

    cell: Cell
    rules_say: str
    why: str

    def __str__(self) -> str:
        c = self.cell
        operands = f"{c.left} {c.op} {c.right}" if c.right else f"{c.op} {c.left}"
        weak = "*" if c.weak else ""
        failure = f"{c.error_kind} error: {c.error}"
        library = f"{c.result}{weak}" if c.error_kind is None else failure
        return f"{operands}: library {library}; rules {self.rules_say} ({self.why})"


@dataclass
class Report:
    """How a rule set fared on a set of cells."""

    rules: str
    counts: Counter[str] = field(default_factory=Counter)
    mismatches: list[Mismatch] = field(default_factory=list)
    unused: list[KnownFailure] = field(default_factory=list)

    @property
    def total(self) -> int:
        """The number of cells compared."""
        return sum(self.counts.values())

    @property
    def ok(self) -> bool:
        """Whether every cell agrees and every named exception is used."""
        return not self.mismatches and not self.unused

    def summary(self) -> str:
        """Return one line of counts."""
        parts = ", ".join(
            f"{k} {self.counts[k]}" for k in ("exact", "refused", "failed", "excepted")
        )
        return (
            f"{self.rules}: {self.total} cells: {parts}, mismatches {len(self.mismatches)}, "
            f"unused named exceptions {len(self.unused)}"
        )

    def details(self, limit: int = 40) -> str:
        """Return the summary with the first ``limit`` mismatches and any unused exception."""
        lines = [self.summary()]
        lines += [f"  {m}" for m in self.mismatches[:limit]]
        if len(self.mismatches) > limit:
            lines.append(f"  … and {len(self.mismatches) - limit} more")
        lines += [f"  unused named exception: {u.reason}" for u in self.unused]
        return "\n".join(lines)


def agrees(rules: RuleSet, cell: Cell, result: str) -> bool:
    """Return whether the library's result in ``cell`` is the marker ``result``.

    A weakly typed result is the rule set's weak marker of its dtype (a weak
    bool is ``bool_``: the lattice has no weak bool).
    """
    marker = BY_NAME[result]
    if marker.weak:
        return bool(cell.weak) and cell.result == rules.weak_dtypes.get(result)
    return cell.result == result and (not cell.weak or result == "bool_")


def expected(rules: RuleSet, cell: Cell) -> str | None:
    """Return the marker a checker must infer for ``cell``, or ``None`` where it must report.

    A refusal of the dtypes must be an error; a failure that is not about dtypes
    (a shape, a missing kernel, a bug) leaves the rules' answer standing.
    """
    if cell.error_kind is None:
        assert cell.result is not None
        if cell.weak and cell.result != "bool_":
            return next(w for w, d in rules.weak_dtypes.items() if d == cell.result)
        return cell.result
    if cell.error_kind == "dtype":
        return None
    outcome = rules.result(cell.op, cell.left, cell.right or None)
    return None if isinstance(outcome, Undefined) else outcome


def _classify(rules: RuleSet, cell: Cell, entries: Sequence[KnownFailure]) -> tuple[str, str]:
    """Return the class of ``cell`` and, for a mismatch, why."""
    outcome = rules.result(cell.op, cell.left, cell.right or None)
    undefined = isinstance(outcome, Undefined)
    if cell.error_kind is None:
        if undefined:
            return "mismatch", f"false error: {outcome}"
        return ("exact", "") if agrees(rules, cell, str(outcome)) else ("mismatch", "wrong dtype")
    if cell.error_kind == "dtype":
        return ("refused", "") if undefined else ("mismatch", "missed error")
    if undefined:
        return "failed", ""
    if covering(rules.name, cell, entries):
        return "excepted", ""
    return "mismatch", f"the library fails ({cell.error_kind}) and no named exception says why"


def compare(
    rules: str | RuleSet,
    cells: Iterable[Cell],
    entries: Sequence[KnownFailure] = KNOWN_FAILURES,
) -> Report:
    """Compare the rule set with every cell; report counts, mismatches and unused exceptions."""
    ruleset = get_rules(rules)
    report = Report(ruleset.name)
    used: set[KnownFailure] = set()
    for cell in cells:
        kind, why = _classify(ruleset, cell, entries)
        report.counts[kind] += 1
        if kind == "excepted":
            used.update(covering(ruleset.name, cell, entries))
        elif kind == "mismatch":
            outcome = ruleset.result(cell.op, cell.left, cell.right or None)
            report.mismatches.append(Mismatch(cell, str(outcome), why))
    report.unused = [e for e in entries if ruleset.name in e.rules and e not in used]
    return report
