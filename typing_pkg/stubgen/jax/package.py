"""The JAX stub package: generate, write and check it."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Final

from typing_pkg import stubgen
from typing_pkg.rules import DEFAULT, RuleSet, get_rules
from typing_pkg.stubgen.jax.array_class import basearray_module, inferred
from typing_pkg.stubgen.jax.installed import TESTED_JAX, jax_dir, jax_version
from typing_pkg.stubgen.jax.modules import REEXPORTS, functions_module, reexports
from typing_pkg.stubgen.jax.oracle import Oracle
from typing_pkg.stubgen.jax.source_edit import stubs_header
from typing_pkg.stubgen.jax.transforms import jax_init

PACKAGE: Final = "jax-stubs"
"""The name of the partial stub package written beside ``typing_pkg-stubs``."""


@cache
def _generate(rules_name: str, root: str) -> tuple[dict[str, str], dict[str, str]]:
    """The files, and how each function of the table is typed."""
    from typing_pkg.api import table

    rules = get_rules(rules_name)
    base = Path(root)
    oracle = Oracle(rules)
    header = stubs_header(rules, jax_version(base))

    def read(rel: str) -> str:
        path = base / rel
        if not path.is_file():
            raise ValueError(
                f"JAX {jax_version(base)} has no {rel}: the JAX stubs are made from JAX's own "
                f"stubs, as JAX {TESTED_JAX} lays them out"
            )
        return path.read_text(encoding="utf-8")

    files = {
        "_src/basearray.pyi": basearray_module(read("_src/basearray.pyi"), rules, oracle),
        "_src/inferred.pyi": inferred(read("_src/basearray.pyi"), rules),
        "numpy/__init__.pyi": functions_module(
            read("numpy/__init__.pyi"), "jax.numpy.", oracle, scalars=True
        ),
        "nn/__init__.pyi": functions_module(read("nn/__init__.pyi"), "jax.nn.", oracle),
        **{
            rel.removesuffix(".py") + ".pyi": reexports(base, rel, prefix, oracle)
            for rel, prefix in REEXPORTS
        },
        "__init__.pyi": jax_init(base),
    }
    out = {rel: header + text for rel, text in files.items()}
    out["py.typed"] = "partial\n"
    typed = {name: oracle.typed.get(name, "not declared") for name in table()}
    return out, typed


def _rules_name(rules: str | RuleSet) -> str:
    name = rules if isinstance(rules, str) else rules.name
    if not name.startswith("jax"):
        raise ValueError(f"the JAX stubs need a JAX rule set (jax, jax-x64, …), not {name!r}")
    return name


def generate(rules: str | RuleSet = DEFAULT, root: Path | None = None) -> dict[str, str]:
    """Return the files of ``jax-stubs`` (path relative to the package → text)."""
    return dict(_generate(_rules_name(rules), str(root or jax_dir()))[0])


def coverage(rules: str | RuleSet = DEFAULT, root: Path | None = None) -> dict[str, str]:
    """Return how the stubs type each function of the table: a key of :data:`COVERAGE`."""
    return dict(_generate(_rules_name(rules), str(root or jax_dir()))[1])


def write(out: Path, rules: str | RuleSet = DEFAULT) -> list[Path]:
    """Write ``out/jax-stubs`` and ``out/typing_pkg-stubs`` for ``rules``; return the paths."""
    written = stubgen.write(out, rules)
    package = out / PACKAGE
    for rel, text in generate(rules).items():
        path = package / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check(out: Path, rules: str | RuleSet = DEFAULT) -> list[stubgen.StaleStub]:
    """Return the files under ``out`` (``typing_pkg-stubs`` and ``jax-stubs``) missing, stale
    or extra, against a fresh generation for ``rules`` and the installed JAX."""
    import difflib

    stale = stubgen.check(out, rules)
    files = {f"{PACKAGE}/{rel}": text for rel, text in generate(rules).items()}
    for rel, text in files.items():
        path = out / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        if old != text:
            diff = "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True), text.splitlines(keepends=True), rel, rel, n=1
                )
            )
            stale.append(stubgen.StaleStub(rel, diff or f"{rel}: missing\n"))
    package = out / PACKAGE
    if package.is_dir():
        for extra in sorted(package.rglob("*")):
            rel = extra.relative_to(out).as_posix()
            if extra.is_file() and rel not in files and "__pycache__" not in rel:
                stale.append(stubgen.StaleStub(rel, f"{rel}: not generated, remove it\n"))
    return stale
