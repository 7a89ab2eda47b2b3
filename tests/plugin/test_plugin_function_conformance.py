"""The plugin against the function truth: every call of every JAX function, per rule set.

One generated program per rule set (:mod:`tools.conformance.function_program`:
one ``reveal_type`` per cell of ``truth/api/<rules>.csv``, the call as real
code writes it), checked in ONE mypy run under a configuration selecting
that rule set.  Every cell is judged with the Python side's semantics
(``tools.conformance.compare.expected`` and ``agrees``, the table's verdict
read by ``tools.conformance.function_compare.expected``):

``exact``
    JAX's dtype (its weak marker for a weakly typed result), no error; where
    JAX fails for a reason that is not its dtypes (a named exception of
    ``FUNCTION_FAILURES``), the table's dtype;
``caught``
    a ``dtype-promotion`` error where JAX refuses the dtypes (or the table
    calls a failing call undefined);
``unknown``
    the table makes no claim (an "unknown" rule): no error, and no dtype
    other than JAX's;
``failed``
    JAX failed for a reason that is not its dtypes (a shape) before returning
    the several outputs the table types: no error;
``excepted``
    a cell of :data:`PLUGIN_EXCEPTIONS` (what a mypy plugin cannot express),
    with the reason.

Anything else fails the test: a false error, a missed error, a wrong dtype.
``pytest -rP`` shows the counts and the time of each mypy run.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import pytest
from plugin_harness import ROOT, Outcome, parse, run_mypy, write_config

from tools.conformance.compare import agrees
from tools.conformance.compare import expected as expected_marker
from tools.conformance.function_compare import call_of
from tools.conformance.function_compare import expected as table_result
from tools.conformance.function_program import call_source, program
from tools.conformance.truthfile import Cell, read_truth
from typing_pkg.api import RULES_OF_CONFIG, table
from typing_pkg.api.kinds import Env, Unknown
from typing_pkg.rules import get_rules

RULE_SETS: Final = tuple(RULES_OF_CONFIG.values())
_ARRAY: Final = re.compile(
    r"typing_pkg\.typing\.Array\[(?:typing_pkg\.dtypes\.(?P<marker>\w+)|Any)\]"
)


@dataclass(frozen=True)
class PluginException:
    """Cells the plugin cannot type as JAX does, and why (a mypy plugin's limit)."""

    reason: str
    functions: frozenset[str]
    """Full names of the functions concerned (the cell's ``op`` without ``[i]``)."""
    applies: Callable[[Cell], bool] = lambda cell: True
    """Which of their cells."""
    rules: frozenset[str] = frozenset(RULE_SETS)

    def covers(self, rules: str, cell: Cell) -> bool:
        """Return whether this entry explains the cell under ``rules``."""
        return (
            rules in self.rules
            and cell.op.partition("[")[0] in self.functions
            and self.applies(cell)
        )


def _operands(cell: Cell) -> list[str]:
    return [t for item in cell.left.split() for t in item.partition("=")[2].split(",")]


def _outputs_differ(cell: Cell) -> bool:
    """An output ``[i]`` of a call whose arrays have different dtypes."""
    return "[" in cell.op and len(set(_operands(cell))) > 1


PLUGIN_EXCEPTIONS: Final[tuple[PluginException, ...]] = (
    PluginException(
        reason=(
            "JAX declares list[Array]: a list has one item type, so arrays of different "
            "dtypes are Array[Any] (a union would refuse code JAX runs)"
        ),
        functions=frozenset(
            {
                "jax.numpy.broadcast_arrays",
                "jax.numpy.atleast_1d",
                "jax.numpy.atleast_2d",
                "jax.numpy.atleast_3d",
            }
        ),
        applies=_outputs_differ,
    ),
    PluginException(
        reason=(
            "JAX's stub annotates outer's b as Array, not ArrayLike: mypy itself refuses "
            "a Python scalar (arg-type) that JAX accepts"
        ),
        functions=frozenset({"jax.numpy.outer"}),
        applies=lambda cell: "b=py_" in cell.left,
    ),
    PluginException(
        reason=(
            "JAX annotates index_take's idxs as Array, but it takes a tuple of index "
            "arrays (as the truth calls it): mypy itself refuses the tuple (arg-type)"
        ),
        functions=frozenset({"jax.lax.index_take"}),
    ),
    PluginException(
        reason=(
            "without a literal compute_uv JAX's overloads declare Array | SVDResult: the "
            "plugin types the SVDResult member per output, the Array member (compute_uv="
            "False, which the table does not model) unknown, so [i] of a complex input "
            "is a union"
        ),
        functions=frozenset({"jax.numpy.linalg.svd"}),
        applies=lambda cell: "complex" in cell.left,
    ),
    PluginException(
        reason=(
            "JAX declares stop_gradient(x: T) -> T, and of a Python scalar it returns a "
            "Python float (TypedFloat) when run eagerly, a weakly typed array under a trace "
            "(as recorded): the plugin keeps JAX's declaration"
        ),
        functions=frozenset({"jax.lax.stop_gradient"}),
        applies=lambda cell: "=py_" in cell.left,
    ),
)
"""The cells the plugin is not expected to get right, each entry with its reason."""


KINDS: Final = (
    "exact", "caught", "unknown", "failed", "excepted", "false error", "missed", "wrong type"
)  # fmt: skip
"""The classes of a cell, the last three failing."""


@dataclass
class Verdict:
    """Counts per class and the first problems."""

    counts: Counter[str] = field(default_factory=Counter[str])
    problems: list[str] = field(default_factory=list[str])
    used: set[PluginException] = field(default_factory=set[PluginException])

    def add(self, kind: str, problem: str | None = None) -> None:
        self.counts[kind] += 1
        if problem is not None and len(self.problems) < 60:
            self.problems.append(problem)

    @property
    def failing(self) -> int:
        return sum(self.counts[k] for k in ("false error", "missed", "wrong type"))

    def summary(self) -> str:
        return ", ".join(f"{k} {self.counts[k]}" for k in KINDS)


def _marker(revealed: str | None) -> str | None:
    """The dtype of the arrays of a revealed type, if it has arrays of one known dtype.

    JAX's declarations say ``Array``, ``list[Array]`` (``meshgrid``) or
    ``Array | tuple[Array, Array, Array]`` (``intersect1d``, whose optional
    outputs a static signature cannot tell apart): the plugin gives every
    array of the declaration the dtype.
    """
    found = {m["marker"] for m in _ARRAY.finditer(revealed or "")}
    return found.pop() if len(found) == 1 else None


def _classify(rules: str, env: Env, cell: Cell, said: Outcome) -> tuple[str, str]:
    """Return the class of one cell and, for a failing one, what went wrong."""
    ruleset = get_rules(rules)
    kind = table()[cell.op.partition("[")[0]]
    claim = table_result(kind, cell, env)
    marker = _marker(said.revealed)
    caught = any(code == "dtype-promotion" for _, code in said.errors)
    if "[" not in cell.op and isinstance(kind.result(call_of(kind, cell), env), tuple):
        # JAX failed before returning its several outputs, each of which the table types
        if cell.error_kind == "dtype":
            return ("caught", "") if caught else ("missed", f"no dtype-promotion error ({said})")
        if said.errors:
            return "false error", f"{said.errors}"
        return "failed", ""
    if isinstance(claim, Unknown):
        # the table makes no claim: never an error, never a dtype other than JAX's
        if said.errors:
            return "false error", f"{said.errors}"
        if marker is not None and (
            cell.error_kind is not None or not agrees(ruleset, cell, marker)
        ):
            return "wrong type", f"revealed {said.revealed}; the table: {claim}"
        return "unknown", ""
    if cell.error_kind is None or cell.error_kind == "dtype":
        want = expected_marker(ruleset, cell)
    else:  # JAX failed for another reason: the table's answer stands (FUNCTION_FAILURES)
        want = claim if isinstance(claim, str) else None
    if want is None:
        return ("caught", "") if caught else ("missed", f"no dtype-promotion error ({said})")
    if said.errors:
        return "false error", f"{said.errors}"
    right = (
        marker == want
        if cell.error_kind is not None
        else (marker is not None and agrees(ruleset, cell, marker))
    )
    return ("exact", "") if right else ("wrong type", f"revealed {said.revealed}; want {want}")


def judge(
    rules: str,
    lines: Mapping[int, Iterable[Cell]],
    outcomes: Mapping[int, Outcome],
    exceptions: Iterable[PluginException] = PLUGIN_EXCEPTIONS,
) -> Verdict:
    """Judge every cell by what mypy said on its line."""
    from typing_pkg.api import _env  # pyright: ignore[reportPrivateUsage]

    env = _env(rules)
    entries = [e for e in exceptions if rules in e.rules]
    verdict = Verdict()
    kinds = table()
    for number, cells in lines.items():
        said = outcomes.get(number, Outcome())
        for cell in cells:
            kind, why = _classify(rules, env, cell, said)
            if kind in ("false error", "missed", "wrong type"):
                covering = [e for e in entries if e.covers(rules, cell)]
                if covering:
                    verdict.used.update(covering)
                    verdict.add("excepted")
                    continue
                source = call_source(kinds[cell.op.partition("[")[0]], cell)
                verdict.add(kind, f"line {number}: {source}: {kind}: {why}")
            else:
                verdict.add(kind)
    return verdict


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module: the standard library, NumPy and JAX are checked once."""
    return tmp_path_factory.mktemp("mypy-cache")


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_function_cell_of_the_truth(rules: str, cache_dir: Path, tmp_path: Path) -> None:
    cells = read_truth(ROOT / "truth" / "api" / f"{rules}.csv")
    generated = program(rules, cells)
    source = tmp_path / f"function_conformance_{rules.replace('-', '_')}.py"
    source.write_text(generated.text, encoding="utf-8")
    start = time.perf_counter()
    out, err, status = run_mypy([source], write_config(tmp_path, rules), cache_dir)
    took = time.perf_counter() - start
    assert status in (0, 1) and not err, err + out[-3000:]

    verdict = judge(rules, generated.cells, parse(out))
    unused = [e.reason for e in PLUGIN_EXCEPTIONS if rules in e.rules and e not in verdict.used]
    print(
        f"{rules}: {len(cells)} cells on {generated.lines} lines, mypy {took:.0f}s: "
        f"{verdict.summary()}"
    )
    assert verdict.failing == 0 and not unused, "\n".join(
        [verdict.summary(), *verdict.problems, *(f"unused exception: {u}" for u in unused)]
    )
    assert sum(verdict.counts.values()) == len(cells)
