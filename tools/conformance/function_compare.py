"""Comparing the function table with the function truth, cell by cell.

Each cell of ``truth/api/<rules>.csv`` (see :mod:`tools.conformance.functions`
for its columns) is turned back into a :class:`typing_pkg.api.kinds.Call`,
the table's kind computes its result under the rule set, and the cell falls
into one of the classes of :mod:`tools.conformance.compare` (``exact``,
``refused``, ``failed``, ``excepted``, ``mismatch``).  A weakly typed JAX
result must be the rules' weak marker (whose run-time dtype is the rule
set's ``weak_dtypes`` entry); a weakly typed bool is ``bool_``.

Where JAX fails for a reason that is not its dtype semantics, the cell must be
covered by a named exception of :data:`FUNCTION_FAILURES`, with the reason.

A type checker against the same cells
=====================================

:func:`judge` compares what a type checker said about the generated program
(:mod:`tools.conformance.function_program`, one ``reveal_type`` per call) with
the truth, cell by cell, for every checker alike (mypy with the plugin,
basedpyright, pyrefly and ty with the JAX stubs): each checker's output is
read into :class:`Said` per line (the dtype of the revealed arrays, its
errors, whether one of them is the dtype refusal), and each cell falls into
one of :data:`VERDICTS`:

``exact``
    JAX's dtype (its weak marker for a weakly typed result), no error; where
    JAX fails for a reason that is not its dtypes (a named exception of
    :data:`FUNCTION_FAILURES`), the table's dtype;
``caught``
    the dtype refusal where JAX refuses the dtypes (or the table calls a
    failing call undefined);
``unknown``
    the table makes no claim (an "unknown" rule): no error, and no dtype
    other than JAX's;
``failed``
    JAX failed for a reason that is not its dtypes (a shape) before returning
    the several outputs the table types: no error;
``excepted``
    a failing cell a :class:`CheckerException` of the checker covers, with
    its reason;
``not expressed``
    no error and no dtype (``Array[Any]``, ``Unknown``) where the truth has
    a dtype or a refusal: the checker says nothing false, only less;
``false error``
    an error where JAX accepts;
``missed``
    a dtype where JAX refuses the dtypes (or an error that is not the
    refusal);
``wrong``
    a dtype other than JAX's.

Which verdicts fail is the checker's: every one from ``not expressed`` on for
the plugin, the last three for the stubs (a stub cannot say everything).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from tools.conformance.compare import Mismatch, Report, agrees
from tools.conformance.compare import expected as expected_marker
from tools.conformance.known_failures import KnownFailure
from tools.conformance.truthfile import Cell
from typing_pkg.api import RULES_OF_CONFIG, table
from typing_pkg.api.kinds import Call, Env, Kind, Operand, Outcome, Param, Result, Unknown
from typing_pkg.dtypes import BY_NAME, NARROW_FLOATS, SUB_BYTE_INTEGERS
from typing_pkg.rules import RuleSet, Undefined, get_rules
from typing_pkg.rules.base import PY_SCALARS, PY_TYPES

__all__ = [
    "FUNCTION_FAILURES",
    "VERDICTS",
    "CheckerException",
    "FunctionFailure",
    "FunctionMismatch",
    "Said",
    "Verdict",
    "call_of",
    "classify",
    "compare_functions",
    "expected",
    "judge",
    "operands",
]

_PY_TYPES: Final = {PY_TYPES[kind].__name__: marker for kind, marker in PY_SCALARS.items()}
"""A Python type named in a truth cell's options (``float``) → the marker it stands for."""


@dataclass(frozen=True)
class FunctionFailure(KnownFailure):
    """Cells where JAX fails although the dtype semantics define a result, and why.

    A named exception of the operator truth (``KnownFailure``) whose cells are
    function calls: ``functions`` names them (full names, or prefixes ending in
    ``.``) and ``operands`` the dtypes of which one must be an argument's.
    """

    functions: frozenset[str] = frozenset()
    """Full names (or prefixes ending in ``.``) of the functions concerned."""

    def covers(self, rules: str, cell: Cell) -> bool:
        """Return whether this entry explains the failure recorded in ``cell``."""
        name = _base(cell.op)
        dtypes = {*operands(cell), *(v.strip("'") for v in _options(cell))}
        return (
            rules in self.rules
            and cell.error_kind == self.kind
            and any(name == f or (f.endswith(".") and name.startswith(f)) for f in self.functions)
            and (self.operands is None or bool(dtypes & self.operands))
            and re.search(self.message, cell.error or "") is not None
        )


_ALL: Final = frozenset(RULES_OF_CONFIG.values())
_NARROW_INTS: Final = frozenset(SUB_BYTE_INTEGERS)
_NARROW_FLOATS: Final = frozenset(NARROW_FLOATS)
_EVERY_FUNCTION: Final = frozenset({"jax."})

FUNCTION_FAILURES: Final[tuple[FunctionFailure, ...]] = (
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "boolean indices are a mask: put_along_axis reads the recipe's (2, 2) boolean "
            "indices as indexing more dimensions than the array has, a shape error"
        ),
        message=r"IndexError: Too many indices",
        functions=frozenset({"jax.numpy.put_along_axis"}),
        operands=frozenset({"bool_"}),
    ),
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "JAX's integer helpers (iinfo, the integer power's bit-width table) have no "
            "entry for the 1-, 2- and 4-bit integers: a function that asks for one fails "
            "inside JAX although the dtype semantics define its result"
        ),
        message=r"Invalid integer data type",
        functions=_EVERY_FUNCTION,
        operands=_NARROW_INTS,
    ),
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "constants of the computation (frequencies, 180/pi) are converted to the input's "
            "1- or 2-bit integer type, whose range they overflow: a value effect"
        ),
        message=r"OverflowError: out of range value cannot be converted",
        functions=_EVERY_FUNCTION,
        operands=_NARROW_INTS,
    ),
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "jnp.signbit (behind copysign and spacing) is implemented for 16-, 32- and "
            "64-bit floats only"
        ),
        message=r"signbit only supports 16, 32, and 64-bit types",
        functions=_EVERY_FUNCTION,
        operands=_NARROW_FLOATS,
    ),
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "the dot products pass the promoted type as preferred_element_type to "
            "lax.dot_general, which rejects it when a weakly typed operand is wider "
            "(as for the @ operator, see tools/conformance/known_failures.py)"
        ),
        message=r"preferred_element_type. must not be narrower",
        functions=frozenset(
            {
                "jax.numpy.dot",
                "jax.numpy.matmul",
                "jax.numpy.inner",
                "jax.numpy.vdot",
                "jax.numpy.tensordot",
                "jax.numpy.vecdot",
                "jax.numpy.matvec",
                "jax.numpy.vecmat",
                "jax.numpy.linalg.",
                "jax.Array.dot",
                "jax.numpy.einsum",
                "jax.nn.dot_product_attention",
            }
        ),
    ),
    FunctionFailure(
        rules=_ALL,
        kind="shape",
        reason=(
            "a bitcast between types of different widths needs a last axis of the ratio "
            "of the widths (a shape requirement): one recorded shape cannot fit every pair"
        ),
        message=r"Attempting to convert array of shape|When changing to a larger dtype",
        functions=frozenset({"jax.lax.bitcast_convert_type", "jax.Array.view"}),
    ),
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "frexp (behind ldexp) looks the float type's exponent and mantissa widths up "
            "in a table without the narrow (4-, 6- and 8-bit) floats"
        ),
        message=r"KeyError: [468]$",
        functions=frozenset({"jax.numpy.ldexp"}),
        operands=_NARROW_FLOATS,
    ),
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "NumPy's fromstring cannot parse the ml_dtypes types narrower than a byte "
            "(the dtype itself is accepted)"
        ),
        message=r"don't know how to read character strings",
        functions=frozenset({"jax.numpy.fromstring"}),
    ),
    FunctionFailure(
        rules=_ALL,
        kind="bug",
        reason=(
            "convert_element_type of a Python complex scalar to a real dtype calls "
            "Python's float() on it, which refuses complex numbers (a value conversion)"
        ),
        message=r"float\(\) argument must be a string or a real number, not 'complex'",
        functions=frozenset({"jax.lax.convert_element_type"}),
    ),
)
"""Every named exception, with its reason."""


@dataclass(frozen=True)
class FunctionMismatch(Mismatch):
    """A cell where the table and JAX disagree, printed as the call."""

    def __str__(self) -> str:
        c = self.cell
        options = f", {c.right}" if c.right else ""
        weak = "*" if c.weak else ""
        library = f"{c.result}{weak}" if c.error_kind is None else f"{c.error_kind}: {c.error}"
        return f"{c.op}({c.left}{options}): jax {library}; rules {self.rules_say} ({self.why})"


def _parameters(kind: Kind) -> list[Param]:
    """The kind's array parameters and its branches' (``where(c)``, ``where(c, x, y)``)."""
    return [*kind.params, *(p for branch in kind.branches() for p in _parameters(branch))]


def _base(op: str) -> str:
    return op.partition("[")[0]


def _index(op: str) -> int | None:
    _, bracket, rest = op.partition("[")
    return int(rest.rstrip("]")) if bracket else None


def _options(cell: Cell) -> list[str]:
    return [item.partition("=")[2] for item in cell.right.split()]


def operands(cell: Cell) -> list[str]:
    """The dtypes (or Python scalar kinds) of a cell's array arguments, in order."""
    return [t for item in cell.left.split() for t in item.partition("=")[2].split(",")]


def call_of(kind: Kind, cell: Cell) -> Call:
    """Return the call a cell records (operands by parameter name, options parsed)."""
    return _call(_base(cell.op), cell, {p.name for p in kind.params if p.sequence})


def _call(name: str, cell: Cell, sequences: set[str]) -> Call:
    args: dict[str, Operand] = {}
    for item in cell.left.split():
        param, _, value = item.partition("=")
        args[param] = tuple(value.split(",")) if param in sequences else value
    options: dict[str, object] = {}
    for item in cell.right.split():
        option, _, value = item.partition("=")
        if value in ("True", "False"):
            options[option] = value == "True"
        else:
            options[option] = _PY_TYPES.get(value, value.strip("'"))
    return Call(name, args, options)


def expected(kind: Kind, cell: Cell, env: Env) -> Result:
    """Return what the table says the cell's call gives (its output, for ``name[i]``)."""
    return _output(kind.result(call_of(kind, cell), env), cell)


def _output(outcome: Result, cell: Cell) -> Result:
    """Return the output of ``outcome`` the cell records (``name[i]``: the i-th).

    A cell of a function of several outputs without an index is one where JAX
    raised before returning them: where it raised for the dtypes, one output's
    refusal is the table's answer (and none is a missed error); where it
    failed for another reason, the table's outputs are beside the point.
    """
    index = _index(cell.op)
    if not isinstance(outcome, tuple):
        return outcome
    if index is None and len(outcome) == 1:
        return outcome[0]  # a tuple of one array (qr(a, mode="r")): its leaf is recorded
    if index is not None and index < len(outcome):
        return outcome[index]
    refused = [item for item in outcome if isinstance(item, Undefined)]
    if refused:
        return refused[0]
    if cell.error_kind == "dtype" and index is None:
        return outcome[0]  # the table accepts what JAX refuses
    return Undefined(f"the table gives {len(outcome)} outputs")


def _agrees(env: Env, cell: Cell, result: str) -> bool:
    marker = BY_NAME[result]
    if marker.weak:
        return bool(cell.weak) and cell.result == env.weak.get(result)
    return cell.result == result and (not cell.weak or result == "bool_")


def _classify(
    env: Env, outcome: Result, cell: Cell, entries: Sequence[FunctionFailure]
) -> tuple[str, str]:
    undefined = isinstance(outcome, Undefined)
    if isinstance(outcome, tuple):
        return "mismatch", "the table gives several outputs, JAX one"
    if isinstance(outcome, Unknown):
        return "unknown", ""  # the table makes no claim: never wrong
    if cell.error_kind is None:
        if undefined:
            return "mismatch", f"false error: {outcome}"
        if not isinstance(outcome, str):
            return "mismatch", f"the table says {outcome}"
        return ("exact", "") if _agrees(env, cell, outcome) else ("mismatch", "wrong dtype")
    if cell.error_kind == "dtype":
        return ("refused", "") if undefined else ("mismatch", "missed error")
    if undefined:
        return "failed", ""
    if any(e.covers(env.name, cell) for e in entries):
        return "excepted", ""
    return "mismatch", f"JAX fails ({cell.error_kind}) and no named exception says why"


def _shown(outcome: Result | Outcome) -> str:
    return str(outcome)


def compare_functions(
    rules: str | RuleSet,
    cells: Iterable[Cell],
    entries: Sequence[FunctionFailure] = FUNCTION_FAILURES,
    kinds: Mapping[str, Kind] | None = None,
) -> Report:
    """Compare the table with every cell; report counts, mismatches and unused exceptions."""
    from typing_pkg.api import _env  # pyright: ignore[reportPrivateUsage]

    env = _env(get_rules(rules))
    found_kinds = table() if kinds is None else kinds
    report = Report(env.name)
    used: set[FunctionFailure] = set()
    # per function: its kind, the parameter names it reads, its sequence parameters
    known: dict[str, tuple[Kind, set[str], set[str]] | None] = {}
    for cell in cells:
        name = _base(cell.op)
        if name not in known:
            found = found_kinds.get(name)
            known[name] = (
                None
                if found is None
                else (
                    found,
                    {p.name for p in _parameters(found)} | found.checks(),
                    {p.name for p in _parameters(found) if p.sequence},
                )
            )
        entry = known[name]
        if entry is None:
            report.counts["mismatch"] += 1
            report.mismatches.append(FunctionMismatch(cell, "-", "not in the table"))
            continue
        kind, names, sequences = entry
        call = _call(name, cell, sequences)
        if not set(call.args) <= names:
            report.counts["mismatch"] += 1
            why = f"the truth names parameters {sorted(set(call.args) - names)} the table does not"
            report.mismatches.append(FunctionMismatch(cell, "-", why))
            continue
        outcome = _output(kind.result(call, env), cell)
        verdict, why = _classify(env, outcome, cell, entries)
        report.counts[verdict] += 1
        if verdict == "excepted":
            used.update(e for e in entries if e.covers(env.name, cell))
        elif verdict == "mismatch":
            report.mismatches.append(FunctionMismatch(cell, _shown(outcome), why))
    report.unused = [e for e in entries if env.name in e.rules and e not in used]
    return report


# ------------------------------------------------------------------ a checker against the truth

VERDICTS: Final = (
    "exact", "caught", "unknown", "failed", "excepted", "not expressed", "false error", "missed",
    "wrong",
)  # fmt: skip
"""The classes of a cell a type checker typed (see the module docs)."""


@dataclass(frozen=True)
class Said:
    """What a type checker said on one line of the program."""

    revealed: str | None = None
    """The revealed type, as the checker prints it."""
    marker: str | None = None
    """The dtype of the revealed arrays, if they have one known dtype."""
    errors: tuple[str, ...] = ()
    caught: bool = False
    """Whether one of the errors is the checker's dtype refusal."""

    def __str__(self) -> str:
        errors = f", errors {list(self.errors)[:2]}" if self.errors else ""
        return f"revealed {self.revealed}{errors}"


@dataclass(frozen=True)
class CheckerException:
    """Cells a checker cannot type as JAX does, and why (a limit of the checker)."""

    reason: str
    functions: frozenset[str]
    """Full names of the functions concerned (the cell's ``op`` without ``[i]``)."""
    applies: Callable[[Cell], bool] = lambda cell: True
    """Which of their cells."""
    rules: frozenset[str] = _ALL

    def covers(self, rules: str, cell: Cell) -> bool:
        """Return whether this entry explains the cell under ``rules``."""
        return rules in self.rules and _base(cell.op) in self.functions and self.applies(cell)


@dataclass
class Verdict:
    """Counts per verdict, the first problems, the exceptions used, why cells are not expressed."""

    failing: frozenset[str]
    """The verdicts that fail (see :data:`VERDICTS`)."""
    counts: Counter[str] = field(default_factory=Counter[str])
    problems: list[str] = field(default_factory=list[str])
    used: set[CheckerException] = field(default_factory=set[CheckerException])
    unexpressed: Counter[str] = field(default_factory=Counter[str])
    """The cells ``not expressed``, by reason."""

    def add(self, kind: str, problem: str | None = None) -> None:
        self.counts[kind] += 1
        if problem is not None and len(self.problems) < 60:
            self.problems.append(problem)

    @property
    def failures(self) -> int:
        """The number of failing cells."""
        return sum(self.counts[k] for k in self.failing)

    @property
    def total(self) -> int:
        """The number of cells judged."""
        return sum(self.counts.values())

    def summary(self) -> str:
        """One line of counts."""
        return ", ".join(f"{k} {self.counts[k]}" for k in VERDICTS)


def classify(rules: str, env: Env, kind: Kind, cell: Cell, said: Said) -> tuple[str, str]:
    """Return the verdict on one cell and, for one other than a success, what went wrong."""
    ruleset = get_rules(rules)
    claim = expected(kind, cell, env)
    marker = said.marker

    def refusal() -> tuple[str, str]:
        if said.caught:
            return "caught", ""
        if said.errors or marker is not None:
            return "missed", f"no dtype refusal ({said})"
        return "not expressed", f"no dtype refusal ({said})"

    outcome = kind.result(call_of(kind, cell), env)
    if "[" not in cell.op and isinstance(outcome, tuple) and len(outcome) > 1:
        # JAX failed before returning its several outputs, each of which the table types
        if cell.error_kind == "dtype":
            return refusal()
        if said.errors:
            return "false error", str(said)
        return "failed", ""
    if isinstance(claim, Unknown):
        # the table makes no claim: never an error, never a dtype other than JAX's
        if said.errors:
            return "false error", str(said)
        if marker is not None and (
            cell.error_kind is not None or not agrees(ruleset, cell, marker)
        ):
            return "wrong", f"{said}; the table: {claim}"
        return "unknown", ""
    if cell.error_kind is None or cell.error_kind == "dtype":
        want = expected_marker(ruleset, cell)
    else:  # JAX failed for another reason: the table's answer stands (FUNCTION_FAILURES)
        want = claim if isinstance(claim, str) else None
    if want is None:
        return refusal()
    if said.errors:
        return "false error", str(said)
    if marker is None:
        return "not expressed", f"{said}; want {want}"
    right = marker == want if cell.error_kind is not None else agrees(ruleset, cell, marker)
    return ("exact", "") if right else ("wrong", f"{said}; want {want}")


def judge(
    rules: str,
    lines: Mapping[int, Iterable[Cell]],
    said: Mapping[int, Said],
    *,
    failing: Iterable[str],
    exceptions: Iterable[CheckerException] = (),
    source: Sequence[str] = (),
    reason: Callable[[Cell], str] | None = None,
) -> Verdict:
    """Judge every cell by what a checker said on its line.

    ``lines`` maps a line (1-based) to the cells it stands for, ``source``
    is the program's lines (quoted in the problems), ``reason`` names why a
    cell is ``not expressed`` (counted in :attr:`Verdict.unexpressed`).  A
    failing cell an exception covers is ``excepted``.
    """
    from typing_pkg.api import _env  # pyright: ignore[reportPrivateUsage]

    env = _env(rules)
    entries = [e for e in exceptions if rules in e.rules]
    verdict = Verdict(frozenset(failing))
    kinds = table()
    for number, cells in lines.items():
        found = said.get(number, Said())
        for cell in cells:
            kind, why = classify(rules, env, kinds[_base(cell.op)], cell, found)
            if kind in verdict.failing:
                covering = [e for e in entries if e.covers(rules, cell)]
                if covering:
                    verdict.used.update(covering)
                    verdict.add("excepted")
                    continue
                text = source[number - 1].strip() if 0 < number <= len(source) else ""
                verdict.add(kind, f"line {number}: {text}: {kind}: {why}")
                continue
            if kind == "not expressed" and reason is not None:
                verdict.unexpressed[reason(cell)] += 1
            verdict.add(kind)
    return verdict
