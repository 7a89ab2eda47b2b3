"""The function modules (``jax.numpy``, ``jax.random``, ``jax.nn``, ``jax.lax``), re-exports."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from typing_pkg.api import namespaces
from typing_pkg.dtypes import BY_NAME
from typing_pkg.stubgen.jax.array_class import IMPORTS
from typing_pkg.stubgen.jax.functions import overloads_for, rewrite_functions
from typing_pkg.stubgen.jax.oracle import Oracle, operand_params
from typing_pkg.stubgen.jax.source_edit import (
    Qualify,
    SourceModule,
    all_args,
    decorate,
    insert_after_imports,
    module_names,
    name_of,
    parse_expr,
    source_module,
)
from typing_pkg.stubgen.jax.transforms import declaration


def _scalar_objects(tree: ast.Module, oracle: Oracle) -> None:
    """``float32: Any`` → ``float32: _ScalarMeta[_tpd.float32]`` (the canonical dtype)."""
    import numpy as np

    for stmt in tree.body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            continue
        if name_of(stmt.annotation) != "Any":
            continue
        name = stmt.target.id
        try:
            import jax.numpy as jnp

            dtype = np.dtype(getattr(jnp, name)).name
        except (TypeError, AttributeError, ImportError):
            continue
        marker = "bool_" if dtype == "bool" else dtype
        if marker not in BY_NAME:
            continue
        canonical = oracle.result("jax.Array.astype", "float32", marker)
        if canonical is not None:
            stmt.annotation = parse_expr(f"_ScalarMeta[_tpd.{canonical}]")


def _rewrite_ufuncs(
    body: list[ast.stmt], prefix: str, oracle: Oracle, module: SourceModule
) -> list[ast.stmt]:
    """``maximum: BinaryUfunc`` → a subclass of ``BinaryUfunc`` whose ``__call__`` has overloads.

    The ufunc object keeps its methods (``jnp.maximum.reduce``); calling it
    reads the dtypes as the function of the table does.
    """
    from typing_pkg.api import table

    entries = table()
    calls: dict[str, ast.FunctionDef] = {}
    for stmt in body:
        if isinstance(stmt, ast.ClassDef):
            for item in stmt.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__call__":
                    calls[stmt.name] = item
    out: list[ast.stmt] = []
    for stmt in body:
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)):
            out.append(stmt)
            continue
        base, name = name_of(stmt.annotation), stmt.target.id
        kind = entries.get(prefix + name)
        call = calls.get(base)
        operands = operand_params(kind, call) if kind is not None and call is not None else None
        extra: list[ast.FunctionDef] = []
        if call is not None and operands:
            extra = overloads_for(prefix + name, operands, call, oracle, module)
        if call is None or not extra:
            out.append(stmt)
            continue
        cls_name = f"_Ufunc_{name}"
        cls = ast.parse(f"class {cls_name}({base}): ...").body[0]
        assert isinstance(cls, ast.ClassDef)
        cls.body = [*extra, decorate(call)]
        out += [cls, ast.AnnAssign(ast.Name(name), ast.Name(cls_name), None, simple=1)]
    return out


def functions_module(source: str, prefix: str, oracle: Oracle, scalars: bool = False) -> str:
    tree = ast.parse(source)
    module = SourceModule("Array")
    if scalars:
        _scalar_objects(tree, oracle)
    tree.body = rewrite_functions(tree.body, prefix, oracle, module)
    tree.body = _rewrite_ufuncs(tree.body, prefix, oracle, module)
    insert_after_imports(
        tree,
        IMPORTS + "from jax._src.basearray import Array, _ScalarMeta\n" + module.variables(),
    )
    return ast.unparse(tree) + "\n"


REEXPORTS: Final = (
    ("random.py", "jax.random."),
    ("lax/__init__.py", "jax.lax."),
    ("numpy/linalg.py", "jax.numpy.linalg."),
    ("numpy/fft.py", "jax.numpy.fft."),
    ("scipy/special.py", "jax.scipy.special."),
    *(
        (ns.prefix.removeprefix("jax.").removesuffix(".").replace(".", "/") + ".py", ns.prefix)
        for ns in namespaces()
        if ns.prefix.startswith(("jax.scipy.stats.", "jax.scipy.linalg."))
        and ns.prefix != "jax.scipy.stats."
    ),
)
"""JAX's modules that re-export functions of private modules (``.py``, no stub), and the
table's prefix of their functions."""


def _source_functions(tree: ast.Module) -> dict[str, list[ast.FunctionDef]]:
    """A module's declarations of each function: its overloads, else its one definition."""
    found: dict[str, list[ast.FunctionDef]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            found.setdefault(stmt.name, []).append(stmt)
    return {name: [f for f in defs if _overloaded(f)] or defs[-1:] for name, defs in found.items()}


def _overloaded(fn: ast.FunctionDef) -> bool:
    return any(
        name_of(d) in {"overload", "typing.overload", "_overload"} for d in fn.decorator_list
    )


def _returning_array(fn: ast.FunctionDef) -> ast.FunctionDef:
    """``fn`` declared to return an ``Array`` where JAX's source does not say (``lax.empty``): a
    stub's unannotated result is unknown, where pyright infers one from the source."""
    if fn.returns is None:
        fn.returns = ast.Name("Array")
    return fn


def _jitted_in_source(fn: ast.FunctionDef) -> bool:
    """Whether JAX's source decorates ``fn`` with ``jit`` (``@api.jit(static_argnames=...)``,
    ``@partial(jit, ...)``): JAX's types then say ``JitWrapped``, called with anything."""
    return any(_JIT_WORD.search(ast.unparse(d)) for d in fn.decorator_list)


_JIT_WORD: Final = re.compile(r"\bjit\b")


def _as_jitted(overloads: list[ast.stmt]) -> None:
    """The overloads of a function JAX jits, accepting what JAX's ``JitWrapped`` accepts.

    JAX's own types hide the source's signature (``norm(x, ord: int | str |
    None)`` is called with ``ord=jnp.inf``) and answer what ``JitWrapped``'s
    unannotated ``__call__`` does, pyright's ``Unknown``: a parameter that
    chooses no overload (declared alike in every overload: ``ord``,
    ``axis``) takes anything; the arrays of a known dtype returned are
    ``InferredArray`` arrays (accepted wherever ``Any`` is: ``return
    jnp.linalg.norm(x)`` from a function declared ``-> float``); an array of
    unknown dtype is ``Unknown`` as in JAX's types (``vdot(x, y) / norm(x)``
    is then unknown, not an ``Array`` refused as a ``float``; an explicit
    ``Any`` would differ: pyright narrows a declared ``Optional`` variable
    assigned ``Any | Array`` to the declaration, ``None`` included).  The
    parameters that choose an overload (the arrays, the dtype, the Python
    scalars) keep their types; JAX's own declaration, last, takes anything
    and answers ``Unknown`` (``norm(pair)`` of a union JAX's ``ArrayLike``
    does not hold).
    """
    functions = [s for s in overloads if isinstance(s, ast.FunctionDef)]
    declared: dict[str, set[str]] = {}
    for fn in functions:
        for arg in [*all_args(fn), fn.args.vararg, fn.args.kwarg]:
            if arg is not None:
                text = "" if arg.annotation is None else ast.unparse(arg.annotation)
                declared.setdefault(arg.arg, set()).add(text)
    alike = {name for name, texts in declared.items() if len(texts) == 1}
    for index, fn in enumerate(functions):
        last = index == len(functions) - 1  # JAX's declaration: JitWrapped takes anything
        for arg in [*all_args(fn), fn.args.vararg, fn.args.kwarg]:
            if arg is not None and (last or arg.arg in alike):
                arg.annotation = parse_expr("_Any")
        if last or (fn.returns is not None and ast.unparse(fn.returns) == "Array[_Any]"):
            fn.returns = None  # JitWrapped.__call__ is unannotated: pyright's Unknown
        elif fn.returns is not None:
            fn.returns = _InferredResult().visit(fn.returns)


class _InferredResult(ast.NodeTransformer):
    """``Array[X]`` in a result → ``InferredArray[X]`` (``jax._src.inferred.Array``)."""

    def visit_Name(self, node: ast.Name) -> ast.expr:
        return ast.Name("InferredArray") if node.id == "Array" else node


def reexports(root: Path, rel: str, prefix: str, oracle: Oracle) -> str:
    """``jax/<rel>.pyi`` (``jax/random.pyi``…): JAX's re-exports, then the functions of the
    table with overloads.

    The module re-exports functions of private modules; each function of the
    table is declared again (the last declaration wins) from its source's
    declarations (its overloads if it has some), its annotations qualified by
    the private module (an ``Array`` result where the source has no
    annotation), when the table gives it overloads.  A stub replaces
    the module, so it keeps every import of it (nothing else in these modules
    is public).
    """
    public = ast.parse((root / rel).read_text(encoding="utf-8"))
    keep: list[ast.stmt] = []
    body: list[ast.stmt] = []
    aliases: dict[str, str] = {}  # private module → its alias in the stub
    sources = _Sources(root)
    module = SourceModule("Array")
    for stmt in public.body:
        if not isinstance(stmt, ast.Import | ast.ImportFrom):
            continue
        keep.append(stmt)
        if not (isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("jax._src")):
            continue
        for imported in stmt.names:
            if (imported.asname or imported.name) != imported.name:
                continue
            found = sources.declarations(stmt.module or "", imported.name)
            if found is None:
                continue
            where, fns = found
            alias = aliases.get(where, f"_src{len(aliases)}")
            qualify = Qualify({name: f"{alias}.{name}" for name in sources.names(where)})
            module.type_variables |= {f"{alias}.{t}" for t in sources.type_variables(where)}
            stubs: list[ast.stmt] = [_returning_array(declaration(fn, qualify, [])) for fn in fns]
            rewritten = rewrite_functions(stubs, prefix, oracle, module)
            if len(rewritten) > len(stubs):
                aliases[where] = alias
                if any(_jitted_in_source(fn) for fn in fns):
                    _as_jitted(rewritten)
                body.extend(rewritten)
    tree = ast.Module(body=[*keep, *body], type_ignores=[])
    insert_after_imports(
        tree,
        IMPORTS
        + "".join(f"import {where} as {alias}\n" for where, alias in aliases.items())
        + "from jax._src.basearray import Array, _ScalarMeta\n"
        + "from jax._src.inferred import Array as InferredArray\n"
        + module.variables(),
    )
    return ast.unparse(tree) + "\n"


@dataclass
class _Sources:
    """JAX's private modules, read once: where a function is declared, following re-exports
    (``jax._src.lax.control_flow`` re-exports ``cumsum`` from its ``loops``)."""

    root: Path
    trees: dict[str, ast.Module | None] = field(default_factory=dict)

    def tree(self, module: str) -> ast.Module | None:
        if module not in self.trees:
            path = source_module(self.root, module)
            self.trees[module] = (
                ast.parse(path.read_text(encoding="utf-8")) if path.is_file() else None
            )
        return self.trees[module]

    def names(self, module: str) -> set[str]:
        tree = self.tree(module)
        return module_names(tree)[0] if tree is not None else set()

    def type_variables(self, module: str) -> set[str]:
        """The names ``module`` binds to a ``TypeVar(...)`` (``T = TypeVar("T")``)."""
        tree = self.tree(module)
        return {
            target.id
            for stmt in (tree.body if tree is not None else [])
            if isinstance(stmt, ast.Assign)
            and isinstance(stmt.value, ast.Call)
            and name_of(stmt.value.func) in {"TypeVar", "typing.TypeVar"}
            for target in stmt.targets
            if isinstance(target, ast.Name)
        }

    def declarations(
        self, module: str, name: str, depth: int = 3
    ) -> tuple[str, list[ast.FunctionDef]] | None:
        """The module declaring function ``name`` imported from ``module``, and its declarations."""
        tree = self.tree(module)
        if tree is None or depth == 0:
            return None
        functions = _source_functions(tree)
        if name in functions:
            return module, functions[name]
        package = module if source_module(self.root, module).name == "__init__.py" else ""
        package = package or module.rpartition(".")[0]
        for stmt in tree.body:
            if not isinstance(stmt, ast.ImportFrom):
                continue
            if not any((a.asname or a.name) == name == a.name for a in stmt.names):
                continue
            base = package.split(".")[: len(package.split(".")) - max(stmt.level - 1, 0)]
            source = ".".join([*base, stmt.module or ""]) if stmt.level else stmt.module or ""
            return self.declarations(source.strip("."), name, depth - 1)
        return None
