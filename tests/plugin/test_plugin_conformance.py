"""The plugin against the recorded truth: every operator on every operand pair, per rule set.

One generated program per rule set (``plugin_harness.program``: one
``reveal_type`` per cell of ``truth/<rules>.csv``), checked in ONE mypy run
under a configuration selecting that rule set.  Every applicable cell must be
exact (the library's dtype, no error) or caught (a ``dtype-promotion`` error
where the library refuses the dtypes): no false error, no missed error, no
wrong dtype.  ``pytest -rP`` shows the counts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from plugin_harness import ROOT, applicable, judge, parse, program, run_mypy, write_config

from tools.conformance.truthfile import read_truth
from typing_pkg.rules import BUILTIN, get_rules

RULE_SETS = BUILTIN


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One cache for the module (the standard library and NumPy are checked once), from the
    plugin's seed (JAX's modules)."""
    return tmp_path_factory.mktemp("mypy") / "cache"


@pytest.mark.parametrize("rules", RULE_SETS)
def test_every_cell_of_the_truth(rules: str, cache_dir: Path, tmp_path: Path) -> None:
    cells = read_truth(ROOT / "truth" / f"{rules}.csv")
    checked = [c for c in cells if applicable(c)]
    text, first = program(rules, checked)
    source = tmp_path / f"conformance_{rules.replace('-', '_')}.py"
    source.write_text(text, encoding="utf-8")
    out, err, status = run_mypy([source], write_config(tmp_path, rules), cache_dir, seeded=True)
    assert status in (0, 1) and not err, err + out[-3000:]

    verdict = judge(get_rules(rules), checked, first, parse(out))
    print(
        f"{rules}: {len(cells)} cells, {len(cells) - len(checked)} not applicable "
        f"(two Python scalars): {verdict.summary()}"
    )
    assert verdict.counts["exact"] + verdict.counts["caught"] == len(checked), "\n".join(
        [verdict.summary(), *verdict.problems]
    )
