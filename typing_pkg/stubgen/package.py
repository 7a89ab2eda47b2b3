"""The stub package's files: generate them, write them, check them against the disk."""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from typing_pkg.rules import DEFAULT, RuleSet
from typing_pkg.stubgen.encoding import encode
from typing_pkg.stubgen.operators import Names
from typing_pkg.stubgen.paths import (
    PACKAGE,
    SOURCE,
    in_checkout,
    is_partial,
    stub_header,
    stubs_dir,
)
from typing_pkg.stubgen.runtime_modules import dtypes_stub, promotion_stub, stub_body, typing_stub

# ------------------------------------------------------------------ files


def generate(rules: str | RuleSet = DEFAULT, *, partial: bool = True) -> dict[str, str]:
    """Return the stub package's files (path relative to ``stubs/`` → text).

    ``partial``: whether ``py.typed`` marks the package partial (see :func:`is_partial`).
    """
    enc = encode(rules)
    names = Names()
    header = stub_header(enc.rules)
    dtypes = dtypes_stub(enc, names)
    typing = typing_stub(enc)
    stubs = {
        "__init__.pyi": _init_stub(),
        "dtypes.pyi": dtypes,
        "promotion.pyi": promotion_stub(enc),
        "typing.pyi": typing,
    }
    return {
        f"{PACKAGE}/py.typed": "partial\n" if partial else "",
        **{f"{PACKAGE}/{name}": header + _prune_imports(text) for name, text in stubs.items()},
    }


def _init_stub() -> str:
    """Return ``__init__.pyi``: the package's names, ``result_dtype`` declared in place.

    The run-time ``__init__.py`` imports ``result_dtype`` from ``typing_pkg.api``
    (the JAX function table) for checkers; the stub declares its signature
    instead, so that a program importing ``typing_pkg`` does not make the
    checker analyse the table's modules.
    """
    tree = ast.parse((SOURCE / "__init__.py").read_text(encoding="utf-8"))
    api = ast.parse((SOURCE / "api" / "__init__.py").read_text(encoding="utf-8"))
    declared = [
        node
        for node in stub_body(api.body)
        if isinstance(node, ast.FunctionDef) and node.name == "result_dtype"
    ]
    body: list[ast.stmt] = []
    for node in stub_body(tree.body):
        if isinstance(node, ast.ImportFrom) and node.module == "typing_pkg.api":
            body += declared
        elif not (isinstance(node, ast.FunctionDef) and node.name == "__getattr__"):
            body.append(node)
    imports = ast.parse("from typing import Any\nfrom typing_pkg.dtypes import DType\n").body
    tree.body = [*body[:1], *imports, *body[1:]]  # after the docstring
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _prune_imports(text: str) -> str:
    """Drop the names a stub's top-level imports bind and nothing in the stub uses.

    The stubs carry the run-time modules' imports; those the declarations do
    not need (``typing_pkg.rules`` for a default value, ``typing_pkg.dtypelike``
    for a function body) would make a checker analyse those modules too.  A
    name counts as used when it occurs anywhere but in an import, docstrings
    and ``__all__`` included (a conservative reading).
    """
    tree = ast.parse(text)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            used.update(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", node.value))
    lines = text.splitlines(keepends=True)
    for node in reversed(imports):
        if node.end_lineno != node.lineno:  # pragma: no cover - generated imports are one line
            continue
        node.names = [a for a in node.names if (a.asname or a.name).split(".")[0] in used]
        lines[node.lineno - 1] = ast.unparse(node) + "\n" if node.names else ""
    return "".join(lines)


@dataclass(frozen=True)
class StaleStub:
    """A generated file that differs from what the generator gives now."""

    path: str
    diff: str


def write(root: Path | None = None, rules: str | RuleSet = DEFAULT) -> list[Path]:
    """Write the stub package under ``root`` (default ``stubs/``); return the files written.

    An installed copy has no default: its stub package came with the wheel,
    and its files in ``site-packages`` belong to the installer.
    """
    if root is None:
        if not in_checkout():
            raise ValueError("typing_pkg is installed, not a source checkout: give a directory")
        root = stubs_dir()
    written: list[Path] = []
    files = generate(rules, partial=is_partial(root))
    package = root / PACKAGE
    if package.is_dir():
        for old in package.rglob("*"):
            if old.is_file() and str(old.relative_to(root)) not in files:
                old.unlink()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check(root: Path | None = None, rules: str | RuleSet = DEFAULT) -> list[StaleStub]:
    """Return the files under ``root`` (default ``stubs_dir()``) missing, stale or extra."""
    root = stubs_dir() if root is None else root
    files = generate(rules, partial=is_partial(root))
    stale: list[StaleStub] = []
    for rel, text in files.items():
        path = root / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old != text:  # a missing file (None) is stale, even where the text is empty
            old = old or ""
            diff = "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True), text.splitlines(keepends=True), rel, rel, n=1
                )
            )
            stale.append(StaleStub(rel, diff or f"{rel}: missing\n"))
    package = root / PACKAGE
    if package.is_dir():
        for extra in sorted(package.rglob("*")):
            rel = str(extra.relative_to(root))
            if extra.is_file() and rel not in files and "__pycache__" not in rel:
                stale.append(StaleStub(rel, f"{rel}: not generated, remove it\n"))
    return stale
