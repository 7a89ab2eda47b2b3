"""The plugin against the function truth: every call of every JAX function, per rule set.

One generated program per rule set (:mod:`tools.conformance.function_program`:
one ``reveal_type`` per cell of ``truth/api/<rules>.csv``, the call as real
code writes it), checked in ONE mypy run under a configuration selecting
that rule set.  Every cell is judged by
``tools.conformance.function_compare.judge`` (the verdicts shared with the
pyright side, ``tests/stubs/test_jax_stubs_function_conformance.py``): the
refusal is a ``dtype-promotion`` error, and every cell must be ``exact``,
``caught``, ``unknown``, ``failed`` or ``excepted``, a cell of
:data:`PLUGIN_EXCEPTIONS` (what a mypy plugin cannot express), with the
reason.  Anything else fails the test: a dtype not expressed (``Array[Any]``),
a false error, a missed error, a wrong dtype.
``pytest -rP`` shows the counts and the time of each mypy run.

``jax-x64`` and ``jax-strict`` are checked on every fourth cell of each
function, its first included (:data:`SAMPLED`): their entries and hooks are
``jax``'s, checked in full; only the results differ.  In full (measured with
``SAMPLED`` emptied, mypy 2.4.1, JAX 0.10.2) every cell of the three passes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Final

import pytest
from plugin_harness import ROOT, Outcome, parse, run_mypy, write_config

from tools.conformance.function_compare import (
    VERDICTS,
    CheckerException,
    Said,
    Verdict,
    judge,
    operands,
)
from tools.conformance.function_program import program
from tools.conformance.function_stubs import sample
from tools.conformance.truthfile import Cell, read_truth
from typing_pkg.api import RULES_OF_CONFIG

RULE_SETS: Final = tuple(RULES_OF_CONFIG.values())
SAMPLED: Final = {"jax-x64": 4, "jax-strict": 4}
"""Rule sets checked on every n-th cell of each function only (``function_stubs.sample``)."""
_ARRAY: Final = re.compile(
    r"typing_pkg\.typing\.(?:Inferred)?Array"
    r"\[(?:typing_pkg\.dtypes\.(?P<marker>\w+)|Any)(?:, Any)?\]"  # InferredArray[X, Any]
)
FAILING: Final = VERDICTS[VERDICTS.index("not expressed") :]
"""Every cell the plugin does not type as JAX does fails, unless an exception names it."""


def _outputs_differ(cell: Cell) -> bool:
    """An output ``[i]`` of a call whose arrays have different dtypes."""
    return "[" in cell.op and len(set(operands(cell))) > 1


def _array_not_array_like(function: str, parameter: str) -> CheckerException:
    """A parameter JAX annotates ``Array``, not ``ArrayLike``: mypy itself refuses a Python
    scalar there (``arg-type``) that JAX accepts."""
    short = function.rsplit(".", 1)[-1]
    return CheckerException(
        reason=(
            f"JAX annotates {short}'s {parameter} as Array, not ArrayLike: mypy itself refuses "
            "a Python scalar (arg-type) that JAX accepts"
        ),
        functions=frozenset({function}),
        applies=lambda cell: f"{parameter}=py_" in cell.left,
    )


PLUGIN_EXCEPTIONS: Final[tuple[CheckerException, ...]] = (
    CheckerException(
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
    _array_not_array_like("jax.numpy.outer", "b"),
    CheckerException(
        reason=(
            "JAX annotates index_take's idxs as Array, but it takes a tuple of index "
            "arrays (as the truth calls it): mypy itself refuses the tuple (arg-type)"
        ),
        functions=frozenset({"jax.lax.index_take"}),
    ),
    CheckerException(
        reason=(
            "JAX declares stop_gradient(x: T) -> T, and of a Python scalar it returns a "
            "Python float (TypedFloat) when run eagerly, a weakly typed array under a trace "
            "(as recorded): the plugin keeps JAX's declaration"
        ),
        functions=frozenset({"jax.lax.stop_gradient"}),
        applies=lambda cell: "=py_" in cell.left,
    ),
    _array_not_array_like("jax.scipy.special.spence", "x"),
)
"""The cells the plugin is not expected to get right, each entry with its reason."""


def _marker(revealed: str | None) -> str | None:
    """The dtype of the arrays of a revealed type, if it has arrays of one known dtype.

    JAX's declarations say ``Array``, ``list[Array]`` (``meshgrid``) or
    ``Array | tuple[Array, Array, Array]`` (``intersect1d``, whose optional
    outputs a static signature cannot tell apart): the plugin gives every
    array of the declaration the dtype.
    """
    found = {m["marker"] for m in _ARRAY.finditer(revealed or "")}
    return found.pop() if len(found) == 1 else None


def said(outcomes: Mapping[int, Outcome]) -> dict[int, Said]:
    """What mypy said per line, for the judge: the refusal is a ``dtype-promotion`` error."""
    return {
        line: Said(
            o.revealed,
            _marker(o.revealed),
            tuple(message for message, _ in o.errors),
            any(code == "dtype-promotion" for _, code in o.errors),
        )
        for line, o in outcomes.items()
    }


def judge_mypy(rules: str, lines: Mapping[int, list[Cell]], out: str, text: str) -> Verdict:
    """Judge every cell by mypy's output ``out`` on the program ``text``."""
    return judge(
        rules,
        lines,
        said(parse(out)),
        failing=FAILING,
        exceptions=PLUGIN_EXCEPTIONS,
        source=text.splitlines(),
    )


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module (the standard library, NumPy and JAX are checked once), from
    the plugin's seed (JAX's modules)."""
    return tmp_path_factory.mktemp("mypy") / "cache"


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_function_cell_of_the_truth(rules: str, cache_dir: Path, tmp_path: Path) -> None:
    cells = read_truth(ROOT / "truth" / "api" / f"{rules}.csv")
    if rules in SAMPLED:
        cells = sample(cells, SAMPLED[rules])
    generated = program(rules, cells)
    source = tmp_path / f"function_conformance_{rules.replace('-', '_')}.py"
    source.write_text(generated.text, encoding="utf-8")
    start = time.perf_counter()
    out, err, status = run_mypy([source], write_config(tmp_path, rules), cache_dir, seeded=True)
    took = time.perf_counter() - start
    assert status in (0, 1) and not err, err + out[-3000:]

    verdict = judge_mypy(rules, generated.cells, out, generated.text)
    unused = [  # a sample may leave an exception's cells out
        e.reason
        for e in PLUGIN_EXCEPTIONS
        if rules in e.rules and e not in verdict.used and rules not in SAMPLED
    ]
    print(
        f"{rules}: {len(cells)} cells on {generated.lines} lines, mypy {took:.0f}s: "
        f"{verdict.summary()}"
    )
    assert verdict.failures == 0 and not unused, "\n".join(
        [verdict.summary(), *verdict.problems, *(f"unused exception: {u}" for u in unused)]
    )
    assert verdict.total == len(cells)
