"""The function table's answers for the stubs: each function's dtype per operand dtype."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules import RuleSet
from typing_pkg.stubgen.jax.source_edit import all_args, find_arg

if TYPE_CHECKING:
    from typing_pkg.api.kinds import Kind

# ------------------------------------------------------------------ the table's answers


def concrete_markers() -> list[str]:
    return [name for name, marker in BY_NAME.items() if not marker.abstract and not marker.weak]


def _marker_name(found: object) -> str | None:
    name = getattr(found, "__name__", None)
    if isinstance(name, str) and name in BY_NAME and not BY_NAME[name].abstract:
        return name
    return None


def _operand_args(function: str, operand: str | None) -> tuple[object, ...]:
    """The table's positional arguments for ``operand`` as the function's array whose dtype
    matters (the first one not ignored), absent for None, ``bool_`` for those ignored."""
    from typing_pkg.api import table

    kind = table().get(function)
    if kind is None:
        return () if operand is None else (operand,)
    relevant = kind.reads()
    name = next((p.name for p in kind.params if p.name in relevant), None)
    return probe(kind, {} if operand is None or name is None else {name: operand})


def is_optional(function: str, name: str | None, fn: ast.FunctionDef) -> bool:
    """Whether parameter ``name`` of ``function`` may be absent: optional in the table
    (``weights?``) and in JAX's declaration ``fn`` (``where(c, x)`` is no call)."""
    from typing_pkg.api import table

    if name is None or find_arg(fn, name) is None or is_required(fn, name):
        return False
    kind = table().get(function)
    return kind is not None and any(p.name == name and p.optional for p in kind.params)


def _kind_of(function: str) -> object:
    """What the table's answers for ``function`` depend on: its kind (functions share kinds)."""
    from typing_pkg.api import table

    return table().get(function, function)


@dataclass
class Oracle:
    """The table's results under one rule set, cached."""

    rules: RuleSet
    cache: dict[tuple[object, ...], str | None] = field(default_factory=dict)
    typed: dict[str, str] = field(default_factory=dict)
    """How each function of the table is typed (a key of :data:`COVERAGE`)."""

    def result(
        self,
        function: str,
        operand: str | None,
        dtype: object = None,
        option: str = "dtype",
        others: tuple[tuple[str, object], ...] = (),
    ) -> str | None:
        """The result marker of ``function(operand, <option>=dtype, **others)``, None when not one
        marker (``option`` names the dtype option: ``dtype``, ``new_dtype``…)."""
        key = (_kind_of(function), operand, dtype, option, others)
        if key not in self.cache:
            from typing_pkg.api import result_dtype

            args = _operand_args(function, operand)
            options: dict[str, object] = dict(others)
            if dtype is not None:
                options[option] = dtype
            try:
                found: object = result_dtype(function, *args, rules=self.rules.name, **options)
            except (TypeError, ValueError, LookupError):
                found = None
            self.cache[key] = _marker_name(found)
        return self.cache[key]

    def call(self, function: str, args: tuple[object, ...]) -> str | None:
        """The result marker of ``function(*args)``, None when not one marker."""
        key = (_kind_of(function), "call", repr(args))
        if key not in self.cache:
            from typing_pkg.api import result_dtype

            try:
                found: object = result_dtype(function, *args, rules=self.rules.name)
            except (TypeError, ValueError, LookupError):
                found = None
            self.cache[key] = _marker_name(found)
        return self.cache[key]


def is_required(fn: ast.FunctionDef, name: str) -> bool:
    """Whether parameter ``name`` of ``fn`` has no default."""
    a = fn.args
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        if arg.arg == name:
            return default is None
    positional = [*a.posonlyargs, *a.args]
    names = [arg.arg for arg in positional]
    return name in names and names.index(name) < len(positional) - len(a.defaults)


_STANDS_FOR_KIND: Final = {
    "i": "int32",
    "u": "uint32",
    "b": "bool_",
    "f": "float32",
    "c": "complex64",
}
"""A dtype of each kind, for an ignored parameter that must be of some kinds (an index)."""


def probe(kind: Kind, values: Mapping[str, object]) -> tuple[object, ...]:
    """Positional arguments for the table: ``values`` by name, ``bool_`` where ignored (an
    integer where the kind requires one: ``take``'s indices)."""
    required = dict(kind.requires)
    args: list[object] = []
    for param in kind.params:
        if param.name in values:
            args.append(values[param.name])
        elif param.optional:
            break
        elif param.name in required:
            kinds = required[param.name]
            args.append(next(_STANDS_FOR_KIND[k] for k in "iubfc" if k in kinds))
        else:
            args.append("bool_")
    return tuple(args)


def operand_params(kind: Kind, fn: ast.FunctionDef) -> list[str] | None:
    """The array parameters of ``fn`` whose dtype matters, or None if the kind has none listed."""
    present = {arg.arg for arg in all_args(fn)}
    if fn.args.vararg is not None:
        present.add(fn.args.vararg.arg)
    relevant = kind.reads()
    found: list[str] = []
    for param in kind.params:
        if param.name not in relevant:
            continue
        if param.name in present:
            if param.sequence:
                return None  # a sequence of arrays: not enumerated
            found.append(param.name)
        elif not param.optional:
            return None
    return found


def sequence_param(kind: Kind, fn: ast.FunctionDef) -> str | None:
    """The one array parameter of ``fn`` whose dtype matters if it is a sequence (not ``*args``)."""
    params = [p for p in kind.params if not p.ignored and not p.constant]
    names = {arg.arg for arg in all_args(fn)}
    if len(params) == 1 and params[0].sequence and params[0].name in names:
        return params[0].name
    return None
