"""The docs' structure: a page per rule set, no untested code, a README that starts right."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from typing_pkg.rules import get_rules, names

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"
BUILT_IN = [name for name in names() if ":" not in name and get_rules(name).name == name]


def _pages() -> list[Path]:
    return [p for p in sorted(DOCS.rglob("*.rst")) if "_build" not in p.parts]


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_rule_set_has_a_generated_page(name: str) -> None:
    page = DOCS / "rules" / f"{name}.rst"
    assert page.is_file(), f"docs/rules/{name}.rst is missing"
    assert f".. ruleset:: {name}\n" in page.read_text(encoding="utf-8")
    toctree = (DOCS / "rules" / "index.rst").read_text(encoding="utf-8")
    assert re.search(rf"^   {re.escape(name)}$", toctree, re.MULTILINE)


def test_no_table_is_typed_by_hand() -> None:
    """Promotion tables come from the directives, never from a hand-written grid."""
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        assert "<table" not in text, page
        assert ".. image::" not in text and ".. figure::" not in text, page


def test_python_code_is_tested() -> None:
    """Python in the docs is a doctest (run) or included from examples/ (type-checked).

    Other included files (a measurement's printed figures) exist.
    """
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"^\s*\.\. code-block:: (python|py|pycon)\s*$", text, re.M), page
        for target in re.findall(r"^\s*\.\. literalinclude:: (\S+)", text, re.MULTILINE):
            included = (page.parent / target).resolve()
            if included.suffix in {".py", ".pyi"}:
                assert included.is_relative_to(ROOT / "examples"), (page, target)
            assert included.is_file(), (page, target)


def test_readme_opens_with_the_two_setup_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first = re.search(r"```(\w*)\n(.*?)```", text, re.DOTALL)
    assert first is not None
    assert text[: first.start()].strip().startswith("# ")  # only the title comes before
    commands = first[2].strip().splitlines()
    assert len(commands) == 2, commands
    assert commands[0].startswith("python3 -m venv .venv && .venv/bin/pip install")
    assert commands[1].split("#")[0].strip() == "bash .ci/run"


def test_readme_examples_run() -> None:
    results = doctest.testfile(
        str(README), module_relative=False, optionflags=doctest.ELLIPSIS, verbose=False
    )
    assert results.failed == 0
    assert results.attempted >= 3


def test_readme_code_comes_from_the_examples() -> None:
    """The README's annotated code is a verbatim part of examples/, which mypy checks."""
    text = README.read_text(encoding="utf-8")
    sources = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "examples").rglob("*.py"))
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.DOTALL) if ">>>" not in b]
    assert blocks
    for block in blocks:
        assert block in sources, block


def test_readme_configuration_is_the_examples() -> None:
    """The mypy configuration the README shows is the one examples/mypy.ini uses."""
    text = README.read_text(encoding="utf-8")
    config = (ROOT / "examples" / "mypy.ini").read_text(encoding="utf-8").splitlines()
    for block in re.findall(r"```ini\n(.*?)```", text, re.DOTALL):
        for line in block.splitlines():
            assert not line or line in config, line
