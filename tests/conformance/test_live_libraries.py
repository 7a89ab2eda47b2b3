"""Every rule set against the library itself, running now.

Each rule set's library is observed afresh in its own interpreter (JAX's
configuration must not leak between modes), through ``jax.eval_shape`` for
JAX (tracing, no compilation).  The rules must match every cell, and the
recorded truth file must still be what the installed library does: a
library upgrade that changes behaviour fails here until the truth is
regenerated with ``python tools/make_truth.py``.

JAX's three modes are observed on a sample (:data:`SAMPLED`: every eighth
cell, by a hash of the cell; 37,769 cells each take 110 s in full): the truth
file's header records the library's versions, so an upgrade fails on the
header whatever the sample, and ``test_recorded_truth.py`` compares the rules
with every recorded cell.  ``python tools/make_truth.py`` observes every cell.

Nothing here is skipped: a library that is missing is an error (``.ci/run``
installs them all).  TensorFlow is not installed: its truth is the design
note's table, transcribed once by ``tools/transcribe_seeds.py`` and checked by
``test_recorded_truth.py``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from tools.conformance.compare import compare
from tools.conformance.observe import RULE_SETS, in_sample, observe_table_in_subprocess
from tools.conformance.truthfile import read_truth_file

TRUTH = Path(__file__).resolve().parents[2] / "truth"
SAMPLED: Final = {"jax": 8, "jax-x64": 8, "jax-strict": 8}
"""Rule sets observed on every n-th cell only (``in_sample``: the same cells every run)."""


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS)
def test_rules_match_the_live_library_and_the_truth_file_is_fresh(rules: str) -> None:
    every = SAMPLED.get(rules, 1)
    meta, cells = observe_table_in_subprocess(rules, every)
    if every == 1:  # a sample leaves some known failures unused: the recorded truth's test
        report = compare(rules, cells)
        print(report.summary())
        assert report.ok, report.details()

    recorded_meta, recorded = read_truth_file(TRUTH / f"{rules}.csv")
    recorded = [c for c in recorded if in_sample(c.op, _operands(c.left, c.right), every)]
    assert meta == recorded_meta, (
        f"truth/{rules}.csv's header is stale (regenerate it with "
        f"'python tools/make_truth.py --rules {rules}')"
    )
    assert 0 < len(cells) == len(recorded)
    stale = [(new, old) for new, old in zip(cells, recorded, strict=True) if new != old]
    assert not stale, (
        f"truth/{rules}.csv is stale in {len(stale)} cells (regenerate it with "
        f"'python tools/make_truth.py --rules {rules}'); first: {stale[0]}"
    )


def _operands(left: str, right: str) -> tuple[str, ...]:
    return (left, right) if right else (left,)
