"""Public JAX code in CI: the plugin neither crashes nor adds an error that is not listed.

``tests/corpus/public/src`` holds four public libraries as their PyPI wheels
ship them (``SOURCES.toml``: rlax, jraph, lineax, mctx; 18k lines).  mypy runs
over them as the primer does (``tools.primer.checkers``: ``check_untyped_defs``,
``ignore_missing_imports``, ``follow_imports = silent``), once with the plugin
and once without, and compares the errors by place (file, line, code):

* no INTERNAL ERROR, no failed run;
* every error the plugin adds is listed in ``public/known_added.toml``, each
  with what it is: a real dtype bug (with the run-time evidence) or a known
  false error of the plugin (a defect still to fix: the list only shrinks).
"""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from pathlib import Path
from typing import Final

import pytest

from tools.primer.checkers import Diagnostic, mypy_config, run_mypy

PUBLIC: Final = Path(__file__).resolve().parent / "public"
SOURCES: Final = PUBLIC / "src"
PACKAGES: Final = ("rlax", "jraph", "lineax", "mctx")

Place = tuple[str, int, str]


def known_added() -> Counter[Place]:
    """Return the listed added errors, by place."""
    data = tomllib.loads((PUBLIC / "known_added.toml").read_text(encoding="utf-8"))
    return Counter((e["file"], int(e["line"]), e["code"]) for e in data.get("error", []))


def places(errors: list[Diagnostic]) -> Counter[Place]:
    return Counter((e.file, e.line, e.code) for e in errors)


def test_the_slice_is_what_sources_lists() -> None:
    listed = tomllib.loads((PUBLIC / "SOURCES.toml").read_text(encoding="utf-8"))["package"]
    assert tuple(p["name"] for p in listed) == PACKAGES
    for package in listed:
        assert (SOURCES / package["name"] / "__init__.py").is_file()
        assert (PUBLIC / package["licence_file"]).is_file()
        assert len(package["sha256"]) == 64


def test_every_listed_error_says_what_it_is() -> None:
    data = tomllib.loads((PUBLIC / "known_added.toml").read_text(encoding="utf-8"))
    for entry in data.get("error", []):
        assert entry["kind"] in ("dtype bug", "false error"), entry
        assert entry["why"].strip(), entry
        assert (SOURCES / entry["file"]).is_file(), entry


@pytest.mark.slow
def test_the_plugin_adds_no_unlisted_error(tmp_path: Path) -> None:
    runs = {}
    for plugin in (True, False):
        config = tmp_path / f"mypy-{plugin}.ini"
        config.write_text(mypy_config(plugin, "jax"), encoding="utf-8")
        run = run_mypy(sys.executable, SOURCES, [list(PACKAGES)], config, tmp_path / f"c{plugin}")
        assert run.internal is None, run.internal
        assert run.failure is None, run.failure
        runs[plugin] = run
    added = places(runs[True].errors) - places(runs[False].errors)
    unlisted = added - known_added()
    shown = [e.text for e in runs[True].errors if (e.file, e.line, e.code) in unlisted]
    assert not unlisted, "\n".join(shown)
    fixed = known_added() - added
    print(f"{sum(added.values())} added errors, all listed; {sum(fixed.values())} listed, now gone")
