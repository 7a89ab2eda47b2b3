"""The function table lists every public name of the JAX API it covers, with JAX's parameters.

Compared with the installed JAX: the public names of ``jax.numpy``,
``jax.numpy.linalg``, ``jax.numpy.fft``, ``jax.random``, ``jax.nn``, the
public members of ``dir(jax.Array)`` and the ``x.at[...]`` updates.  A name
JAX adds fails here until the table lists it (with a rule, as "unknown" or as
"not an array"); a name JAX removes fails until the table drops it.  The
parameter names each entry reads must be JAX's own: from the ``.pyi`` stubs
JAX ships (what a type checker reads) where there is one, else from
``inspect.signature``.
"""

from __future__ import annotations

import ast
import importlib
import inspect
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from typing_pkg.api import namespaces, table
from typing_pkg.api.kinds import KINDS, Kind, NotAnArray, UnknownDtype

PREFIXES = [ns.prefix for ns in namespaces()]

jax: Any = importlib.import_module("jax")  # installed by .ci/run: a missing JAX is an error

NAMESPACES: Mapping[str, str] = {
    "jax.numpy.": "jax.numpy",
    "jax.numpy.linalg.": "jax.numpy.linalg",
    "jax.numpy.fft.": "jax.numpy.fft",
    "jax.random.": "jax.random",
    "jax.nn.": "jax.nn",
    "jax.scipy.special.": "jax.scipy.special",
    "jax.scipy.stats.": "jax.scipy.stats",
    "jax.scipy.linalg.": "jax.scipy.linalg",
    "jax.experimental.pallas.": "jax.experimental.pallas",
    **{
        ns.prefix: ns.prefix.removesuffix(".")
        for ns in namespaces()
        if ns.prefix.startswith("jax.scipy.stats.") and ns.prefix != "jax.scipy.stats."
    },
}


def _public(names: list[str]) -> set[str]:
    return {n for n in names if not n.startswith("_")}


def _listed(prefix: str) -> set[str]:
    return {name[len(prefix) :] for name in table() if name.startswith(prefix)}


@pytest.mark.parametrize("prefix", list(NAMESPACES))
def test_every_public_name_of_the_module_is_listed_and_nothing_else(prefix: str) -> None:
    module = importlib.import_module(NAMESPACES[prefix])
    public = _public(dir(module))
    listed = {n for n in _listed(prefix) if "." not in n}
    assert sorted(public - listed) == [], f"names of {NAMESPACES[prefix]} the table lacks"
    assert sorted(listed - public) == [], "names the table lists that JAX does not have"


def test_every_public_member_of_jax_array_and_every_indexed_update_is_listed() -> None:
    members = _public(dir(jax.Array))
    ref = jax.numpy.zeros(1).at[0]
    updates = {f"at.{m}" for m in _public(dir(ref)) if callable(getattr(ref, m))}
    listed = _listed("jax.Array.")
    assert sorted((members | updates) - listed) == []
    assert sorted(listed - (members | updates)) == []


def test_the_lax_entries_name_functions_of_jax_lax() -> None:
    listed = _listed("jax.lax.")
    assert len(listed) > 100
    assert sorted(n for n in listed if not callable(getattr(jax.lax, n, None))) == []


def test_the_prefixes_are_the_modules_of_the_table() -> None:
    assert set(PREFIXES) == {*NAMESPACES, "jax.Array.", "jax.lax."}


def test_every_kind_is_used_and_every_entry_has_a_known_kind() -> None:
    used = {type(kind) for kind in table().values()}
    assert used <= set(KINDS)
    assert used == set(KINDS)


# ------------------------------------------------------------------ signatures

JAX_ROOT = Path(jax.__file__).parent
STUBS: Mapping[str, Path] = {
    "jax.numpy.": JAX_ROOT / "numpy" / "__init__.pyi",
    "jax.nn.": JAX_ROOT / "nn" / "__init__.pyi",
    "jax.Array.": JAX_ROOT / "_src" / "basearray.pyi",
}


def _stub_params(node: ast.FunctionDef) -> set[str]:
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return set(names)


@cache
def _stub_signatures(path: Path) -> dict[str, set[str]]:
    """Function (and method) name → the union of its overloads' parameter names."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name in ("Array", "_IndexUpdateRef"):
            prefix = "at." if node.name == "_IndexUpdateRef" else ""
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    found.setdefault(prefix + item.name, set()).update(_stub_params(item))
    protocols = {
        node.name: _stub_params(item)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
        for item in node.body
        if isinstance(item, ast.FunctionDef) and item.name == "__call__"
    }
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            found.setdefault(node.name, set()).update(_stub_params(node))
        # ufuncs: "add: BinaryUfunc", whose __call__ names the parameters
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            annotation = node.annotation
            if isinstance(annotation, ast.Name) and annotation.id in protocols:
                found[node.target.id] = protocols[annotation.id]
    return found


def _runtime_params(full: str) -> set[str] | None:
    module, _, name = full.rpartition(".")
    target: Callable[..., Any] = getattr(importlib.import_module(module), name)
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):
        return None
    return set(signature.parameters)


def _params(full: str) -> set[str] | None:
    """The stub's parameter names and the runtime signature's (they differ in places)."""
    names: set[str] = set()
    for prefix, path in STUBS.items():
        if full.startswith(prefix) and "." not in full[len(prefix) :].replace("at.", ""):
            names |= _stub_signatures(path).get(full[len(prefix) :], set())
    if not full.startswith("jax.Array."):
        names |= _runtime_params(full) or set()
    return names or None


def _read(kind: Kind) -> set[str]:
    return {p.name for p in kind.params if not p.constant} | set(kind.options) | kind.checks()


def test_every_entry_reads_parameters_jax_names() -> None:
    wrong: list[str] = []
    unchecked: list[str] = []
    for full, kind in table().items():
        if not kind.modelled:
            continue
        params = _params(full)
        if params is None:
            unchecked.append(full)
            continue
        missing = _read(kind) - params - {"self"}
        if missing:
            wrong.append(f"{full}: {sorted(missing)} not in {sorted(params)}")
    assert wrong == []
    # only the properties (T, real, …) and the update helpers have no signature to read
    assert all(n.startswith(("jax.Array.", "jax.random.random_gamma_p")) for n in unchecked)


# ------------------------------------------------------------------ the docs' counts

DOCS = Path(__file__).resolve().parents[2] / "docs" / "api-functions.rst"


GROUPED = ("jax.scipy.stats.",)
"""Modules whose submodules' namespaces count in the module's row (its distributions)."""


def _documented_row(prefix: str) -> str:
    """The docs' row a namespace counts in: its own, or the module grouping it."""
    return next((g for g in GROUPED if prefix.startswith(g)), prefix)


def _counts(row: str) -> list[int]:
    prefixes = [p for p in PREFIXES if _documented_row(p) == row]
    names = [
        n
        for n in table()
        if any(n.startswith(p) for p in prefixes)
        and not any(n.startswith(p) for p in PREFIXES if p not in prefixes and len(p) > len(row))
    ]
    unknown = sum(isinstance(table()[n], UnknownDtype) for n in names)
    not_array = sum(isinstance(table()[n], NotAnArray) for n in names)
    return [len(names), len(names) - unknown - not_array, unknown, not_array]


def test_the_docs_coverage_table_gives_the_tables_counts() -> None:
    rows: dict[str, list[int]] = {}
    lines = DOCS.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        found = line.strip().removeprefix("* - ``").removesuffix("``")
        if line.strip().startswith("* - ``jax"):
            rows[found + "."] = [int(lines[i + k].strip().removeprefix("- ")) for k in range(1, 5)]
    documented = {_documented_row(prefix) for prefix in PREFIXES}
    assert rows == {row: _counts(row) for row in documented}
