"""Every rule set against the library itself, running now.

Each rule set's library is observed afresh in its own interpreter (JAX's
configuration must not leak between modes), through ``jax.eval_shape`` for
JAX (tracing, no compilation).  The rules must match every cell, and the
recorded truth file must still be what the installed library does: a
library upgrade that changes behaviour fails here until the truth is
regenerated with ``python tools/make_truth.py``.

Nothing here is skipped: a library that is missing is an error (``.ci/run``
installs them all).  TensorFlow is not installed: its truth is the design
note's table, transcribed once by ``tools/transcribe_seeds.py`` and checked by
``test_recorded_truth.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tools.conformance.compare import compare
from tools.conformance.observe import RULE_SETS, observe_table_in_subprocess
from tools.conformance.truthfile import read_truth_file

TRUTH = Path(__file__).resolve().parents[2] / "truth"


@pytest.mark.slow
@pytest.mark.parametrize("rules", RULE_SETS)
def test_rules_match_the_live_library_and_the_truth_file_is_fresh(rules: str) -> None:
    meta, cells = observe_table_in_subprocess(rules)
    report = compare(rules, cells)
    print(report.summary())
    assert report.ok, report.details()

    recorded_meta, recorded = read_truth_file(TRUTH / f"{rules}.csv")
    assert meta == recorded_meta, (
        f"truth/{rules}.csv's header is stale (regenerate it with "
        f"'python tools/make_truth.py --rules {rules}')"
    )
    assert len(cells) == len(recorded)
    stale = [(new, old) for new, old in zip(cells, recorded, strict=True) if new != old]
    assert not stale, (
        f"truth/{rules}.csv is stale in {len(stale)} cells (regenerate it with "
        f"'python tools/make_truth.py --rules {rules}'); first: {stale[0]}"
    )
