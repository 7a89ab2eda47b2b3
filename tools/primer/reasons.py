"""Why an array-valued site has no dtype: each unknown site of the coverage run, given a reason.

The coverage run (:mod:`tools.primer.sites`) reveals the type of every name a
statement binds.  For an array-valued site without one dtype, :func:`classify`
follows its value back through the program (the names it reads, their
bindings, the parameters and the call sites that fill them, the functions it
calls) to the first thing that has no dtype, and names it in one of the
classes of :data:`REASONS`.  Some classes are where the *program* leaves the
dtype open (an input nothing fixes, an annotation without a dtype, an untyped
library, an API whose dtype depends on values); the others are *gaps*: the
program fixes the dtype and the plugin does not see it.

It is a static reading of the source with the revealed types, not a second
type checker: a name's binding is the latest one before the use in the same
function (control flow is not followed), and a cause is the first one found.
What it cannot explain is ``unexplained``, a gap, with the expression's kind.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import json
import re
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from tools.corpus_coverage import Site, binding_statements, static_dtype
from tools.primer.projects import module_name

__all__ = ["REASONS", "Cause", "Reason", "classify", "is_gap", "typed_libraries"]


@dataclass(frozen=True)
class Reason:
    """A class of unknown sites: its key, whether it is a gap of the plugin, what it means."""

    key: str
    gap: bool
    text: str


REASONS: Final = {
    r.key: r
    for r in (
        Reason("input", False, "depends on an input no call site fixes"),
        Reason("annotation", False, "an annotation without one dtype (jax.Array, Float[…])"),
        Reason("untyped-library", False, "a value from a library without py.typed"),
        Reason("value-dependent", False, "an API whose dtype depends on values"),
        Reason("several-dtypes", False, "bound to different dtypes on different paths"),
        Reason("numpy", False, "NumPy's API (NumPy code: a later issue)"),
        Reason("call-site", True, "a function of the module called with known dtypes"),
        Reason("other-module", True, "a function of another of the project's modules"),
        Reason("transformed", True, "a function only transformed (jit, vmap, scan, tree_map…)"),
        Reason("pytree", True, "an item or field of a container (dict, list, class)"),
        Reason("api-gap", True, "a JAX function or method the table lacks or does not model"),
        Reason("unexplained", True, "no cause found"),
    )
}
"""Every class, in the report's order: first the program's, then the plugin's gaps."""


def is_gap(key: str) -> bool:
    """Whether a reason's class is one the plugin should close."""
    return REASONS[key].gap


@dataclass(frozen=True)
class Cause:
    """A reason's key and what it names (``jax.numpy.nonzero``, ``parameter x of f``)."""

    key: str
    detail: str
    weak: bool = field(default=False, compare=False)
    """A cause another part of the same value may explain better: a parameter every
    transformation feeds with a known dtype (the plugin's gap only when nothing else is)."""

    def __str__(self) -> str:
        return f"{self.key}: {self.detail}"


_TRANSFORMS: Final = frozenset(
    {
        "jit", "vmap", "pmap", "grad", "value_and_grad", "jacfwd", "jacrev", "hessian",
        "checkpoint", "remat", "scan", "fori_loop", "while_loop", "cond", "switch", "map",
        "tree_map", "custom_jvp", "custom_vjp", "partial", "filter_jit", "filter_vmap",
        "filter_grad", "filter_value_and_grad", "shard_map", "associative_scan", "linearize",
        "jvp", "vjp", "eval_shape", "named_call", "compact", "pure_callback", "xmap",
        "pallas_call", "core_map",
    }
)  # fmt: skip
"""Names of the functions that call the function they are given (a parameter's use there)."""
_NOT_ARRAYS: Final = frozenset({"shape", "ndim", "size", "itemsize", "nbytes"})
_SAME_DTYPE: Final = frozenset({"dtype", "T", "mT", "real", "imag", "at"})
"""Attributes of an array whose dtype is the array's (``real`` of a real array)."""
_TREE_UTILITIES: Final = ("jax.tree_util.", "jax.tree.", "equinox.tree_", "optax.tree_utils.")
"""Modules of functions over pytrees (whose results are the leaves they are given)."""
_ITERATORS: Final = frozenset({"zip", "enumerate", "items", "values", "reversed", "sorted"})
"""Calls whose elements are the elements of their arguments."""
_DEPTH: Final = 60
"""How many sites and parameters one cause is followed through (Python's stack is the limit)."""
_CONTAINERS: Final = (
    "dict[", "list[", "tuple[", "builtins.dict[", "builtins.list[", "builtins.tuple[",
    "Mapping[", "Sequence[", "typing.Mapping[", "typing.Sequence[", "collections.",
)  # fmt: skip
_SCALAR_WORDS: Final = frozenset(
    {
        "int", "float", "bool", "str", "bytes", "complex", "None", "tuple", "Tuple",
        "Optional", "Union", "Literal", "typing.Optional", "typing.Union", "typing.Tuple",
        "typing.Literal",
    }
)  # fmt: skip
"""The words of an annotation of Python scalars and tuples of them (no array in it)."""


def _array_type(text: str) -> bool:
    from tools.primer.sites import is_array_type  # not at the top: sites imports this module

    return is_array_type(text)


def _several(text: str) -> bool:
    """A union of arrays of two or more known dtypes."""
    from tools.primer.sites import split_union

    found = {static_dtype(m) for m in split_union(text) if m != "None"}
    return len(found) > 1 and None not in found


def _known(text: str) -> bool:
    """A type that is not the cause of an unknown dtype: an array with one dtype, or no array."""
    if _array_type(text):
        return static_dtype(text) is not None
    return "Any" not in text and not _unresolved(text) and not text.startswith(_CONTAINERS)


def _holds_no_array(annotation: ast.expr) -> bool:
    """Whether an annotation names only Python scalars (``int``, ``tuple[int, int]``)."""
    words = re.findall(r"[A-Za-z_][\w.]*", ast.unparse(annotation))
    return bool(words) and all(w in _SCALAR_WORDS for w in words)


def _holds_no_array_text(text: str) -> bool:
    """Whether a type mypy shows holds no array (``list[str]``, ``dict[str, int]``)."""
    return not re.search(r"Any|Array|ndarray|Tensor|jaxlib|jax\.|object|Unknown", text)


def _unresolved(text: str) -> bool:
    """A type mypy could not resolve (``Array?``: an annotation naming a variable)."""
    return "?" in text


def dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a chain of attributes over a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


Scope = ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


@dataclass
class _Module:
    rel: str
    name: str
    tree: ast.Module
    parents: dict[ast.AST, ast.AST]
    imports: dict[str, str]
    """Local name → the full dotted name it stands for."""
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]]
    bindings: dict[tuple[Scope, str], list[tuple[int, ast.stmt]]]
    types: dict[tuple[int, str], str]


def _scope_of(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> Scope:
    current = parents.get(node)
    while current is not None and not isinstance(
        current, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.Module
    ):
        current = parents.get(current)
    assert current is not None
    return current


def _imports(tree: ast.Module, package: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    found[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    found[top] = top
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".") if package else []
                parts = parts[: len(parts) - node.level + 1] if node.level > 1 else parts
                base = ".".join([*parts, *([base] if base else [])])
            for alias in node.names:
                found[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name
    return found


def _load(root: Path, rel: str, types: Mapping[Site, str]) -> _Module | None:
    try:
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return None
    name, _ = module_name(root, rel)
    package = name if rel.endswith("__init__.py") else name.rpartition(".")[0]
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    functions: dict[str, list[ast.FunctionDef | ast.AsyncFunctionDef]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            functions.setdefault(node.name, []).append(node)
    bindings: dict[tuple[Scope, str], list[tuple[int, ast.stmt]]] = {}
    for stmt, names in binding_statements(tree):
        scope = _scope_of(stmt, parents)
        for bound in names:
            bindings.setdefault((scope, bound), []).append((stmt.lineno, stmt))
    return _Module(
        rel,
        name,
        tree,
        parents,
        _imports(tree, package),
        functions,
        bindings,
        {(site.line, site.name): text for site, text in types.items()},
    )


@dataclass
class _Project:
    modules: dict[str, _Module]
    by_name: dict[str, _Module]
    typed: Mapping[str, bool]
    """Top-level module of a library → whether it ships ``py.typed`` (absent: not installed)."""
    calls: dict[str, list[tuple[_Module, ast.Call]]] = field(default_factory=dict)
    """A function's name → the calls of that name (``f(…)``, ``x.f(…)``) in the project."""
    references: dict[str, list[tuple[_Module, ast.AST]]] = field(default_factory=dict)
    """A function's name → its other uses (an argument, a decorator, a value)."""
    memo: dict[tuple[str, int, str, frozenset[int]], Cause | None] = field(default_factory=dict)
    active: set[tuple[str, int, str, frozenset[int]]] = field(default_factory=set)
    classes: dict[str, list[tuple[_Module, ast.ClassDef]]] = field(default_factory=dict)
    """A class's name → its definitions in the project."""

    def index(self) -> None:
        for module in self.modules.values():
            called: set[int] = set()
            for node in ast.walk(module.tree):
                if isinstance(node, ast.ClassDef):
                    self.classes.setdefault(node.name, []).append((module, node))
                if isinstance(node, ast.Call):
                    name = _called_name(node.func)
                    if name:
                        self.calls.setdefault(name, []).append((module, node))
                        called.add(id(node.func))
            for node in ast.walk(module.tree):
                if isinstance(node, ast.Name | ast.Attribute) and id(node) not in called:
                    name = node.id if isinstance(node, ast.Name) else node.attr
                    if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
                        continue
                    self.references.setdefault(name, []).append((module, node))


_FOLLOWED_GAPS: Final = frozenset({"call-site", "other-module", "transformed", "api-gap"})
"""The gap classes a field set from a value of unknown dtype takes from that value: a function
the plugin could follow; not a container's item or field the classifier itself cannot follow."""
_CONTAINER_BASES: Final = frozenset(
    {"NamedTuple", "Module", "PyTreeNode", "Generic", "Protocol", "ABC", "object", "Enum"}
)
"""Bases that give a class no fields of their own (a field not found is the class's)."""
_ITSELF: Final = Cause("pytree", "the field being built")
"""``field``'s answer for a field read in one of its own constructions."""


def _field_key(cls: ast.ClassDef, attr: str) -> int:
    """A field's key among ``_Classifier.building`` (apart from the functions' ids)."""
    return -abs(hash((id(cls), attr))) - 1


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


class _Classifier:
    def __init__(self, project: _Project) -> None:
        self.project = project
        self.assumed: frozenset[int] = frozenset()
        """The functions whose parameters are taken as known (a call of known arguments)."""
        self.building: set[int] = set()
        """The fields whose constructions are being read (``built_field``): a value read from
        the field itself (``state.replace(w=state.w + 1)``) is as the others make it."""

    # -- sites and names ----------------------------------------------------------------------

    def guarded(self, what: tuple[str, int, str], find: Callable[[], Cause | None]) -> Cause | None:
        """``find()`` once per key and assumption; None on a cycle (a loop, a recursive
        function: the other paths decide) or past :data:`_DEPTH`."""
        key = (*what, self.assumed | frozenset(self.building))
        if key in self.project.memo:
            return self.project.memo[key]
        if key in self.project.active or len(self.project.active) > _DEPTH:
            return None
        self.project.active.add(key)
        try:
            cause = find()
        finally:
            self.project.active.discard(key)
        self.project.memo[key] = cause
        return cause

    def site(self, module: _Module, line: int, name: str) -> Cause | None:
        return self.guarded((module.rel, line, name), lambda: self._site(module, line, name))

    def _site(self, module: _Module, line: int, name: str) -> Cause | None:
        text = module.types.get((line, name))
        if text is not None and _known(text):
            return None
        if text is not None and _several(text):
            return Cause("several-dtypes", text)
        if text is not None and _unresolved(text):
            return Cause("annotation", f"{name}: {text}, a type mypy does not resolve")
        stmt = self._statement(module, line, name)
        if stmt is None:
            return Cause("unexplained", f"no statement binds {name} at line {line}")
        if isinstance(stmt, ast.AnnAssign):
            return Cause("annotation", f"{name}: {ast.unparse(stmt.annotation)}")
        if isinstance(stmt, ast.For | ast.AsyncFor):
            return self.element(module, stmt.iter)
        if isinstance(stmt, ast.With | ast.AsyncWith):
            return Cause("unexplained", "bound by with")
        if isinstance(stmt, ast.AugAssign):
            return _first(self.expr(module, e) for e in (stmt.value, stmt.target))
        if isinstance(stmt, ast.Assign):
            return self.assigned(module, stmt, name) or self.rebound(module, stmt, name)
        return Cause("unexplained", type(stmt).__name__)

    def rebound(self, module: _Module, stmt: ast.stmt, name: str) -> Cause | None:
        """A value of known dtype whose variable another binding widens (the rebinding rules)."""
        scope = _scope_of(stmt, module.parents)
        for line, _ in module.bindings.get((scope, name), []):
            if line != stmt.lineno:
                cause = self.site(module, line, name)
                if cause is not None:
                    return Cause(cause.key, f"{cause.detail} (rebound at line {line})")
        return None

    def _statement(self, module: _Module, line: int, name: str) -> ast.stmt | None:
        for (_, bound), sites in module.bindings.items():
            if bound == name:
                for at, stmt in sites:
                    if at == line:
                        return stmt
        return None

    def assigned(self, module: _Module, stmt: ast.Assign, name: str) -> Cause | None:
        value = stmt.value
        if _empty_list(value) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            return self._appended(module, stmt, name)
        for target in stmt.targets:
            if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
                for element, item in zip(target.elts, value.elts, strict=False):
                    if _binds(element, name):
                        return self.expr(module, item)
        for target in stmt.targets:
            if isinstance(target, ast.Tuple | ast.List) and not isinstance(value, ast.Call):
                starred = any(isinstance(e, ast.Starred) for e in target.elts)
                index = next(i for i, e in enumerate(target.elts) if _binds(e, name))
                return self.element(module, value) if starred else self.item(module, value, index)
        return self.expr(module, value)

    def name(self, module: _Module, node: ast.Name) -> Cause | None:
        comprehension = _comprehension_of(node, module.parents)
        if comprehension is not None:
            return self.element(module, comprehension.iter)
        found = _binding_scope(module, node)
        if found is not None:
            scope, use = found
            sites = module.bindings.get((scope, node.id), [])
            parameter = isinstance(scope, FunctionNode) and node.id in _parameters(scope)
            if parameter and not any(line < use for line, _ in sites):
                assert isinstance(scope, FunctionNode)
                return self.parameter(module, scope, node.id)  # not bound before the use
            line = _read(sites, use)
            assert line is not None
            cause = self.site(module, line, node.id)
            if cause is None and use != sys.maxsize:
                return self._bypassed(module, scope, node, line, sites)
            return cause
        if node.id in module.imports:
            full = module.imports[node.id]
            owner = self._project_module(full.rpartition(".")[0])
            if owner is None:
                return None
            short = full.rpartition(".")[2]
            sites = owner.bindings.get((owner.tree, short), [])
            if not sites:
                return None  # a function, a class, a module
            text = owner.types.get((min(line for line, _ in sites), short))
            if text is not None and _known(text):
                return None  # DEPOT_IDX = 0: no array; an array of known dtype
            return Cause("other-module", full)
        return None  # a builtin, a module-level function or class

    def _appended(self, module: _Module, stmt: ast.Assign, name: str) -> Cause | None:
        """A list bound empty and filled in its scope (``batches = []``, then
        ``batches.append(x)``): the first cause of what is appended or extended with."""
        scope = _scope_of(stmt, module.parents)
        causes: list[Cause | None] = []
        for call in ast.walk(scope):
            if not (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == name
                and call.func.attr in ("append", "extend", "insert")
                and call.args
                and _scope_of(call, module.parents) is scope
            ):
                continue
            added = call.args[-1]
            extend = call.func.attr == "extend"
            causes.append(self.element(module, added) if extend else self.expr(module, added))
        return _first(causes)

    def _bypassed(
        self,
        module: _Module,
        scope: Scope,
        node: ast.Name,
        line: int,
        sites: Sequence[tuple[int, ast.stmt]],
    ) -> Cause | None:
        """The cause of the value a use reads where the binding it sees sits in an ``if``
        without an ``else`` that binds it too (``if valid is None: valid = jnp.ones(…)``):
        the value before the ``if`` reaches the use as well (mypy joins both)."""
        statement = dict(sites)[line]
        current: ast.AST | None = module.parents.get(statement)
        use_line = _statement_line(node, module.parents)
        while current is not None and current is not scope:
            if isinstance(current, ast.If) and not (
                current.lineno <= use_line <= (current.end_lineno or current.lineno)
            ):
                if any(_binds_in(s, node.id) for s in current.orelse):
                    return None  # both branches bind it
                before = [at for at, _ in sites if at < current.lineno]
                if before:
                    return self.site(module, max(before), node.id)
                if isinstance(scope, FunctionNode) and node.id in _parameters(scope):
                    return self.parameter(module, scope, node.id)
                return None
            current = module.parents.get(current)
        return None

    def element(self, module: _Module, iterable: ast.expr) -> Cause | None:
        """The cause of an element of ``iterable`` (a ``for`` target, a starred unpacking)."""
        if isinstance(iterable, ast.Name):  # the container's own cause, else its items are lost
            cause = self.expr(module, iterable)
            text = self.name_type(module, iterable) or ""
            if cause is None and text.startswith(_CONTAINERS) and _holds_no_array_text(text):
                return None  # for k in keys: a list[str]'s items are no arrays
            return cause or Cause("pytree", f"an element of {iterable.id}")
        if isinstance(iterable, ast.Call) and _called_name(iterable.func) in _ITERATORS:
            func = iterable.func
            inner = list(iterable.args)
            if isinstance(func, ast.Attribute) and func.attr in ("items", "values"):
                inner = [func.value]
            found = _first(self.element(module, i) for i in inner if not isinstance(i, ast.Starred))
            return found or Cause("pytree", f"an element of {ast.unparse(iterable)[:60]}")
        return self.expr(module, iterable)

    def name_type(self, module: _Module, node: ast.Name) -> str | None:
        """The type mypy gives the binding ``node`` reads: of its own scope, else of the
        enclosing ones (a closure's or a global's, ``FLAGS = flags.FLAGS``)."""
        found = _binding_scope(module, node)
        if found is None:
            return None
        scope, use = found
        line = _read(module.bindings.get((scope, node.id), []), use)
        return None if line is None else module.types.get((line, node.id))

    def declared_type(self, module: _Module, node: ast.Name) -> str | None:
        """The annotation of the parameter ``node`` names, if it names one (``state: EnvState``),
        of its own function or of an enclosing one (a closure reads ``prob``)."""
        found = _binding_scope(module, node)
        if found is None:
            return None
        scope, use = found
        if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        if any(line < use for line, _ in module.bindings.get((scope, node.id), [])):
            return None  # rebound before the use
        for arg in _arguments(scope):
            if arg.arg == node.id and arg.annotation is not None:
                return ast.unparse(arg.annotation).strip("'\"")
        return None

    # -- parameters ----------------------------------------------------------------------------

    def parameter(self, module: _Module, function: FunctionNode, name: str) -> Cause | None:
        if id(function) in self.assumed:
            return None  # the call being followed gives it an argument of known dtype
        key = (module.rel, -id(function), name)
        return self.guarded(key, lambda: self._parameter(module, function, name))

    def _parameter(self, module: _Module, function: FunctionNode, name: str) -> Cause | None:
        arg = next(a for a in _arguments(function) if a.arg == name)
        label = f"parameter {name} of {_function_name(function)}"
        if arg.annotation is not None and _holds_no_array(arg.annotation):
            return None  # shape: tuple[int, int]: not what an array's dtype comes from
        if arg.annotation is not None and not isinstance(function, ast.Lambda):
            declared = Cause("annotation", f"{label}: {ast.unparse(arg.annotation)}")
            fixed, _, array = self.fixed_by_calls(module, function, name)
            if fixed is None or not array:
                return declared  # the declaration decides (``r_cutoff: ArrayLike`` given 5.0)
            return Cause(
                "call-site" if fixed is module else "other-module",
                f"{label}: {ast.unparse(arg.annotation)}, narrowed by no call (called in "
                f"{fixed.rel})",
            )
        if arg.annotation is not None:
            return Cause("annotation", f"{label}: {ast.unparse(arg.annotation)}")
        if isinstance(function, ast.Lambda):
            parent = module.parents.get(function)
            if isinstance(parent, ast.Call):
                position = _position(function, name)
                fed = _fed_by_transformation(module, function, position)
                if fed is not None:
                    slices = _slices(function, module)
                    cause = self.element(module, fed) if slices else self.expr(module, fed)
                    if cause is not None:
                        return cause
                return Cause("transformed", f"{label} (given to {ast.unparse(parent.func)})")
            return Cause("input", label)
        return self.callers(module, function, name, label)

    def callers(
        self,
        module: _Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        name: str,
        label: str,
    ) -> Cause | None:
        owner = module
        fixed, first, array = self.fixed_by_calls(module, function, name)
        if not array:
            return None  # a string, a number: no array
        if fixed is not None:
            same = fixed is module
            return Cause(
                "call-site" if same else "other-module", f"{label} (called in {fixed.rel})"
            )
        if first is not None:
            return first
        uses = self._uses(owner, function)
        fed = False
        for where, argument, slices in self._fed(owner, function, name):
            fed = True
            cause = self.element(where, argument) if slices else self.expr(where, argument)
            if cause is not None:
                return cause
        if fed:
            known = f"{label} (its transformation's arguments are known)"
            return Cause("transformed", known, weak=True)
        if any(_applied(w, n) for w, n in uses):
            return Cause("transformed", f"{label} (transformed and applied, arguments not read)")
        if _decorated(function) or any(_transformation(n, w.parents) for w, n in uses):
            return Cause("input", f"{label} (transformed; the project applies it nowhere in view)")
        maker = self._returned_by(owner, function, uses)
        if maker is not None:
            return maker(label)
        if uses:
            return Cause("input", f"{label} (handed to code outside the project)")
        return Cause("input", label)

    def _returned_by(
        self,
        module: _Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        uses: Sequence[tuple[_Module, ast.AST]],
    ) -> Callable[[str], Cause] | None:
        """For a function its enclosing function returns (``make_train`` returning
        ``train``): a gap where the project calls or applies a result of that function
        (``jax.jit(make_train(config))(key)``), an input where it does not; None for others."""
        outer = _scope_of(function, module.parents)
        if not isinstance(outer, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        if not any(isinstance(where.parents.get(node), ast.Return) for where, node in uses):
            return None
        called = any(
            _calls_of(where, call) or _applied(where, call)
            for where, call in self._calls_of(module, outer)
        )
        if called:
            return lambda label: Cause(
                "call-site", f"{label}, a function {outer.name} returns, called through its result"
            )
        return lambda label: Cause(
            "input", f"{label}, a function {outer.name} returns (no call of the result in view)"
        )

    def _uses(
        self, module: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> list[tuple[_Module, ast.AST]]:
        """The project's references to ``function`` (defined in ``module``)."""
        return [
            r
            for r in self.project.references.get(function.name, [])
            if self._refers_to(r[0], r[1], module, function)
        ]

    def _fed(
        self, module: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> Iterator[tuple[_Module, ast.expr, bool]]:
        """The arguments transformations (and calls of a ``partial``) give parameter ``name``
        of ``function``: where, the argument, and whether the function gets slices of it."""
        position = _position(function, name)
        for where, node in [
            u for use in self._uses(module, function) for u in _through_partial(*use)
        ]:
            shift = _partial_shift(node, where)
            at = None if position is None else position - shift
            argument = _fed_by_transformation(where, node, at)
            call = where.parents.get(node)
            if argument is None and isinstance(call, ast.Call) and call.func is node:
                argument = _argument(call, at, name, shift=0)  # g = partial(f, …); g(x)
            if argument is not None:
                yield where, argument, _slices(node, where)

    def item(self, module: _Module, node: ast.expr, index: int) -> Cause | None:
        """The cause of item ``index`` of a tuple (``a, b, key = carry``): the element the tuple
        is written with, through the names it is bound to and the arguments calls and
        transformations give a parameter (a ``lax.scan`` carry); the value's cause otherwise."""
        if isinstance(node, ast.Tuple | ast.List):
            if index < len(node.elts) and not any(isinstance(e, ast.Starred) for e in node.elts):
                return self.expr(module, node.elts[index])
            return self.element(module, node)
        if not isinstance(node, ast.Name) or _comprehension_of(node, module.parents) is not None:
            return self.element(module, node)
        scope = _scope_of(node, module.parents)
        sites = module.bindings.get((scope, node.id), [])
        use = _statement_line(node, module.parents)
        parameter = isinstance(scope, FunctionNode) and node.id in _parameters(scope)
        if parameter and not any(line < use for line, _ in sites):
            function = scope
            assert isinstance(function, FunctionNode)
            key = (module.rel, -id(function), f"{node.id}[{index}]")
            return self.guarded(key, lambda: self._parameter_item(module, function, node.id, index))
        line = _visible(sites, use)
        stmt = dict(sites).get(line) if line is not None else None
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Name)
            and line is not None
        ):
            value = stmt.value
            return self.guarded(
                (module.rel, line, f"{node.id}[{index}]"), lambda: self.item(module, value, index)
            )
        return self.element(module, node)

    def _parameter_item(
        self, module: _Module, function: FunctionNode, name: str, index: int
    ) -> Cause | None:
        """Item ``index`` of an unannotated parameter every call or transformation gives a
        tuple: the first unknown item, None where all are known; the parameter's cause where
        no argument is read."""
        declared = next(a.annotation for a in _arguments(function) if a.arg == name)
        if declared is not None:  # an array's declaration (``hyperparams: Tuple``) decides
            label = f"an item of parameter {name} of {_function_name(function)}"
            return Cause("annotation", f"{label}: {ast.unparse(declared)}")
        whole = self.parameter(module, function, name)
        if whole is None:
            return Cause("pytree", f"an item of {name}")
        if isinstance(function, ast.Lambda) or _is_method(function, module):
            return whole
        position = _position(function, name)
        found = [
            (where, argument, False)
            for where, call in self._calls_of(module, function)
            if (argument := _argument(call, position, name, shift=0)) is not None
        ]
        found += self._fed(module, function, name)
        if not found:
            return whole
        for where, argument, slices in found:
            cause = self.element(where, argument) if slices else self.item(where, argument, index)
            if cause is not None:
                return cause
        return None

    def fixed_by_calls(
        self, module: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef, name: str
    ) -> tuple[_Module | None, Cause | None, bool]:
        """The module of a call giving parameter ``name`` an argument of known dtype (None:
        no call does), the cause of the first call's argument otherwise, and whether the
        arguments may be arrays (not when a call gives a constant, a string…)."""
        target: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef = function
        offset = 1 if _is_method(function, module) else 0
        cls = module.parents.get(function)
        if function.name == "__init__" and isinstance(cls, ast.ClassDef):
            target = cls  # Cls(…) calls its __init__
        calls = self._calls_of(module, target)
        position = _position(function, name)
        first: Cause | None = None
        for caller, call in calls:
            shift = offset if target is not function or isinstance(call.func, ast.Attribute) else 0
            argument = _argument(call, position, name, shift=shift)
            if argument is None:
                continue
            cause = self.expr(caller, argument)
            if cause is None and not _maybe_array(caller, argument, self):
                return None, None, False
            if cause is None:
                return caller, None, True
            first = first or cause
        return None, first, True

    def _calls_of(
        self, module: _Module, target: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    ) -> list[tuple[_Module, ast.Call]]:
        """The project's calls that may be of ``target`` (defined in ``module``)."""
        return [
            (m, c)
            for m, c in self.project.calls.get(target.name, [])
            if self._refers_to(m, c.func, module, target)
        ]

    def bound_field(self, owner: _Module, cls: ast.ClassDef, attr: str) -> Cause | None:
        """An attribute the class's methods bind (``self.w = …``): the first cause of those
        bindings (one unknown binding leaves the attribute unknown), None if all are known."""
        causes = (
            self.site(owner, line, f"self.{attr}")
            for (scope, bound), sites in owner.bindings.items()
            if bound == f"self.{attr}" and _enclosing_class(scope, owner.parents) is cls
            for line, _ in sites
        )
        return _first(causes)

    def declared_field(
        self, owner: _Module, cls: ast.ClassDef, attr: str, annotation: ast.expr
    ) -> Cause:
        """A field declared without one dtype: a gap where every way the program sets it
        gives it a known dtype; where one does not, the reason of that value if it is a
        function the plugin could follow (``_FOLLOWED_GAPS``), else the annotation."""
        label = f"field {cls.name}.{attr}: {ast.unparse(annotation)}"
        built = self.built_field(owner, cls, attr)
        if built is None:
            return Cause("annotation", label)
        if isinstance(built, Cause):
            if built.key not in _FOLLOWED_GAPS:
                return Cause("annotation", label)  # the declaration decides
            return Cause(built.key, f"{label}, set from {built.detail}"[:160])
        return Cause("pytree", f"{label}, built with a known dtype in {built.rel}")

    def built_field(self, owner: _Module, cls: ast.ClassDef, attr: str) -> _Module | Cause | None:
        """The module of a ``Cls(…)`` call giving field ``attr`` a known dtype where every way
        the program sets it does (a dataclass, NamedTuple or equinox Module without its own
        ``__init__``); the cause of the first value of unknown dtype where one is; None where
        no value is read.

        The ways: ``Cls(…)`` and the constructions of its subclasses, ``cls(…)`` in their
        class methods, and every ``.replace(attr=…)``/``._replace(attr=…)`` (of any class: the
        receiver's type is not read), a ``**kwargs`` or ``*args`` construction leaving it open.
        """
        if any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in cls.body):
            return None
        fields = [
            s.target.id
            for s in cls.body
            if isinstance(s, ast.AnnAssign)
            and isinstance(s.target, ast.Name)
            and "ClassVar" not in ast.unparse(s.annotation)
        ]
        position = fields.index(attr) if attr in fields else None
        family = self._subclasses(owner, cls)
        itself = _field_key(cls, attr)
        self.building.add(itself)
        try:
            return self._built(family, position, attr)
        finally:
            self.building.discard(itself)

    def _built(
        self, family: list[tuple[_Module, ast.ClassDef]], position: int | None, attr: str
    ) -> _Module | Cause | None:
        known: _Module | None = None
        for caller, call, positional in self._constructions(family):
            if any(isinstance(a, ast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords
            ):
                return None  # Cls(*args) or Cls(**fields): not read
            argument = _argument(call, position if positional else None, attr, shift=0)
            if argument is None or not _maybe_array(caller, argument, self):
                continue
            cause = self.expr(caller, argument)
            if cause is not None:
                return cause  # one construction leaves it open
            known = known or caller
        return known

    def _subclasses(self, owner: _Module, cls: ast.ClassDef) -> list[tuple[_Module, ast.ClassDef]]:
        """``cls`` and the project's classes deriving from it, however deep."""
        family = [(owner, cls)]
        names = {cls.name}
        grew = True
        while grew:
            grew = False
            for defs in self.project.classes.values():
                for module, other in defs:
                    if other.name in names or other in (c for _, c in family):
                        continue
                    if any(
                        self._refers_to(module, base, parent_module, parent)
                        for base in other.bases
                        for parent_module, parent in family
                        if _called_name(base) == parent.name
                    ):
                        family.append((module, other))
                        names.add(other.name)
                        grew = True
        return family

    def _constructions(
        self, family: list[tuple[_Module, ast.ClassDef]]
    ) -> list[tuple[_Module, ast.Call, bool]]:
        """The calls that build a member of ``family`` or replace a field: (module, call,
        whether its positional arguments are the fields)."""
        found: list[tuple[_Module, ast.Call, bool]] = []
        classes = [c for _, c in family]
        for owner, cls in family:
            found += [(caller, call, True) for caller, call in self._calls_of(owner, cls)]
        for caller, call in self.project.calls.get("cls", []):
            if (
                isinstance(call.func, ast.Name)
                and _enclosing_class(call, caller.parents) in classes
            ):
                found.append((caller, call, True))
        members = {f"{module.name}.{cls.name}" for module, cls in family}
        for name in ("replace", "_replace"):
            for caller, call in self.project.calls.get(name, []):
                receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
                if isinstance(call.func, ast.Name) and call.args:
                    receiver = call.args[0]  # dataclasses.replace(x, …) imported bare
                of = self._class_of(caller, receiver)
                if of is None or of in members:
                    found.append((caller, call, False))
        return found

    def _class_of(self, module: _Module, node: ast.expr | None) -> str | None:
        """The full name of the class of ``node``'s value where the revealed types or its
        annotation say it (``module.State``), else None."""
        if not isinstance(node, ast.Name):
            return None
        revealed = self.name_type(module, node)
        if revealed is not None and re.fullmatch(r"[\w.]+", revealed) and "." in revealed:
            return revealed
        declared = self.declared_type(module, node)
        if declared is None or not re.fullmatch(r"[\w.]+", declared):
            return None
        head, _, rest = declared.partition(".")
        if head in module.imports:
            return f"{module.imports[head]}.{rest}" if rest else module.imports[head]
        if not rest and any(
            isinstance(s, ast.ClassDef) and s.name == declared for s in module.tree.body
        ):
            return f"{module.name}.{declared}"
        return None

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, module: _Module, node: ast.expr) -> Cause | None:
        if isinstance(node, ast.Name):
            return self.name(module, node)
        if isinstance(node, ast.Constant):
            return None
        if isinstance(node, ast.Attribute):
            return self.attribute(module, node)
        if isinstance(node, ast.Subscript):
            return self.subscript(module, node)
        if isinstance(node, ast.BinOp):
            return _first(self.expr(module, e) for e in (node.left, node.right))
        if isinstance(node, ast.UnaryOp):
            return self.expr(module, node.operand)
        if isinstance(node, ast.BoolOp):
            return _first(self.expr(module, v) for v in node.values)
        if isinstance(node, ast.IfExp):
            return _first(self.expr(module, e) for e in (node.body, node.orelse))
        if isinstance(node, ast.Compare):  # an array of booleans, unless an operand is Any
            first = node.left
            if isinstance(first, ast.Name) and _array_type(self.name_type(module, first) or ""):
                return _first(self.expr(module, v) for v in node.comparators)
            return _first(self.expr(module, v) for v in [first, *node.comparators])
        if isinstance(node, ast.Lambda | ast.JoinedStr | ast.Dict | ast.Set | ast.DictComp):
            return None  # not an array
        if isinstance(node, ast.Call):
            return self.call(module, node)
        if isinstance(node, ast.Starred | ast.NamedExpr | ast.Await):
            return self.expr(module, node.value)
        if isinstance(node, ast.Tuple | ast.List):
            return _first(self.expr(module, e) for e in node.elts)
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            return self.expr(module, node.elt) or _first(
                self.element(module, g.iter) for g in node.generators
            )
        return Cause("unexplained", type(node).__name__)

    def attribute(self, module: _Module, node: ast.Attribute) -> Cause | None:
        if node.attr in _NOT_ARRAYS or node.attr in _SAME_DTYPE:  # Any of an Any
            return self.expr(module, node.value)
        path = dotted(node)
        if path is not None and path.split(".")[0] in module.imports:
            return None  # jnp.pi, a module's constant
        if isinstance(node.value, ast.Name):
            bound, own = self._attribute_sites(module, node)
            if bound:
                return own
            text = self.name_type(module, node.value) or self.declared_type(module, node.value)
            if text is not None and _array_type(text):
                return self.expr(module, node.value)  # x.T, x.real
            if text is not None and "Any" not in text:
                declared = self.field(module, text, node.attr)
                if declared is _ITSELF:
                    return None  # the field being built, read in one of its constructions
                if declared is not None:
                    return declared
            if text is None:
                passed = self._passed_class(module, node.value)
                if passed is not None:
                    declared = self.field(*passed, node.attr)
                    if declared is not None and declared is not _ITSELF:
                        return declared
        base = self.expr(module, node.value)
        if base is None and isinstance(node.value, ast.Call):
            return None  # jnp.finfo(x).tiny
        if base is not None and base.key not in ("pytree", "unexplained"):
            return base
        if base is None:
            owner = self._owner_of_field(module, node)
            if owner is not None:
                return owner
        return Cause("pytree", f"a field: {ast.unparse(node)[:60]}")

    def _passed_class(self, module: _Module, node: ast.Name) -> tuple[_Module, str] | None:
        """The class every call passes for the unannotated parameter ``node`` names, where
        the callers' names say one (``translate(contact)``, ``contact: Optional[Contact]``):
        a field read from it is that class's, whatever the call fixes."""
        function = _scope_of(node, module.parents)
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        if node.id not in _parameters(function) or module.bindings.get((function, node.id)):
            return None
        calls = self._calls_of(module, function)
        position = _position(function, node.id)
        found: set[tuple[str, str]] = set()
        first: tuple[_Module, str] | None = None
        for caller, call in calls:
            argument = _argument(call, position, node.id, shift=0)
            if not isinstance(argument, ast.Name):
                return None
            text = self.name_type(caller, argument) or self.declared_type(caller, argument)
            if text is None or _array_type(text):
                return None
            text = re.sub(r"^(Optional\[(.*)\]|(.*) \| None)$", r"\2\3", text)
            found.add((caller.name, text))
            first = first or (caller, text)
        return first if len(found) == 1 else None

    def _owner_of_field(self, module: _Module, node: ast.Attribute) -> Cause | None:
        """Why a field of a value that is no array has no dtype, by what its root name is:
        an unannotated parameter (``config.max_len``: an input), or a value of a library's
        type (``FLAGS.n``: the library's).  None for the project's own classes."""
        root: ast.expr = node
        while isinstance(root, ast.Attribute | ast.Subscript):
            root = root.value
        if not isinstance(root, ast.Name) or root.id == "self":
            return None
        text = self.name_type(module, root) or self.declared_type(module, root)
        written = ast.unparse(node)[:60]
        if text is None or text == "Any":
            scope = _scope_of(root, module.parents)
            arguments = getattr(scope, "args", None)
            if isinstance(arguments, ast.arguments) and any(
                a.arg == root.id and a.annotation is None
                for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
            ):
                return Cause("input", f"{written}, a field of parameter {root.id}")
            return None
        name = text.split("[", 1)[0].strip()
        top = name.split(".")[0]
        if self._class_named(module, name) is not None or top not in self.project.typed:
            return None
        if self.project.typed[top]:
            return Cause("annotation", f"{written}, declared by {name}")
        return Cause("untyped-library", f"{written}, of {name}")

    def _attribute_sites(self, module: _Module, node: ast.Attribute) -> tuple[bool, Cause | None]:
        """``self.w``: the sites of the class that bind it, or its declaration in the class
        (whether the class binds or declares it, and the cause)."""
        assert isinstance(node.value, ast.Name)
        dotted_name = f"{node.value.id}.{node.attr}"
        cls = _enclosing_class(node, module.parents)
        if cls is None:
            return False, None
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id == node.attr
            ):
                return True, self.declared_field(module, cls, node.attr, stmt.annotation)
        for declared in ast.walk(cls):  # self.bias: nnx.Param[jax.Array] | None, in a method
            if (
                isinstance(declared, ast.AnnAssign)
                and dotted(declared.target) == dotted_name
                and not _holds_no_array(declared.annotation)
            ):
                written = ast.unparse(declared.annotation)
                return True, Cause(
                    "annotation", f"{dotted_name}: {written}, declared in {cls.name}"
                )
        causes = [
            self.site(module, line, dotted_name)
            for (scope, bound), sites in module.bindings.items()
            if bound == dotted_name and _enclosing_class(scope, module.parents) is cls
            for line, _ in sites
        ]
        if not causes:
            return False, None
        if any(c is None for c in causes):
            if not any(_array_type(t) for t in self.bound_types(module, cls, dotted_name)):
                return True, None  # a float, a module, a key of unknown dtype bound once: no array
            return True, Cause("pytree", f"a field bound with a known dtype: {dotted_name}")
        return True, causes[0]

    def bound_types(self, module: _Module, cls: ast.ClassDef, dotted_name: str) -> list[str]:
        """The revealed types of the bindings of ``self.x`` in ``cls``'s methods."""
        return [
            text
            for (scope, bound), sites in module.bindings.items()
            if bound == dotted_name and _enclosing_class(scope, module.parents) is cls
            for line, _ in sites
            if (text := module.types.get((line, dotted_name))) is not None
        ]

    def field(self, module: _Module, type_text: str, attr: str) -> Cause | None:
        """The declaration of field ``attr`` of the class a type names, if any."""
        name = type_text.split("[", 1)[0].strip()
        found = self._class_named(module, name)
        if found is not None:
            owner, cls = found
            if _field_key(cls, attr) in self.building:
                return _ITSELF
            key = (owner.rel, -id(cls), attr)
            return self.guarded(key, lambda: self._field(owner, cls, attr))
        top = name.split(".")[0]
        if self.project.typed.get(top, False) or top in ("jax", "numpy"):
            return Cause("annotation", f"declared by {name}.{attr}")
        if top in self.project.typed:
            return Cause("untyped-library", f"{name}.{attr}")
        return None

    def _class_named(self, module: _Module, name: str) -> tuple[_Module, ast.ClassDef] | None:
        """The project's class a type names (``EnvState`` as ``module`` sees it, or a full name):
        the one of that module, else of the module it is imported from, else the first."""
        short = name.rsplit(".", 1)[-1]
        candidates = self.project.classes.get(short, [])
        if not candidates:
            return None
        head, _, rest = name.partition(".")
        full = (
            module.imports.get(head, "") + (f".{rest}" if rest else "")
            if head in module.imports
            else name
        )
        wanted = full.rpartition(".")[0] if "." in full else module.name
        for owner, cls in candidates:
            if owner.name == wanted:
                return owner, cls
        return candidates[0]

    def _field(self, owner: _Module, cls: ast.ClassDef, attr: str) -> Cause | None:
        for stmt in cls.body:
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and stmt.target.id == attr
            ):
                return self.declared_field(owner, cls, attr, stmt.annotation)
        if self._binds(owner, cls, attr):
            return self.bound_field(owner, cls, attr)
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == attr:
                return self._method_field(owner, cls, stmt)
        return self._inherited(owner, cls, attr)

    def _method_field(
        self, owner: _Module, cls: ast.ClassDef, method: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Cause | None:
        """A field a method defines: a property's declared type, or the cause of what its body
        returns where it declares none (the plugin reads no body at an access); None for
        other methods (a bound method is no array)."""
        decorators = {ast.unparse(d).rsplit(".", 1)[-1] for d in method.decorator_list}
        if not decorators & {"property", "cached_property"}:
            return None
        label = f"property {cls.name}.{method.name}"
        if method.returns is not None:
            if _holds_no_array(method.returns):
                return None
            return Cause("annotation", f"{label} -> {ast.unparse(method.returns)}")
        return self.returns(owner, method) or Cause(
            "call-site", f"{label}, unannotated: its body is not read where it is used"
        )

    def _binds(self, owner: _Module, cls: ast.ClassDef, attr: str) -> bool:
        """Whether a method of ``cls`` binds ``self.attr``."""
        return any(
            bound == f"self.{attr}" and _enclosing_class(scope, owner.parents) is cls
            for scope, bound in owner.bindings
        )

    def _base_field(self, owner: _Module, cls: ast.ClassDef, attr: str) -> Cause | None:
        """A base class's field (``_field``, once per class and field)."""
        return self.guarded((owner.rel, -id(cls), attr), lambda: self._field(owner, cls, attr))

    def _inherited(self, owner: _Module, cls: ast.ClassDef, attr: str) -> Cause | None:
        """A field ``cls`` does not declare: its base's (``System(mjx.Model)``), the project's
        own followed, a library's blamed on the library; a field no base of the project
        declares, of a library's container base (``nn.Module.apply``), the library's; None
        where none is found."""
        container: str | None = None
        for base in cls.bases:
            name = ast.unparse(base).split("[", 1)[0]
            if name.rsplit(".", 1)[-1] in _CONTAINER_BASES:
                head = name.partition(".")[0]
                container = container or (name if head in owner.imports else None)
                continue
            found = self._class_named(owner, name)
            if found is not None:
                cause = None if found[1] is cls else self._base_field(*found, attr)
                if cause is not None:
                    return cause
                continue
            head, _, rest = name.partition(".")
            full = owner.imports.get(head, head) + (f".{rest}" if rest else "")
            top = full.split(".")[0]
            if top in self.project.typed:
                key = "annotation" if self.project.typed[top] else "untyped-library"
                return Cause(key, f"{cls.name}.{attr}, inherited from {full}")
        if container is not None:
            head, _, rest = container.partition(".")
            full = owner.imports[head] + (f".{rest}" if rest else "")
            top = full.split(".")[0]
            if top in self.project.typed and top not in sys.stdlib_module_names:
                key = "annotation" if self.project.typed[top] else "untyped-library"
                return Cause(key, f"{cls.name}.{attr}, not the project's: {full}'s")
        return None

    def subscript(self, module: _Module, node: ast.Subscript) -> Cause | None:
        base = node.value
        if isinstance(base, ast.Attribute) and base.attr in _NOT_ARRAYS:  # x.shape[0]
            return self.expr(module, base.value)
        if isinstance(base, ast.Name) and _array_type(self.name_type(module, base) or ""):
            return self.expr(module, base)  # an array's item: its dtype
        cause = self.expr(module, base)
        if cause is None and isinstance(base, ast.Attribute) and base.attr == "at":
            return None
        if cause is None and self._array_call(module, base):
            return None  # jnp.arange(n, dtype=i32)[:, None]: an array's items, of its dtype
        if cause is None and self._itself(module, base):
            return None  # an item of the field being built: as the other constructions make it
        return cause if cause is not None else Cause("pytree", f"an item: {ast.unparse(node)[:60]}")

    def _itself(self, module: _Module, node: ast.expr) -> bool:
        """Whether ``node`` reads the field whose constructions are being read."""
        if not self.building or not isinstance(node, ast.Attribute):
            return False
        if not isinstance(node.value, ast.Name):
            return False
        text = self.name_type(module, node.value) or self.declared_type(module, node.value)
        return text is not None and self.field(module, text, node.attr) is _ITSELF

    def _array_call(self, module: _Module, node: ast.expr) -> bool:
        """Whether ``node`` calls a function of JAX's table (whose results are arrays)."""
        path = dotted(node.func) if isinstance(node, ast.Call) else None
        head, _, rest = (path or "").partition(".")
        if head not in module.imports:
            return False
        from typing_pkg import api

        try:
            api.resolve(module.imports[head] + (f".{rest}" if rest else ""))
        except api.UnknownFunctionError:
            return False
        return True

    def call(self, module: _Module, node: ast.Call) -> Cause | None:
        func = node.func
        arguments = [*node.args, *(k.value for k in node.keywords)]
        if isinstance(func, ast.Call):  # jax.vmap(f)(x)
            found = _first(self.expr(module, a) for a in arguments)
            if found is not None:
                return found
            made = self._instance_call(module, func)
            return made or Cause("transformed", f"{ast.unparse(func)[:60]}(…)")
        path = dotted(func)
        if path is None:
            if isinstance(func, ast.Attribute):  # (x + y).sum(), x.at[i].set(v)
                return self.method(module, func.value, func.attr, arguments)
            if isinstance(func, ast.Subscript):  # self.layers[i](x): a callable from a container
                found = _first(self.expr(module, a) for a in arguments)
                return found or Cause("pytree", f"a function from a container: {ast.unparse(func)}")
            return Cause("unexplained", f"call of {type(func).__name__}")
        head, _, rest = path.partition(".")
        if head in module.imports:
            full = module.imports[head] + (f".{rest}" if rest else "")
            return self.library_call(module, full, arguments, node)
        if not rest:
            return self.local_call(module, func, head, arguments)
        assert isinstance(func, ast.Attribute)
        if head == "self":
            method = self._own_method(module, func)
            if method is not None:
                return self.project_call(module, module, method, arguments)
        receiver = func.value
        text = None
        if isinstance(receiver, ast.Name):
            text = self.name_type(module, receiver)
            if text is not None and _array_type(text):
                return self.method(module, receiver, func.attr, arguments)
        found = _first(self.expr(module, a) for a in arguments)
        if found is not None:
            return found
        base = self.expr(module, receiver)
        if base is not None:
            return base
        if text is not None:  # a method of an object of known class: its declaration
            member = self.field(module, text, func.attr)
            if member is not None and member is not _ITSELF and not is_gap(member.key):
                return member  # a library base's (flax's Module.apply), a declared callable
            return self.library_method(text, func.attr)
        return Cause("unexplained", f"call of {path}")

    def _instance_call(self, module: _Module, made: ast.Call) -> Cause | None:
        """The cause of calling an object a class call makes (``hk.Linear(n)(x)``): its
        class's ``__call__``, a library's declaration or a method of the program; None
        where ``made`` is no class's call (``jax.vmap(f)``: a transformation)."""
        path = dotted(made.func)
        if path is None or _called_name(made.func) in _TRANSFORMS:
            return None
        head, _, rest = path.partition(".")
        if head in module.imports:
            full = module.imports[head] + (f".{rest}" if rest else "")
            if full.split(".")[0] in ("jax", "jaxlib") or not full.rsplit(".", 1)[-1][:1].isupper():
                return None
            if self._project_module(full.rpartition(".")[0]) is None:
                return self.library_method(full, "__call__")
        if self._class_named(module, path) is not None:
            return self.library_method(f"{module.name}.{path}", "__call__")
        return None

    def library_method(self, type_text: str, method: str) -> Cause:
        """The cause of a method's result that has no dtype, by its receiver's class."""
        name = type_text.split("[", 1)[0].strip()
        top = name.split(".")[0]
        if top == "numpy":
            return Cause("numpy", f"{name}.{method}")
        if self.project.by_name.get(name.rpartition(".")[0]) is not None:
            return Cause("call-site", f"{name}.{method}(…), a method of the program")
        if top not in sys.stdlib_module_names and not self.project.typed.get(top, False):
            return Cause("untyped-library", f"{name}.{method}")
        return Cause("annotation", f"declared by {name}.{method}")

    def method(
        self, module: _Module, receiver: ast.expr, method: str, arguments: Sequence[ast.expr]
    ) -> Cause | None:
        base = self.expr(module, receiver)
        if base is not None:
            return base
        found = _first(self.expr(module, a) for a in arguments)
        if found is not None:
            return found
        from typing_pkg import api

        for candidate in (f"jax.Array.{method}", f"jax.Array.at.{method}"):
            if candidate in api.table():
                return self._table_entry(candidate)
        return Cause("api-gap", f"Array.{method}")

    def _table_entry(self, full: str) -> Cause | None:
        from typing_pkg import api
        from typing_pkg.api.kinds.composite import UnknownDtype

        kind = api.table()[full]
        if isinstance(kind, UnknownDtype):  # a rule not modelled yet is the table's gap
            return Cause("api-gap" if kind.pending else "value-dependent", full)
        return None  # a rule: arguments of known dtypes give a known dtype

    def library_call(
        self,
        module: _Module,
        full: str,
        arguments: Sequence[ast.expr],
        call: ast.Call | None = None,
    ) -> Cause | None:
        top = full.split(".")[0]
        owner = self._project_module(full.rpartition(".")[0])
        if owner is not None:
            functions = owner.functions.get(full.rpartition(".")[2], [])
            top_level = [f for f in functions if isinstance(owner.parents.get(f), ast.Module)]
            if top_level:
                return self.project_call(module, owner, top_level[0], arguments)
            found = _first(self.expr(module, a) for a in arguments)
            made = owner.bindings.get((owner.tree, full.rpartition(".")[2]))
            if found is None and made:  # tree_dot = _wrap(_tree_dot): made at run time
                value = getattr(made[0][1], "value", None)
                if isinstance(value, ast.Call):
                    text = ast.unparse(value)[:60]
                    return Cause("input", f"{full} = {text}, a function made at run time")
            return found or Cause("other-module", full)
        found = _first(self.expr(module, a) for a in arguments)
        if full.startswith(_TREE_UTILITIES):  # tree_map, tree_leaves: the leaves' causes
            leaves = _first(self.element(module, a) for a in arguments)
            return leaves or Cause("pytree", f"a leaf of {full}")
        if top in ("jax", "jaxlib"):
            from typing_pkg import api

            try:
                resolved = api.resolve(full)
            except api.UnknownFunctionError:
                return found or Cause("api-gap", full)
            entry = self._table_entry(resolved)
            if entry is None and call is not None:
                kind = api.table()[resolved]
                read = _dtype_arguments(resolved, kind, call)
                cause = _first(self.expr(module, a) for a in read)
                if cause is None and kind.takes_values and call.args and not _literal(call.args[0]):
                    # jnp.array(coords) of a list[list[int]]: int32, or float32 if empty
                    return Cause("value-dependent", f"{full} of a sequence of unknown length")
                return cause
            return entry or found
        if top == "numpy" and (found is None or is_gap(found.key)):
            return Cause("numpy", full)  # NumPy's stubs answer, whatever its arguments are
        if found is not None:
            return found
        if top not in sys.stdlib_module_names and not self.project.typed.get(top, False):
            return Cause("untyped-library", full)
        return Cause("annotation", f"declared by {full}")

    def local_call(
        self, module: _Module, func: ast.expr, name: str, arguments: Sequence[ast.expr]
    ) -> Cause | None:
        assert isinstance(func, ast.Name)
        scope: Scope | None = _scope_of(func, module.parents)
        while scope is not None:
            if module.bindings.get((scope, name)):
                return self._bound_callable(module, func, arguments)
            if isinstance(scope, FunctionNode) and name in _parameters(scope):
                found = _first(self.expr(module, a) for a in arguments)
                return found or Cause("input", f"a function given as parameter {name}")
            for stmt in getattr(scope, "body", []):
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == name:
                    return self.project_call(module, module, stmt, arguments)
            scope = None if isinstance(scope, ast.Module) else _scope_of(scope, module.parents)
        found = _first(self.expr(module, a) for a in arguments)
        if found is None and name in dir(builtins):
            return None  # len(x), range(n), float(x)
        return found or Cause("unexplained", f"call of {name}")

    def _bound_callable(
        self, module: _Module, func: ast.Name, arguments: Sequence[ast.expr]
    ) -> Cause | None:
        found = _first(self.expr(module, a) for a in arguments)
        if found is not None:
            return found
        scope = _scope_of(func, module.parents)
        line = _visible(module.bindings.get((scope, func.id), []), sys.maxsize)
        stmt = None if line is None else self._statement(module, line, func.id)
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.Call) and _called_name(value.func) in _TRANSFORMS:
            return Cause("transformed", f"{func.id} = {ast.unparse(value.func)}(…)")
        if isinstance(value, ast.Call):
            made = ast.unparse(value)[:60]
            return Cause("input", f"{func.id} = {made}, a function made at run time")
        return Cause("unexplained", f"call of {func.id}")

    def project_call(
        self,
        module: _Module,
        owner: _Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        arguments: Sequence[ast.expr],
    ) -> Cause | None:
        label = f"{owner.name}.{function.name}"
        if function.returns is not None:
            return Cause("annotation", f"{label} -> {ast.unparse(function.returns)}")
        found = _first(self.expr(module, a) for a in arguments)
        if found is not None:
            return found
        inside = self.returns(owner, function)
        if inside is not None:
            return inside
        return Cause("call-site" if owner is module else "other-module", f"{label}(…)")

    def returns(
        self, owner: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Cause | None:
        """What leaves a function's result unknown besides its parameters (None: nothing)."""
        key = (owner.rel, -id(function), "<return>")
        return self.guarded(key, lambda: self._returns(owner, function))

    def _returns(
        self, owner: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Cause | None:
        outer = self.assumed
        self.assumed = outer | {id(function)}
        try:
            return _first(
                self.expr(owner, r.value)
                for r in ast.walk(function)
                if isinstance(r, ast.Return)
                and r.value is not None
                and _scope_of(r, owner.parents) is function
            )
        finally:
            self.assumed = outer

    def _refers_to(
        self,
        where: _Module,
        node: ast.AST,
        owner: _Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    ) -> bool:
        """Whether a use of ``function``'s name (``f``, ``mod.f``, ``self.f``) may be it."""
        if isinstance(node, ast.Name):
            if where is owner:  # the def is in a scope around the use
                defined = _scope_of(function, owner.parents)
                current: ast.AST | None = node
                while current is not None and current is not defined:
                    current = owner.parents.get(current)
                return current is defined
            return where.imports.get(node.id) == f"{owner.name}.{function.name}"
        if not isinstance(node, ast.Attribute):
            return False
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id in where.imports:
            return where.imports[receiver.id] == owner.name
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
            cls = _enclosing_class(function, owner.parents)
            return (
                where is owner and cls is not None and cls is _enclosing_class(node, where.parents)
            )
        same = [
            f for m in self.project.modules.values() for f in m.functions.get(function.name, [])
        ]
        return len(same) == 1  # obj.f(…): f only if the project has one function of that name

    def _own_method(
        self, module: _Module, func: ast.Attribute
    ) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
        cls = _enclosing_class(func, module.parents)
        if cls is None:
            return None
        for stmt in cls.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == func.attr:
                return stmt
        return None

    def _project_module(self, name: str) -> _Module | None:
        return self.project.by_name.get(name)


def _dtype_arguments(full: str, kind: object, call: ast.Call) -> list[ast.expr]:
    """The arguments of a call of a JAX table entry its result's dtype may depend on: all but
    those its kind ignores (``where``'s condition, ``take``'s indices, ``select``'s pred),
    matched to JAX's parameters by JAX's signature (all of them where it cannot be read)."""
    ignored = {p.name for p in getattr(kind, "params", ()) if p.ignored}
    names = _parameter_names(full)
    if not ignored or names is None or any(isinstance(a, ast.Starred) for a in call.args):
        return [*call.args, *(k.value for k in call.keywords)]
    positional = [a for a, name in zip(call.args, names, strict=False) if name not in ignored]
    return (
        positional
        + call.args[len(names) :]
        + [k.value for k in call.keywords if k.arg not in ignored]
    )


@functools.cache
def _parameter_names(full: str) -> tuple[str, ...] | None:
    """The names of a JAX function's positional parameters, in order (None if unreadable)."""
    module, _, name = full.rpartition(".")
    try:
        function = getattr(importlib.import_module(module), name)
        parameters = inspect.signature(function).parameters.values()
    except (ImportError, AttributeError, TypeError, ValueError):
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return None
    return tuple(p.name for p in parameters if p.kind in kinds)


def _literal(value: ast.expr) -> bool:
    """A display of constants, at any depth (``[[0, 1], [1, 0]]``): its length is written."""
    if isinstance(value, ast.List | ast.Tuple):
        return all(_literal(e) for e in value.elts)
    if isinstance(value, ast.UnaryOp):
        return _literal(value.operand)
    return isinstance(value, ast.Constant)


def _empty_list(value: ast.expr) -> bool:
    """``[]`` or ``list()``."""
    if isinstance(value, ast.List):
        return not value.elts
    return isinstance(value, ast.Call) and _called_name(value.func) == "list" and not value.args


def _binds_in(statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` (or one inside it, not in a nested function) binds ``name``."""
    for node in ast.walk(statement):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_binds(t, name) for t in targets):
                return True
    return False


def _binds(target: ast.expr, name: str) -> bool:
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, ast.Starred):
        return _binds(target.value, name)
    if isinstance(target, ast.Attribute):
        return dotted(target) == name
    if isinstance(target, ast.Tuple | ast.List):
        return any(_binds(e, name) for e in target.elts)
    return False


def _transformation(
    node: ast.AST, parents: Mapping[ast.AST, ast.AST]
) -> tuple[ast.Call, str] | None:
    """The call of a transformation ``node`` (a function) is an argument of, and its name."""
    call = parents.get(node)
    if isinstance(call, ast.keyword):
        call = parents.get(call)  # lax.fori_loop(0, n, body_fun=f, init_val=x)
    if not isinstance(call, ast.Call) or node is call.func:
        return None
    name = _called_name(call.func)
    return (call, name) if name in _TRANSFORMS else None


_APPLY_AT_ONCE: Final = frozenset(
    {"scan", "fori_loop", "while_loop", "cond", "switch", "map", "tree_map", "associative_scan"}
)
"""Transformations that call the function at once, with the arguments they are given."""


def _applied(where: _Module, node: ast.AST) -> bool:
    """Whether a transformation ``node`` is given to is applied in the project: a loop or a
    map calls it at once; ``jit(f)``, ``vmap(f)`` only where the result is called."""
    found = _transformation(node, where.parents)
    if found is None:
        return False
    call, name = found
    return name in _APPLY_AT_ONCE or bool(_calls_of(where, call))


def _fed_by_transformation(where: _Module, node: ast.AST, position: int | None) -> ast.expr | None:
    """The argument a transformation gives the parameter at ``position`` of the function ``node``
    names: ``vmap(f)(x)``'s ``x``, ``lax.scan(f, init, xs)``'s ``init`` or ``xs``,
    ``lax.fori_loop(lo, hi, f, init)``'s ``init``, ``lax.while_loop(c, f, init)``'s
    ``init``, ``jax.tree.map(f, tree)``'s ``tree``.  None where it cannot be read."""
    found = _transformation(node, where.parents)
    if found is None or position is None:
        return None
    call, name = found
    args = call.args

    def given(index: int, keyword: str) -> ast.expr | None:
        if index < len(args):
            starred = any(isinstance(a, ast.Starred) for a in args[: index + 1])
            return None if starred else args[index]
        return next((k.value for k in call.keywords if k.arg == keyword), None)

    if name == "scan" and args and args[0] is node:
        return given(position + 1, ("init", "xs")[position]) if position < 2 else None
    if name == "fori_loop" and given(2, "body_fun") is node:
        return given(3, "init_val") if position == 1 else None
    if name in ("cond", "switch") and len(args) >= 3 and node in args[1:3]:
        return args[3 + position] if len(args) > 3 + position else None
    if name == "while_loop" and node in (given(0, "cond_fun"), given(1, "body_fun")):
        return given(2, "init_val") if position == 0 else None
    if name in ("map", "tree_map") and args and args[0] is node and len(args) > position + 1:
        return args[position + 1]
    if not args or args[0] is not node:
        return None
    for outer in _calls_of(where, call):
        if position < len(outer.args) and not any(
            isinstance(a, ast.Starred) for a in outer.args[: position + 1]
        ):
            return outer.args[position]
    return None


def _calls_of(where: _Module, function: ast.expr) -> list[ast.Call]:
    """The calls of a function value: ``vmap(f)(x)``, or ``g(x)`` after ``g = vmap(f)`` in the
    same scope."""
    outer = where.parents.get(function)
    if isinstance(outer, ast.Call) and outer.func is function:
        return [outer]
    if not (
        isinstance(outer, ast.Assign)
        and len(outer.targets) == 1
        and isinstance(outer.targets[0], ast.Name)
    ):
        return []
    bound = outer.targets[0].id
    scope = _scope_of(outer, where.parents)
    return [
        use
        for use in ast.walk(scope)
        if isinstance(use, ast.Call)
        and isinstance(use.func, ast.Name)
        and use.func.id == bound
        and _scope_of(use, where.parents) is scope
    ]


def _is_partial(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call) and _called_name(node.func) == "partial"


def _through_partial(where: _Module, node: ast.AST) -> list[tuple[_Module, ast.AST]]:
    """A function's use, or where ``partial(f, …)`` stands for it: the partial itself
    (``grad(partial(f, k=1))``) and the uses of a name bound to it (``g = partial(f, …)``,
    then ``grad(g)``)."""
    call = where.parents.get(node)
    if not (_is_partial(call) and isinstance(call, ast.Call) and call.args[:1] == [node]):
        return [(where, node)]
    found: list[tuple[_Module, ast.AST]] = [(where, call)]
    statement = where.parents.get(call)
    if (
        isinstance(statement, ast.Assign)
        and len(statement.targets) == 1
        and isinstance(statement.targets[0], ast.Name)
    ):
        bound = statement.targets[0].id
        scope = _scope_of(statement, where.parents)
        found += [
            (where, use)
            for use in ast.walk(scope)
            if isinstance(use, ast.Name)
            and use.id == bound
            and isinstance(use.ctx, ast.Load)
            and _scope_of(use, where.parents) is scope
        ]
    return found


def _partial_shift(node: ast.AST, where: _Module) -> int:
    """How many positional arguments a ``partial`` standing for the function gives it."""
    call = node if _is_partial(node) else None
    if call is None and isinstance(node, ast.Name):
        statement = next(
            (
                s
                for s in ast.walk(_scope_of(node, where.parents))
                if isinstance(s, ast.Assign)
                and len(s.targets) == 1
                and isinstance(s.targets[0], ast.Name)
                and s.targets[0].id == node.id
                and _is_partial(s.value)
            ),
            None,
        )
        call = None if statement is None else statement.value
    return len(call.args) - 1 if isinstance(call, ast.Call) else 0


def _slices(node: ast.AST, where: _Module) -> bool:
    """Whether the transformation gives the function slices of its argument (scan's ``xs``,
    vmap's batch)."""
    found = _transformation(node, where.parents)
    return found is not None and found[1] in ("vmap", "pmap", "map", "tree_map")


def _maybe_array(module: _Module, node: ast.expr, classifier: _Classifier) -> bool:
    """Whether an argument of no unknown cause may be an array (not a constant, a string…)."""
    if isinstance(node, ast.Constant | ast.JoinedStr | ast.Lambda | ast.Dict | ast.Set):
        return False
    if isinstance(node, ast.Name):
        text = classifier.name_type(module, node)
        if text is not None and not _array_type(text) and not text.startswith(_CONTAINERS):
            return False
    return True


def _statement_line(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> int:
    """The first line of the statement ``node`` is part of."""
    current: ast.AST | None = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parents.get(current)
    return current.lineno if current is not None else getattr(node, "lineno", 0)


def _visible(sites: Sequence[tuple[int, ast.stmt]], use: int) -> int | None:
    """The line of the binding a use at statement line ``use`` reads (the latest before it;
    in a loop, the latest of all)."""
    if not sites:
        return None
    before = [line for line, _ in sites if line < use]
    return max(before) if before else max(line for line, _ in sites)


def _binding_scope(module: _Module, node: ast.Name) -> tuple[Scope, int] | None:
    """The scope whose variable (or parameter) ``node`` reads, and the line of the use as that
    scope sees it (``sys.maxsize`` from a nested function: after every binding)."""
    scope: Scope | None = _scope_of(node, module.parents)
    use = _statement_line(node, module.parents)
    while scope is not None:
        if module.bindings.get((scope, node.id)) or (
            isinstance(scope, FunctionNode) and node.id in _parameters(scope)
        ):
            return scope, use
        scope = None if isinstance(scope, ast.Module) else _scope_of(scope, module.parents)
        while isinstance(scope, ast.ClassDef):  # a method does not see its class's names
            scope = _scope_of(scope, module.parents)
        use = sys.maxsize
    return None


def _read(sites: Sequence[tuple[int, ast.stmt]], use: int) -> int | None:
    """The binding a use reads: in its own scope, the visible one; from an enclosing scope
    (``use`` is ``sys.maxsize``), the first, whose type mypy gives the variable."""
    if sites and use == sys.maxsize:
        return min(line for line, _ in sites)
    return _visible(sites, use)


def _comprehension_of(
    node: ast.Name, parents: Mapping[ast.AST, ast.AST]
) -> ast.comprehension | None:
    """The comprehension generator that binds ``node``'s name around it, if any."""
    current = parents.get(node)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            for generator in current.generators:
                if any(
                    n.id == node.id for n in ast.walk(generator.target) if isinstance(n, ast.Name)
                ):
                    return generator
        current = parents.get(current)
    return None


def _first(causes: Iterable[Cause | None]) -> Cause | None:
    """The first cause, a weak one only when no other part has a cause."""
    weak: Cause | None = None
    for cause in causes:
        if cause is not None and not cause.weak:
            return cause
        weak = weak or cause
    return weak


def _arguments(function: FunctionNode) -> list[ast.arg]:
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return every + [a for a in (arguments.vararg, arguments.kwarg) if a is not None]


def _parameters(function: FunctionNode) -> list[str]:
    return [a.arg for a in _arguments(function)]


def _function_name(function: FunctionNode) -> str:
    return "a lambda" if isinstance(function, ast.Lambda) else function.name


def _position(function: FunctionNode, name: str) -> int | None:
    positional = [*function.args.posonlyargs, *function.args.args]
    for index, arg in enumerate(positional):
        if arg.arg == name:
            return index
    return None


def _is_method(function: FunctionNode, module: _Module) -> bool:
    return isinstance(module.parents.get(function), ast.ClassDef) and bool(
        _parameters(function)[:1] and _parameters(function)[0] in ("self", "cls")
    )


def _argument(call: ast.Call, position: int | None, name: str, *, shift: int) -> ast.expr | None:
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position is None:
        return None
    index = position - shift
    if 0 <= index < len(call.args) and not any(
        isinstance(a, ast.Starred) for a in call.args[: index + 1]
    ):
        return call.args[index]
    return None


def _decorated(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = _called_name(target)
        if name in _TRANSFORMS:
            return True
    return False


def _enclosing_class(node: ast.AST, parents: Mapping[ast.AST, ast.AST]) -> ast.ClassDef | None:
    current = parents.get(node)
    while current is not None and not isinstance(current, ast.ClassDef):
        current = parents.get(current)
    return current


def typed_libraries(python: str, modules: Sequence[str]) -> dict[str, bool]:
    """Which top-level ``modules`` ship ``py.typed`` in ``python``'s environment."""
    script = (
        "import importlib.util, json, pathlib, sys\n"
        "out = {}\n"
        "for name in json.loads(sys.argv[1]):\n"
        "    typed = False\n"
        "    try:\n"
        "        spec = importlib.util.find_spec(name)\n"
        "    except (ImportError, ValueError):\n"
        "        spec = None\n"
        "    for location in (spec.submodule_search_locations or []) if spec else []:\n"
        "        typed = typed or (pathlib.Path(location) / 'py.typed').is_file()\n"
        "    out[name] = typed\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [python, "-c", script, json.dumps(sorted(set(modules)))],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        found: dict[str, bool] = json.loads(done.stdout)
    except json.JSONDecodeError:
        return {}
    return found


def classify(
    root: Path,
    types: Mapping[str, Mapping[Site, str]],
    *,
    python: str = sys.executable,
    only: Mapping[str, set[Site]] | None = None,
) -> dict[str, dict[Site, Cause]]:
    """Give each array-valued site of ``types`` without one dtype its cause (or each site of
    ``only`` without one dtype, whatever its type: ``Any`` where a program held arrays).

    Causes are followed recursively (a long chain of calls, a sum of 200 terms): the work
    runs in a thread of its own with a large stack and recursion limit, and a site deeper
    still is ``unexplained``."""
    found: dict[str, dict[Site, Cause]] = {}
    failed: list[BaseException] = []

    def work() -> None:
        try:
            found.update(_classify(root, types, python, only))
        except BaseException as exc:  # re-raised in the calling thread
            failed.append(exc)

    limit = sys.getrecursionlimit()
    stack = threading.stack_size(_STACK)
    sys.setrecursionlimit(max(limit, _RECURSION))
    try:
        thread = threading.Thread(target=work, name="primer-reasons")
        thread.start()
        thread.join()
    finally:
        sys.setrecursionlimit(limit)
        threading.stack_size(stack)
    if failed:
        raise failed[0]
    return found


_STACK: Final = 256 * 1024 * 1024
_RECURSION: Final = 40_000


def _classify(
    root: Path,
    types: Mapping[str, Mapping[Site, str]],
    python: str,
    only: Mapping[str, set[Site]] | None,
) -> dict[str, dict[Site, Cause]]:
    modules: dict[str, _Module] = {}
    for rel, by_site in types.items():
        module = _load(root, rel, by_site)
        if module is not None:
            modules[rel] = module
    libraries = {
        full.split(".")[0]
        for module in modules.values()
        for full in module.imports.values()
        if full and not full.startswith(".")
    }
    project = _Project(modules, {m.name: m for m in modules.values()}, {})
    own = {m.name.split(".")[0] for m in modules.values()}
    project.typed = typed_libraries(python, sorted(libraries - own))
    project.index()
    classifier = _Classifier(project)
    causes: dict[str, dict[Site, Cause]] = {}
    for rel, by_site in types.items():
        module = modules.get(rel)
        for site, text in by_site.items():
            wanted = _array_type(text) if only is None else site in only.get(rel, set())
            if not wanted or static_dtype(text) is not None:
                continue
            try:
                cause = None if module is None else classifier.site(module, site.line, site.name)
            except RecursionError:
                cause = Cause("unexplained", "too deep to follow")
            known = Cause("unexplained", "its value's parts are known")
            causes.setdefault(rel, {})[site] = cause or known
    return causes


def tally(causes: Mapping[str, Mapping[Site, Cause]]) -> dict[str, int]:
    """How many sites of each class, in :data:`REASONS`' order."""
    counted = Counter(c.key for by_site in causes.values() for c in by_site.values())
    return {key: counted[key] for key in REASONS if counted[key]}


def main(argv: Sequence[str] | None = None) -> int:
    """Classify a coverage run's untyped sites again from its cache (no mypy run)."""
    import argparse

    from tools.primer.sites import REVEALED

    parser = argparse.ArgumentParser(
        prog="python -m tools.primer.reasons",
        description="the reasons of a primer coverage run's untyped array sites, from its cache",
    )
    parser.add_argument("--cache", type=Path, required=True, help="the primer's --cache DIR")
    parser.add_argument("--sources", type=Path, required=True, help="the primer's --sources DIR")
    parser.add_argument("--python", default=sys.executable, help="the primer's environment")
    parser.add_argument("--gaps", action="store_true", help="list each gap site")
    parser.add_argument("project", nargs="+")
    args = parser.parse_args(argv)
    total: Counter[str] = Counter()
    for name in args.project:
        path = args.cache / name / REVEALED
        if not path.is_file():
            parser.error(f"{path}: no coverage run of {name} in this cache")
        data: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
        types = {
            rel: {Site(int(k.split(":", 1)[0]), k.split(":", 1)[1]): t for k, t in by.items()}
            for rel, by in data.items()
        }
        causes = classify(args.sources / name, types, python=args.python)
        counts = tally(causes)
        total.update(counts)
        texts = [t for by in types.values() for t in by.values() if _array_type(t)]
        typed = sum(static_dtype(t) is not None for t in texts)
        total.update({"(arrays)": len(texts), "(typed)": typed})
        reasons = " ".join(f"{key} {count}" for key, count in counts.items())
        print(f"{name}: {typed} of {len(texts)} array-valued sites typed; {reasons}")
        if args.gaps:
            for rel, by_site in sorted(causes.items()):
                for site, cause in sorted(by_site.items()):
                    if is_gap(cause.key):
                        print(f"  * {rel}:{site.line} {site.name}  <- {cause}")
    print(
        f"total: {total['(typed)']} of {total['(arrays)']} typed; "
        + " ".join(f"{key} {total[key]}" for key in REASONS if total[key])
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
