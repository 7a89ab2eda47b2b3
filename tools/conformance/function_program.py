"""The function truth as a program: every cell the call real JAX code writes.

:func:`program` turns the cells of ``truth/api/<rules>.csv`` into one Python
module for a type checker with the plugin: one ``def`` per JAX function
(``def f12_jax_numpy_mean(x_int8: Array[int8], …) -> None:``), whose
parameters are the cells' operands, and one ``reveal_type`` per cell::

    reveal_type(jnp.mean(x_int8))
    reveal_type(jnp.zeros((2,), dtype=jnp.bfloat16))
    reveal_type(x_float16.astype("int8"))
    reveal_type(jax.random.normal(key, (2,), dtype=float))
    reveal_type(jnp.frexp(x_float32)[1])

Each call is the one :mod:`tools.conformance.functions` made to record the
cell (the same recipe: required non-array arguments, shapes aside; the same
binding of arguments to JAX's signature, positional or by keyword), written
as source:

* an array operand is a parameter annotated ``Array[<marker>]``
  (``Array[weak_float]`` for JAX's weakly typed arrays), a Python scalar a
  parameter annotated ``bool``, ``int``, ``float`` or ``complex``, a
  sequence a list of them;
* the function as users spell it: ``jnp.mean``, ``jnp.linalg.det``,
  ``jax.random.normal``, ``jax.nn.softmax``, ``lax.add``, a method on its
  array (``x.sum()``), an attribute (``x.T``), an indexed update
  (``x.at[0].set(1)``);
* an option as the truth records it: ``dtype=float32`` is ``jnp.float32``
  (typing_pkg's marker where ``jax.numpy`` has no such name),
  ``dtype='float32'`` the string, ``dtype=float`` the Python type,
  ``promote_integers=False`` the literal;
* the helper values of the recipes: integer and boolean index arrays
  (``Array[int32]``, ``Array[bool_]`` parameters), a PRNG key (a ``jax.Array``
  parameter), ``jnp.triu``, a device.

For the checkers that read the JAX stubs (``python -m typing_pkg stubs
--jax``: basedpyright, pyrefly, ty) ``program(..., stubs=True)`` writes the
same calls with ``jax.Array``, generic in the stubs, as ``Array`` (an
``Array[int8]`` parameter is then a JAX array of that dtype), and imports
``reveal_type`` from ``typing`` (pyrefly and ty want it imported).

Reading the signatures (positional-only parameters, ``*args``) imports JAX.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Final

from tools.conformance.function_compare import call_of
from tools.conformance.functions import (
    _BY_NAME,  # pyright: ignore[reportPrivateUsage]
    DTYPE_OPTIONS,
    RECIPES,
    Recipe,
    _array_params,  # pyright: ignore[reportPrivateUsage]
    _bind,  # pyright: ignore[reportPrivateUsage]
    _missing,  # pyright: ignore[reportPrivateUsage]
    _positional_names,  # pyright: ignore[reportPrivateUsage]
)
from tools.conformance.truthfile import Cell
from typing_pkg.api import table
from typing_pkg.api.kinds import Kind, flags
from typing_pkg.rules import PY_SCALARS

__all__ = ["Program", "call_source", "program"]

_PY_SCALAR_TYPES: Final = {
    "py_bool": "bool",
    "py_int": "int",
    "py_float": "float",
    "py_complex": "complex",
}
_HELPERS: Final[Mapping[str, tuple[str, str]]] = {
    # helper value of a recipe → (parameter name, annotation)
    "key": ("key", "jax.Array"),
    "raw_key": ("raw_key", "jax.Array"),
    "bools": ("bools", "Array[bool_]"),
    "bools1": ("bools1", "Array[bool_]"),
    "ints": ("ints", "Array[int32]"),
    "ints1": ("ints1", "Array[int32]"),
    "int_scalar": ("int_scalar", "Array[int32]"),
    "floats": ("floats", "Array[float32]"),
    "floats1": ("floats1", "Array[float32]"),
    "floats3": ("floats3", "Array[float32]"),
    "scale": ("scale", "Array[float32]"),
}
_SUBSCRIPTS: Final = '"ij,jk->ik"'
_CONSTANTS: Final = {"triu": "jnp.triu", "device": "jax.devices()[0]"}
_SPELLINGS: Final = (
    ("jax.numpy.", "jnp."),
    ("jax.lax.", "lax."),
    ("jax.random.", "jax.random."),
    ("jax.nn.", "jax.nn."),
    ("jax.scipy.special.", "jax.scipy.special."),
    ("jax.scipy.stats.", "jax.scipy.stats."),
    ("jax.scipy.linalg.", "jax.scipy.linalg."),
    ("jax.experimental.pallas.", "pl."),
)


def _base(op: str) -> str:
    return op.partition("[")[0]


def _index(op: str) -> str:
    _, bracket, rest = op.partition("[")
    return f"[{rest}" if bracket else ""


# ------------------------------------------------------------------ signatures


@cache
def _jax() -> Any:
    import importlib

    jax = importlib.import_module("jax")
    for module in ("jax.numpy.fft", "jax.numpy.linalg"):
        importlib.import_module(module)
    return jax


@cache
def _signature(name: str) -> inspect.Signature | None:
    """JAX's signature of ``name`` (a method's with ``self``), as the recorder read it."""
    import importlib

    jax = _jax()
    if name.startswith("jax.Array."):
        member = getattr(jax.Array, name.removeprefix("jax.Array."), None)
        return inspect.signature(member) if callable(member) else inspect.Signature()
    module, _, attribute = name.rpartition(".")
    try:
        return inspect.signature(getattr(importlib.import_module(module), attribute))
    except (TypeError, ValueError):
        return None


@cache
def _jnp_names() -> frozenset[str]:
    """The names ``jax.numpy``'s stub declares (what a type checker sees, not ``__getattr__``)."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec("jax.numpy")
    assert spec is not None and spec.origin is not None
    tree = ast.parse(Path(spec.origin).with_suffix(".pyi").read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.add(node.target.id)
        elif isinstance(node, ast.Assign):
            found.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom | ast.Import):
            found.update(a.asname or a.name for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            found.add(node.name)
    return frozenset(found)


# ------------------------------------------------------------------ values as source


@dataclass
class _Names:
    """The parameters a group's calls use: name → annotation, and the markers to import."""

    params: dict[str, str] = field(default_factory=dict[str, str])
    markers: set[str] = field(default_factory=set[str])

    def operand(self, name: str) -> str:
        if name in PY_SCALARS:
            self.params[name] = _PY_SCALAR_TYPES[name]
            return name
        self.markers.add(name)
        self.params[f"x_{name}"] = f"Array[{name}]"
        return f"x_{name}"

    def helper(self, name: str) -> str:
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        param, annotation = _HELPERS[name]
        self.params[param] = annotation
        self.markers.update(m for m in ("bool_", "int32", "float32") if f"[{m}]" in annotation)
        return param


def _literal(names: _Names, value: object) -> str:
    """A recipe's value as source (``"@ints1"`` a helper parameter)."""
    if isinstance(value, str) and value.startswith("@"):
        return names.helper(value[1:])
    if isinstance(value, list):
        return "[" + ", ".join(_literal(names, v) for v in value) + "]"  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, tuple):
        items = [_literal(names, v) for v in value]  # pyright: ignore[reportUnknownVariableType]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return repr(value)


def _option(names: _Names, text: str) -> str:
    """An option as the truth records it, as source."""
    if text in ("True", "False") or text in _PY_SCALAR_TYPES.values():
        return text
    if text.startswith("'"):
        name = text.strip("'")
        return repr("bool" if name == "bool_" else name)
    if text in _jnp_names():
        return f"jnp.{text}"
    names.markers.add(text)
    return text  # typing_pkg's marker: jax.numpy's stub has no such name


def _options(names: _Names, cell: Cell) -> dict[str, str]:
    found: dict[str, str] = {}
    for item in cell.right.split():
        option, _, value = item.partition("=")
        found[option] = _option(names, value)
    return found


def _render(value: str | list[str]) -> str:
    return value if isinstance(value, str) else "[" + ", ".join(value) + "]"


def _arguments(args: Sequence[str | list[str]], kwargs: Mapping[str, str | list[str]]) -> str:
    return ", ".join([*map(_render, args), *(f"{k}={_render(v)}" for k, v in kwargs.items())])


def _spelt(name: str) -> str:
    for prefix, spelling in _SPELLINGS:
        if name.startswith(prefix):
            return spelling + name[len(prefix) :]
    raise ValueError(f"no spelling for {name!r}")  # pragma: no cover - every table prefix


# ------------------------------------------------------------------ custom calls

_Values = dict[str, str | list[str]]
"""Arguments as source: an expression, or a list's items."""
_Custom = Callable[[_Values, dict[str, str], dict[str, str]], str]
"""A recipe's call as source, from the arrays, the extra arguments and the options."""


def _where(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
    arrays = [_render(v) for k, v in values.items() if k != "condition"]
    if not arrays:
        return f"jnp.where({extra['condition']}, size=2)"
    return f"jnp.where({', '.join([extra['condition'], *arrays])})"


def _einsum(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
    operands = next(iter(values.values()))
    items = operands if isinstance(operands, list) else [operands]
    return f"jnp.einsum({_arguments([_SUBSCRIPTS, *items], opts)})"


def _at(method: str) -> _Custom:
    def call(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
        x = _render(values["self"])
        if method == "get":
            return f"{x}.at[0].get({_arguments([], opts)})"
        if method == "apply":
            return f"{x}.at[0].apply(lambda v: v)"
        return f"{x}.at[0].{method}({_arguments([values.get('values', '1')], opts)})"

    return call


def _attribute(name: str) -> _Custom:
    def call(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
        return f"{_render(values['self'])}.{name}"

    return call


def _in_kernel(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
    return "pl.program_id(0)"  # called in a kernel when recorded: its type is the call's


def _choose(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
    choices = _render(next(v for k, v in values.items() if k != "self"))
    return f'{extra["self"]}.choose({choices}, mode="clip")'


def _reshape(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
    return f"{_render(values['self'])}.reshape({_arguments(['4'], opts)})"


def _view(values: _Values, extra: dict[str, str], opts: dict[str, str]) -> str:
    dtype = [opts["dtype"]] if "dtype" in opts else []
    return f"{_render(values['self'])}.view({_arguments(dtype, {})})"


_CUSTOM: Final[Mapping[str, _Custom]] = {
    "jax.numpy.where": _where,
    "jax.numpy.einsum": _einsum,
    "jax.Array.T": _attribute("T"),
    "jax.Array.mT": _attribute("mT"),
    "jax.Array.real": _attribute("real"),
    "jax.Array.imag": _attribute("imag"),
    "jax.Array.choose": _choose,
    "jax.Array.reshape": _reshape,
    "jax.Array.view": _view,
    "jax.experimental.pallas.program_id": _in_kernel,
    **{f"jax.Array.at.{m}": _at(m) for m in ("set", "add", "subtract", "mul", "multiply")},
    **{f"jax.Array.at.{m}": _at(m) for m in ("divide", "power", "min", "max", "get", "apply")},
}
"""The recipes' own calls (``Recipe.call``), as source."""


# ------------------------------------------------------------------ one call


def call_source(kind: Kind, cell: Cell, names: _Names | None = None) -> str:
    """Return the expression of one cell: the call, and ``[i]`` for the i-th output."""
    names = _Names() if names is None else names
    name = _base(cell.op)
    recipe = RECIPES.get(name, Recipe())
    call = call_of(kind, cell)
    values: dict[str, str | list[str]] = {
        param: [names.operand(v) for v in value]
        if isinstance(value, tuple)
        else names.operand(value)
        for param, value in call.args.items()
    }
    extra = {k: _literal(names, v) for k, v in recipe.extra.items() if k not in values}
    opts = _options(names, cell)
    for flag, values_of_flag in flags(kind).items():
        # every flag given (its default too): JAX's overloads require some (hessenberg's calc_q)
        opts.setdefault(flag, repr(values_of_flag[0]))
    custom = _CUSTOM.get(name)
    if custom is not None:
        return custom(values, extra, opts) + _index(cell.op)
    signature = _signature(name)
    order = [p.name for p in _array_params(kind) if p.name in values or p.name in extra]
    arguments: dict[str, str | list[str]] = {**values, **{p: extra[p] for p in order if p in extra}}
    keywords = {k: v for k, v in extra.items() if k not in order}
    args, kwargs = _bind(signature, order, arguments, {**keywords, **opts})
    given = {*kwargs, *_positional_names(signature, len(args))}
    for p in _missing(signature, given):
        kwargs[p] = _literal(names, _BY_NAME[p])
    args, kwargs = _leading_positionals(signature, args, kwargs, _required(kind, signature))
    if name.startswith("jax.Array."):
        receiver, *rest = args
        method = name.removeprefix("jax.Array.")
        return f"{_render(receiver)}.{method}({_arguments(rest, kwargs)}){_index(cell.op)}"
    return f"{_spelt(name)}({_arguments(args, kwargs)}){_index(cell.op)}"


def _required(kind: Kind, signature: inspect.Signature | None) -> set[str]:
    """The options a call must give (``astype``'s ``dtype``): users pass them by position."""
    if signature is None:
        return set()
    return {
        o
        for o in kind.options
        if o in signature.parameters and signature.parameters[o].default is inspect.Parameter.empty
    }


def _leading_positionals(
    signature: inspect.Signature | None,
    args: list[str | list[str]],
    kwargs: dict[str, str | list[str]],
    required: set[str],
) -> tuple[list[str | list[str]], dict[str, str | list[str]]]:
    """Pass by position the keywords that continue the positional arguments, as users do.

    ``jnp.mean(x)``, not ``jnp.mean(a=x)``; ``jnp.zeros((2,), dtype=jnp.int8)``,
    ``x.astype(jnp.int8)``: an option stays a keyword unless the call requires it.
    """
    if signature is None:
        return args, kwargs
    params = list(signature.parameters.values())
    moved = list(args)
    rest = dict(kwargs)
    for p in params[len(args) :]:
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name not in rest:
            break
        if p.name in DTYPE_OPTIONS | {"promote_integers"} and p.name not in required:
            break
        moved.append(rest.pop(p.name))
    return moved, rest


# ------------------------------------------------------------------ the program


@dataclass
class Program:
    """A generated program and, per line of a ``reveal_type``, the cells it stands for."""

    text: str
    cells: dict[int, list[Cell]]

    @property
    def lines(self) -> int:
        """The number of ``reveal_type`` lines (cells generating the same line share one)."""
        return len(self.cells)


def program(
    rules: str,
    cells: Sequence[Cell],
    kinds: Mapping[str, Kind] | None = None,
    *,
    stubs: bool = False,
) -> Program:
    """Return the program of ``cells``: one function per JAX function, one line per call.

    Cells whose calls are the same source line (in the same function) share
    the line.  ``stubs``: the program for the JAX stubs, ``Array`` is
    ``jax.Array`` (see the module docs).
    """
    found = table() if kinds is None else kinds
    groups: dict[str, list[Cell]] = {}
    for cell in cells:
        groups.setdefault(_base(cell.op), []).append(cell)
    header = [
        f"# Generated by tools/conformance/function_program.py for the {rules!r} rules"
        f"{' (for the JAX stubs)' if stubs else ''}: do not edit.",
        "# ruff: noqa",
        "import jax",
        "import jax.numpy as jnp",
        "import jax.scipy.special",
        "import jax.scipy.stats",
        "import jax.scipy.linalg",
        "from jax import lax",
        "from jax.experimental import pallas as pl",
        *(
            ["from typing import reveal_type", "from jax import Array"]
            if stubs
            else ["from typing_pkg.typing import Array"]
        ),
    ]
    body: list[str] = []
    markers: set[str] = set()
    pending: list[tuple[int, list[Cell]]] = []  # body line index → cells
    for number, (name, group) in enumerate(groups.items()):
        kind = found[name]
        names = _Names()
        lines: dict[str, list[Cell]] = {}
        for cell in group:
            lines.setdefault(call_source(kind, cell, names), []).append(cell)
        markers |= names.markers
        params = ", ".join(f"{p}: {a}" for p, a in names.params.items())
        body += ["", "", f"def f{number}_{name.replace('.', '_')}({params}) -> None:"]
        for source, shared in lines.items():
            pending.append((len(body), shared))
            body.append(f"    reveal_type({source})")
    header.append(f"from typing_pkg.dtypes import {', '.join(sorted(markers))}")
    first = len(header) + 1
    text = "\n".join([*header, *body]) + "\n"
    return Program(text, {first + index: shared for index, shared in pending})
