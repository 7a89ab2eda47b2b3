"""``Array`` declares every member of the installed JAX's ``jax.Array``, as JAX's stub has it.

``jax.Array`` in a type is ``Array[Any]``, and ``Array`` does not derive from
JAX's class (``typing_pkg/typing.py``, "JAX's members"): each public member
of ``jax/_src/basearray.pyi``'s ``Array`` (and each special method it
declares) must be declared by ``Array``, in ``typing.py`` and in the shipped
stub, a property where JAX's is one; ``x.at[i]`` has every update JAX's has,
the API table's ``Array.at.*``.  The truth is JAX's own stub, read from the
installed JAX.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from typing_pkg.api.jax_array import ARRAY

ROOT = Path(__file__).resolve().parents[2]
OURS = (ROOT / "typing_pkg" / "typing.py", ROOT / "stubs" / "typing_pkg-stubs" / "typing.pyi")
UPDATES = sorted(name.removeprefix("at.") for name in ARRAY if name.startswith("at."))


def _class(path: Path, name: str) -> ast.ClassDef:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name)


def _members(cls: ast.ClassDef) -> dict[str, bool]:
    """The class's declared names → whether each is a property (in ``if`` blocks too)."""
    found: dict[str, bool] = {}
    for node in ast.walk(cls):
        if isinstance(node, ast.FunctionDef):
            is_property = any(ast.unparse(d) == "property" for d in node.decorator_list)
            found[node.name] = found.get(node.name, False) or is_property
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found[node.target.id] = True
    return found


def _parameters(path: Path, name: str) -> dict[str, list[str]]:
    """The class's methods → their parameter names (the last declaration of each)."""
    found: dict[str, list[str]] = {}
    for node in ast.walk(_class(path, name)):
        if isinstance(node, ast.FunctionDef):
            a = node.args
            found[node.name] = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    return found


def _jax_stub(module: str) -> Path:
    """JAX's own stub of ``module`` (``.[test,jax]`` installs JAX: a missing JAX is an error)."""
    jax = importlib.import_module("jax")
    assert jax.__file__ is not None
    return Path(jax.__file__).parent / (module + ".pyi")


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_every_member_of_jax_array_is_declared(path: Path) -> None:
    theirs = _members(_class(_jax_stub("_src/basearray"), "Array"))
    ours = _members(_class(path, "Array"))
    public = {n: p for n, p in theirs.items() if not n.startswith("_") or n.endswith("__")}
    public.pop("__init__")
    assert len(public) > 100  # JAX's stub read, not an empty class
    missing = sorted(set(public) - set(ours))
    assert missing == [], missing
    not_properties = sorted(n for n, p in public.items() if p and not ours[n])
    assert not_properties == [], not_properties
    # the plugin reads a method's arguments by JAX's parameter names (x.searchsorted(v=...))
    jax_methods, our_methods = (
        _parameters(_jax_stub("_src/basearray"), "Array"),
        _parameters(path, "Array"),
    )
    differ = sorted(n for n, ps in jax_methods.items() if n in public and our_methods[n] != ps)
    assert [n for n in differ if not n.startswith("__")] == [], differ


@pytest.mark.parametrize("path", OURS, ids=lambda p: p.name)
def test_every_indexed_update_is_declared(path: Path) -> None:
    theirs = _members(_class(_jax_stub("_src/basearray"), "_IndexUpdateRef"))
    assert sorted(theirs) == UPDATES
    assert sorted(_members(_class(path, "_IndexUpdateRef"))) == UPDATES
    jax_ref = _parameters(_jax_stub("_src/basearray"), "_IndexUpdateRef")
    assert _parameters(path, "_IndexUpdateRef") == jax_ref
