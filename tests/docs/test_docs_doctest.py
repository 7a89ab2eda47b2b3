"""The docs' Python examples run: Sphinx's doctest builder over every page.

Every ``>>>`` block in ``docs/`` is executed by ``sphinx -b doctest``, and
every ``>>>`` example in the docstrings the API reference pulls in
(``.. automodule::``) by ``doctest``; a failing or rotted example fails here.
"""

from __future__ import annotations

import doctest
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
MIN_EXAMPLES = 35
"""Fewer examples than this means pages stopped being tested, not that they pass."""


@pytest.mark.requires("sphinx")  # the docs extra: pip install -e '.[docs]'
def test_every_docs_example_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "doctest", "-q", "-E",
         "-d", str(tmp_path / "doctrees"), str(DOCS), str(tmp_path / "doctest")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    report = (tmp_path / "doctest" / "output.txt").read_text(encoding="utf-8")
    assert done.returncode == 0, done.stdout + done.stderr + report
    totals = re.search(r"(\d+) tests?\s*\n\s*(\d+) failures? in tests", report)
    assert totals is not None, report
    tests, failures = int(totals[1]), int(totals[2])
    assert failures == 0, report
    assert tests >= MIN_EXAMPLES, f"only {tests} examples ran:\n{report}"


def _api_modules() -> list[str]:
    """Return the modules whose docstrings the API reference includes."""
    text = (DOCS / "api.rst").read_text(encoding="utf-8")
    return re.findall(r"^\.\. automodule:: (\S+)", text, flags=re.MULTILINE)


def test_api_reference_includes_modules() -> None:
    assert "typing_pkg.promotion" in _api_modules()


@pytest.mark.parametrize("name", _api_modules())
def test_api_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(recurse=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, name):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0, f"{results.failed} failing examples in {name}'s docstrings"
