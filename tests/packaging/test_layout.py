"""The production modules stay small enough to read: none over ~800 lines without a reason.

A module that grows past :data:`LIMIT` lines is split by concern (as
``typing_pkg/stubgen/`` was); one that cannot be, yet, is listed in
:data:`OVER` with the reason.  An entry that no longer applies (the module was
split, or shrank) fails too, so that the list stays true.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
PRODUCTION: Final = ("typing_pkg", "mypy_plugin")
LIMIT: Final = 800
OVER: Final = {
    "mypy_plugin/jax_api.py": (
        "the hooks of the JAX function table, reading arguments as the kinds ask: to follow the "
        "kinds' typed interface (issue 20, item 1)"
    ),
    "mypy_plugin/hooks.py": (
        "the operator, method and attribute hooks of Array: to split when mypy's private "
        "accesses move to one seam (issue 20, item 3)"
    ),
    "mypy_plugin/__init__.py": (
        "the Plugin class, mypy's one entry point, and its lookups: to shrink with the seam "
        "(issue 20, item 3)"
    ),
    "mypy_plugin/transforms.py": (
        "jit, vmap, grad, scan, partial: one protocol of transformed functions, 807 lines"
    ),
}
"""Modules over the limit, and why."""


def _sizes() -> dict[str, int]:
    found: dict[str, int] = {}
    for package in PRODUCTION:
        for path in sorted((ROOT / package).rglob("*.py")):
            with path.open(encoding="utf-8") as file:
                found[path.relative_to(ROOT).as_posix()] = sum(1 for _ in file)
    return found


def test_no_module_is_over_the_limit_without_a_reason() -> None:
    sizes = _sizes()
    over = {path: n for path, n in sizes.items() if n > LIMIT}
    unexplained = sorted(set(over) - set(OVER))
    assert not unexplained, f"over {LIMIT} lines, split by concern: " + ", ".join(
        f"{path} ({over[path]})" for path in unexplained
    )
    stale = sorted(set(OVER) - set(over))
    assert not stale, f"no longer over {LIMIT} lines, drop from OVER: {stale}"


def test_mypy_reports_are_read_in_one_place() -> None:
    """``tools/conformance/checker_output.py`` reads mypy's report (``read_mypy``); a second
    pattern for its ``Revealed type is`` notes would drift from it."""
    allowed = {ROOT / "tools" / "conformance" / "checker_output.py", Path(__file__).resolve()}
    elsewhere = [
        path.relative_to(ROOT).as_posix()
        for folder in ("typing_pkg", "mypy_plugin", "tools", "benchmarks", "tests")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in allowed
        and any(
            "Revealed type is" in line and ("re." in line or "compile" in line)
            for line in path.read_text(encoding="utf-8").splitlines()
        )
    ]
    assert not elsewhere, f"use tools.conformance.checker_output.read_mypy in {elsewhere}"
