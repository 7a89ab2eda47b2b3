"""basedpyright through the JAX stubs of each rule set, against the function truth, cell by cell.

For each rule set of the function table (``jax``, ``jax-x64``, ``jax-strict``)
the stubs (``python -m typing_pkg stubs --jax --rules R``) are written into an
environment's ``site-packages``, as a user of that rule set writes them, and
basedpyright checks the program of the truth's calls
(:mod:`tools.conformance.function_program`, ``stubs=True``), judged by the
same verdicts as the plugin's (:func:`tools.conformance.function_compare.judge`,
through :mod:`tools.conformance.function_stubs`).

The test takes every :data:`EVERY`-th cell of each function (basedpyright
takes minutes over every cell; the stubs of ``jax-x64`` and ``jax-strict`` are
written by the same code as ``jax``'s, and sampled more sparsely);
``python -m tools.conformance.function_stubs --rules R`` runs all of them.  It
asserts that no cell is a false error, a missed error or a wrong dtype (but
the named ``STUB_EXCEPTIONS``, each of which must be used), that at least
:data:`FLOORS` cells are exact, and that every cell the stubs leave at
``Array[Any]`` has a named reason (``REASONS``), none of them ``other``.
``pytest -rP`` shows the counts.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Final

import pytest

from tools.conformance.function_stubs import (
    REASONS,
    STUB_EXCEPTIONS,
    check,
    prepare,
    sample,
    truth,
)
from tools.conformance.truthfile import read_truth
from typing_pkg.api import RULES_OF_CONFIG

RULE_SETS: Final = tuple(RULES_OF_CONFIG.values())
EVERY: Final = {"jax": 30, "jax-x64": 120, "jax-strict": 120}
"""The sample: every 30th (120th) cell of each function, its first one included (each
function's entry is checked; the table itself is checked cell by cell through mypy)."""
FLOORS: Final = {"jax": 1732, "jax-x64": 731, "jax-strict": 578}
"""The exact cells of the sample, as measured (basedpyright 1.40.2, JAX 0.10.2)."""


@pytest.mark.parametrize("rules", RULE_SETS)
def test_function_truth_through_the_stubs(rules: str, tmp_path: Path) -> None:
    cells = sample(read_truth(truth(rules)), EVERY[rules])
    run = prepare(tmp_path, rules, cells)
    start = time.perf_counter()
    verdict = check(rules, run)
    took = time.perf_counter() - start
    reasons = ", ".join(f"{why} {n}" for why, n in verdict.unexpressed.most_common())
    print(f"{rules}: {len(cells)} cells, basedpyright {took:.0f}s: {verdict.summary()}")
    print(f"  not expressed: {reasons}")
    unused = [e.reason for e in STUB_EXCEPTIONS if rules in e.rules and e not in verdict.used]
    assert verdict.failures == 0 and not unused, "\n".join(
        [verdict.summary(), *verdict.problems, *(f"unused exception: {u}" for u in unused)]
    )
    assert verdict.total == len(cells)
    assert verdict.counts["exact"] >= FLOORS[rules], verdict.summary()
    assert set(verdict.unexpressed) <= set(REASONS)
    assert verdict.unexpressed["other"] == 0, reasons
