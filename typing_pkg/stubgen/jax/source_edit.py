"""Editing JAX's own stub sources: names, arguments, signatures, decorators, replacements."""

from __future__ import annotations

import ast
import builtins
import copy
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from typing_pkg import stubgen
from typing_pkg.rules import RuleSet

# ------------------------------------------------------------------ source editing


def name_of(node: ast.expr | None) -> str:
    return ast.unparse(node) if node is not None else ""


def all_args(fn: ast.FunctionDef) -> list[ast.arg]:
    a = fn.args
    return [*a.posonlyargs, *a.args, *a.kwonlyargs]


def find_arg(fn: ast.FunctionDef, name: str) -> ast.arg | None:
    return next((arg for arg in all_args(fn) if arg.arg == name), None)


def parse_expr(text: str) -> ast.expr:
    return ast.parse(text, mode="eval").body


def decorate(fn: ast.FunctionDef) -> ast.FunctionDef:
    out = copy.deepcopy(fn)
    names = {name_of(d) for d in out.decorator_list}
    if not names & {"overload", "_overload", "typing.overload"}:
        out.decorator_list = [ast.Name("_overload"), *out.decorator_list]
    out.body = [ast.Expr(ast.Constant(...))]
    return out


@dataclass
class SourceModule:
    """What one rewritten module needs: its type variables, its array type."""

    array: str
    marker: Callable[[str], str] = lambda name: f"_tpd.{name}"
    keeps: dict[tuple[tuple[str, ...], bool], str] = field(default_factory=dict)
    same_unknown: bool = False
    type_variables: set[str] = field(default_factory=set)
    """JAX's type variables, as the stub qualifies them (``_src0.T``)."""

    def keep(self, markers: tuple[str, ...], one: bool = False) -> str:
        """The type variable for the dtypes a function keeps: bounded by their union, or with
        ``one``, constrained to them (for several arguments that must share one dtype).

        A bounded one where one argument decides: pyright solves it from that
        argument alone, where it tries a constrained one's dtypes in turn.
        Several arguments (``lax.add(x, y)``, ``[x, y]``) would solve a bounded
        one to their union (``Array[float32 | bfloat16]``), a constrained one
        to none: arrays of two dtypes match no overload of it.
        """
        key = (markers, one)
        if key not in self.keeps:
            self.keeps[key] = f"_Keep{len(self.keeps)}"
        return self.keeps[key]

    def unknown_kept(self) -> str:
        """The type variable of an array of unknown dtype (or anything ``Any``) that a
        function returning its argument's type returns as it came
        (``stop_gradient(x: T) -> T``: ``Any`` in, ``Any`` out, as JAX declares)."""
        self.same_unknown = True
        return "_SameUnknown"

    def variables(self) -> str:
        """The type variables' declarations."""
        out: list[str] = []
        if self.same_unknown:
            bound = f"{self.array}[_tpd.Category]"
            out.append(f"_SameUnknown = _TypeVar('_SameUnknown', bound={bound})\n")
        for (markers, one), var in self.keeps.items():
            names = [self.marker(m) for m in markers]
            values = ", ".join(names) if one else f"bound={' | '.join(names)}"
            out.append(f"{var} = _TypeVar({var!r}, {values})\n")
        return "".join(out)

    def arrays(self, markers: Iterable[str]) -> str:
        """``Array[a | b]``: ``Array`` is covariant in its dtype, so it takes an ``Array[a]``
        and an ``Array[b]`` as ``Array[a] | Array[b]`` does, and pyright evaluates it faster
        (one class specialised, not one per dtype: the corpus checks about 10% faster)."""
        return f"{self.array}[{' | '.join(self.marker(m) for m in markers)}]"


def numpy_type_of(marker: str) -> str | None:
    import numpy as np

    found: object = getattr(np, marker, None)
    if not isinstance(found, type) or not issubclass(found, np.generic):
        return None
    try:
        name: str = np.dtype(marker).name
    except TypeError:
        return None
    return f"_np.{marker}" if name == marker or marker == "bool_" else None


def require(fn: ast.FunctionDef, name: str) -> None:
    """Make parameter ``name`` of ``fn`` required (keyword-only if a default precedes it)."""
    a = fn.args
    for index, arg in enumerate(a.kwonlyargs):
        if arg.arg == name:
            a.kw_defaults[index] = None
            return
    positional = [*a.posonlyargs, *a.args]
    names = [arg.arg for arg in positional]
    if name not in names or name in {arg.arg for arg in a.posonlyargs}:
        return
    index = names.index(name)
    first_default = len(positional) - len(a.defaults)
    if index < first_default:
        return  # already required
    if index == first_default:
        a.defaults = a.defaults[1:]
        return
    start = index - len(a.posonlyargs)
    moved = a.args[start:]
    moved_defaults = a.defaults[len(a.defaults) - len(moved) :]
    a.args = a.args[:start]
    a.defaults = a.defaults[: len(a.defaults) - len(moved)]
    a.kwonlyargs = [*moved, *a.kwonlyargs]
    a.kw_defaults = [None, *moved_defaults[1:], *a.kw_defaults]


def signature_of(
    fn: ast.FunctionDef,
    changes: Mapping[str, str],
    returns: str,
    module: SourceModule,
    required: str | None = None,
) -> ast.FunctionDef:
    out = decorate(fn)
    if required is not None:
        require(out, required)
    for arg in all_args(out):
        if arg.arg in changes:
            arg.annotation = parse_expr(changes[arg.arg])
    out.returns = parse_expr(returns)
    if fn.returns is not None and isinstance(fn.returns, ast.Subscript):
        # ``list[Array]`` (``split``), ``tuple[Array, Array]`` (``frexp``): each array is one
        out.returns = _Replace("Array", out.returns).visit(copy.deepcopy(fn.returns))
    elif (
        returns.endswith("[_Any]")
        and isinstance(fn.returns, ast.Name | ast.Attribute)
        and not name_of(fn.returns).endswith("Array")
        and ast.unparse(fn.returns) not in module.type_variables
    ):  # an unknown dtype where JAX returns a named tuple (``QRResult``): JAX's return
        out.returns = copy.deepcopy(fn.returns)
    return out


class _Replace(ast.NodeTransformer):
    """Replace the name ``name`` (not subscripted) with ``by``."""

    def __init__(self, name: str, by: ast.expr) -> None:
        self.name, self.by = name, by

    def visit_Subscript(self, node: ast.Subscript) -> ast.expr:
        if name_of(node.value) == self.name:
            return node
        node.slice = self.visit(node.slice)
        return node

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return copy.deepcopy(self.by) if node.id == self.name else node


# ------------------------------------------------------------------ the modules


def insert_after_imports(tree: ast.Module, text: str) -> None:
    last = 0
    for index, stmt in enumerate(tree.body):
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            last = index + 1
    tree.body[last:last] = ast.parse(text).body


def stubs_header(rules: RuleSet, version: str) -> str:
    return (
        f"# Generated by `python -m typing_pkg stubs --jax` from JAX {version}'s stubs and the "
        f"{rules.name!r} rule set: do not edit.\n"
    )


def typing_names(rules: RuleSet) -> tuple[ast.ClassDef, dict[str, str]]:
    """``typing_pkg``'s generated ``Array`` class and how to qualify the names it uses (not to
    be changed: callers copy what they edit)."""
    return _typing_names_of(rules.name)


@cache
def _typing_names_of(rules_name: str) -> tuple[ast.ClassDef, dict[str, str]]:
    tree = ast.parse(stubgen.generate(rules_name)[f"{stubgen.PACKAGE}/typing.pyi"])
    qualify: dict[str, str] = {}
    cls: ast.ClassDef | None = None
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "typing_pkg.dtypes":
            qualify.update({a.asname or a.name: f"_tpd.{a.name}" for a in stmt.names})
        elif isinstance(stmt, ast.ImportFrom) and stmt.module == "typing":
            qualify.update({a.asname or a.name: f"_typing.{a.name}" for a in stmt.names})
        elif isinstance(stmt, ast.ClassDef):
            qualify[stmt.name] = f"_tpt.{stmt.name}"
            if stmt.name == "Array":
                cls = stmt
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            qualify.update({t.id: f"_tpt.{t.id}" for t in targets if isinstance(t, ast.Name)})
    qualify["np"] = "_np"
    # A module may shadow them (``jax.numpy``'s ``bool`` is a scalar type object).
    qualify.update({name: f"_builtins.{name}" for name in ("bool", "int", "float", "complex")})
    if cls is None:
        raise LookupError("typing_pkg's stubs have no Array class")
    return cls, qualify


class Qualify(ast.NodeTransformer):
    def __init__(self, qualify: Mapping[str, str]) -> None:
        self.qualify = qualify

    def visit_Name(self, node: ast.Name) -> ast.expr:
        found = self.qualify.get(node.id)
        return parse_expr(found) if found is not None else node


class Defaults(ast.NodeTransformer):
    def visit_arguments(self, node: ast.arguments) -> ast.arguments:
        node.defaults = [ast.Constant(...) for _ in node.defaults]
        node.kw_defaults = [None if d is None else ast.Constant(...) for d in node.kw_defaults]
        return node


def source_module(root: Path, module: str) -> Path:
    base = root.parent.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def module_names(tree: ast.Module) -> tuple[set[str], dict[str, ast.FunctionDef]]:
    """The names a module defines or imports at top level, and its functions."""
    defined: set[str] = set()
    functions: dict[str, ast.FunctionDef] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            functions[stmt.name] = stmt
            defined.add(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            defined.add(stmt.name)
        elif isinstance(stmt, ast.Assign | ast.AnnAssign):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            defined |= {t.id for t in targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            defined |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return defined - set(dir(builtins)), functions
