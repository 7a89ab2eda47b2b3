"""Overloads by dtype: a function's one array operand, its dtype option, given values."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar

from typing_pkg.dtypes import BY_NAME
from typing_pkg.stubgen.jax.oracle import (
    Oracle,
    concrete_markers,
    is_optional,
    probe,
)
from typing_pkg.stubgen.jax.source_edit import (
    SourceModule,
    all_args,
    find_arg,
    numpy_type_of,
    signature_of,
)

SCALAR_TYPES: Final = (
    ("py_bool", "_builtins.bool"),
    ("py_int", "_builtins.int"),
    ("py_float", "_builtins.float"),
    ("py_complex", "_builtins.complex"),
)
"""Python scalar kinds and their types, narrowest first (a checker accepts a bool as an int)."""
_PY_DTYPES: Final = (("bool", bool), ("int", int), ("float", float), ("complex", complex))
_T = TypeVar("_T")


def by_result(pairs: Iterable[tuple[_T, str | None]]) -> dict[str | None, list[_T]]:
    groups: dict[str | None, list[_T]] = {}
    for operand, result in pairs:
        groups.setdefault(result, []).append(operand)
    return groups


def _operand_types(oracle: Oracle, operand: str | None, optional: bool) -> list[str | None]:
    """What the array parameter ``operand`` may be: every dtype, a Python scalar (not ``self``),
    absent (None) when ``optional``."""
    if operand is None:
        return [None]
    found: list[str | None] = [*oracle.rules.types, *dict(oracle.rules.canonical)]
    if operand != "self":
        found += [kind for kind, _ in SCALAR_TYPES]
    return [*found, None] if optional else found


def _operand_annotation(
    group: Iterable[str | None], every: Sequence[str | None], module: SourceModule
) -> str | None:
    """The array parameter's annotation for the operands ``group``: None for all of them (JAX's
    own), "" for none that can be said.

    A Python scalar kind is said only with the narrower ones (a checker
    takes a ``bool`` for an ``int``, an ``int`` for a ``float``).
    """
    chosen = set(group)
    if chosen >= set(every):
        return None
    arrays = [t for t in every if t in chosen and t is not None and not t.startswith("py_")]
    scalars: list[str] = []
    for kind, py_type in SCALAR_TYPES:
        if kind not in chosen:
            break
        scalars.append(py_type)
    absent = ["None"] if None in chosen and every != [None] else []
    return " | ".join([module.arrays(arrays)] * bool(arrays) + scalars + absent)


@dataclass
class _Overloads:
    """Overloads by ``(annotation of the array parameter, result)``, their dtype forms merged."""

    fn: ast.FunctionDef
    option: str
    operand: str | None
    every: Sequence[str | None]
    module: SourceModule
    fixed: dict[str, str] = field(default_factory=dict)
    """Other parameters' annotations, in every overload."""
    entries: dict[tuple[str | None, str], list[str]] = field(default_factory=dict)

    def add(
        self, form: str, group: Iterable[str | None], result: str | None, block: bool = False
    ) -> None:
        """``option=<form>`` with an operand of ``group`` gives ``result``; None: say nothing, or
        with ``block``, ``Array[Any]`` (so that a later overload does not match)."""
        annotation = _operand_annotation(group, self.every, self.module)
        if result is None and block:
            result = "_Any"
        if result is not None and annotation != "":
            forms = self.entries.setdefault((annotation, result), [])
            if form not in forms:
                forms.append(form)

    def signature(self, form: str, annotation: str | None, returns: str) -> ast.FunctionDef:
        changes = {**self.fixed, self.option: form}
        if annotation is not None and self.operand is not None:
            changes[self.operand] = annotation
        return signature_of(self.fn, changes, returns, self.module, self.option)

    def returns(self, result: str) -> str:
        """``Array[<result>]`` (``_Any`` stays)."""
        marker = result if result == "_Any" else self.module.marker(result)
        return f"{self.module.array}[{marker}]"

    def emit(self) -> list[ast.FunctionDef]:
        return [
            self.signature(" | ".join(forms), annotation, self.returns(result))
            for (annotation, result), forms in self.entries.items()
        ]


def _is_python(marker: str) -> bool:
    """Whether NumPy's scalar type of ``marker`` is a Python scalar type (``np.float64``)."""
    import numpy as np

    found: object = getattr(np, marker, None)
    return isinstance(found, type) and issubclass(found, bool | int | float | complex)


def _dtype_name(marker: str) -> str | None:
    """The name JAX reads in ``dtype="..."`` for ``marker`` (``"bool"`` for ``bool_``)."""
    import numpy as np

    try:
        return np.dtype(BY_NAME[marker].dtype).name
    except (TypeError, AttributeError, ImportError):
        return None


def dtype_overloads(
    function: str,
    operand: str | None,
    option: str,
    fn: ast.FunctionDef,
    oracle: Oracle,
    module: SourceModule,
    fixed: Mapping[str, str] | None = None,
) -> list[ast.FunctionDef]:
    """The overloads for a dtype option (``dtype=``, ``new_dtype=``…): every form JAX reads.

    The forms: JAX's scalar type objects (``jnp.float32``, an
    ``_ScalarMeta[float32]`` carrying the dtype JAX canonicalises it to),
    ``typing_pkg``'s markers (``dtype=float32``), dtype names
    (``dtype="float32"``), NumPy's scalar types (``np.float32``) and Python's
    (``bool``, ``int``, ``float``, ``complex``).  The table is asked for each
    form with each dtype of the array parameter (``operand``) and each Python
    scalar.  The requested dtypes that every operand but a few keep share one
    overload through a type variable bounded by their union, for those
    operands; every other (form, operands, result) is one overload, the forms giving the same
    result for the same operands merged, the operands (a union of
    ``Array[...]``) left as JAX declares them when they are all of them.
    NumPy's types come before Python's (``np.float64`` is a ``float``), and
    Python's narrowest first.  ``np.dtype`` objects are left to JAX's
    signature: ``x.dtype`` is an ``np.dtype[Any]``, which would match the
    first of them.
    """
    every = _operand_types(oracle, operand, is_optional(function, operand, fn))
    arr = module.array

    def parts(*values: object) -> list[tuple[str | None, list[str | None]]]:
        """The operands by result when the option is any of ``values`` (None where they differ)."""

        def one(o: str | None) -> str | None:
            found = {oracle.result(function, o, value, option) for value in values}
            return found.pop() if len(found) == 1 else None

        groups = by_result((o, one(o)) for o in every)
        return sorted(groups.items(), key=lambda item: len(item[1]), reverse=True)

    concrete = concrete_markers()
    canonical = {d: oracle.result("jax.Array.astype", "float32", d) for d in concrete}
    # ``jnp.int64`` is ``_ScalarMeta[int32]`` with x64 off: it says what both say
    classes = {c: [d for d in concrete if canonical[d] == c] for c in canonical.values() if c}
    kept = {
        c: frozenset(o for result, group in parts(*ds) if result == c for o in group)
        for c, ds in classes.items()
    }
    counts = Counter(k for k in kept.values() if k)
    nothing: frozenset[str | None] = frozenset()
    common = max(counts, key=lambda k: (counts[k], len(k))) if counts else nothing
    generic = [c for c in classes if common and kept[c] >= common]
    out: list[ast.FunctionDef] = []
    entries = _Overloads(fn, option, operand, every, module, dict(fixed or {}))
    var = module.keep(tuple(generic)) if len(generic) > 1 else ""
    if var:
        entries.entries[(_operand_annotation(common, every, module), "")] = []  # its place
    else:
        generic = []
    for c, ds in classes.items():
        for result, group in parts(*ds):
            rest = [o for o in group if c not in generic or o not in common]
            entries.add(f"_ScalarMeta[{module.marker(c)}]", rest, result)
    for d in concrete:
        if canonical[d] is None:
            continue
        for result, group in parts(d):
            rest = [o for o in group if d not in generic or o not in common]
            entries.add(f"type[{module.marker(d)}]", rest, result)
    for d in concrete:
        numpy_type, name = numpy_type_of(d), _dtype_name(d)
        if canonical[d] is None:
            continue
        for result, group in parts(d):
            if numpy_type is not None:  # np.float64 is a float: it must not reach float's
                entries.add(f"type[{numpy_type}]", group, result, block=_is_python(d))
            if name is not None:
                entries.add(f"_Literal[{name!r}]", group, result)
    for (annotation, result), forms in entries.entries.items():
        if result == "":
            form = f"_ScalarMeta[{var}] | type[{var}]"
            out.append(entries.signature(form, annotation, f"{arr}[{var}]"))
        else:
            form = " | ".join(forms)
            out.append(entries.signature(form, annotation, entries.returns(result)))
    python = [(py_name, parts(py_type)) for py_name, py_type in _PY_DTYPES]
    for index, (py_name, found) in enumerate(python):
        # ``bool`` is an ``int``: where ``bool`` has no result, it must not reach ``int``'s
        wider = any(r is not None for _, later in python[index + 1 :] for r, _ in later)
        overloads = _Overloads(fn, option, operand, every, module, dict(fixed or {}))
        for result, group in found:
            overloads.add(f"type[_builtins.{py_name}]", group, result, block=wider)
        out += overloads.emit()
    return out


def unknown_dtype_overload(
    function: str,
    operand: str | None,
    option: str,
    fn: ast.FunctionDef,
    module: SourceModule,
    fixed: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """The first overload: a dtype option of unknown value (``dtype=self.dtype`` typed
    ``Any``) gives an array of unknown dtype.

    Without it, pyright answers such a call ``Unknown`` (the overloads' results
    differ), and a variable declared ``Optional[Array]`` that it is assigned to
    keeps its ``None``: ``h = jnp.zeros(s, dtype=dt)`` after ``if h is None``
    (distrax, jax-md).  The option's annotation, ``_ScalarMeta[Category]``,
    takes no dtype of ``jnp``'s (``_ScalarMeta`` is invariant), only what is
    ``Any``; and it must come first (pyright picks the first of the overloads an
    ``Any`` argument matches where it is the only one whose result covers all).
    ``jax.random``'s functions go without: a wrapper reading a function's
    parameters (a ``ParamSpec``, Flax nnx's ``rngs.params.uniform(shape)``)
    reads its first overload, where the dtype is required.
    """
    if function.startswith("jax.random."):
        return []
    entries = _Overloads(fn, option, operand, [], module, dict(fixed))
    return [
        entries.signature(
            f"_ScalarMeta[{module.marker('Category')}]", None, f"{module.array}[_Any]"
        )
    ]


def checked_annotations(
    function: str, operand: str | None, fn: ast.FunctionDef, oracle: Oracle, module: SourceModule
) -> dict[str, str] | None:
    """The annotations of the parameters the table checks but does not read for the result
    (``ldexp``'s ``y``): the operands that change no result; None when there are none."""
    from typing_pkg.api import table

    kind = table()[function]
    every = _operand_types(oracle, "", optional=False)
    types = [t for t in every if t is not None and not t.startswith("py_")]
    found: dict[str, str] = {}
    sequences = {p.name for p in kind.params if p.sequence}
    for name in sorted(kind.checks() - kind.reads()):
        if find_arg(fn, name) is None or name in sequences:
            continue  # a sequence (dynamic_slice's start_indices) keeps JAX's declaration

        def answer(t: str, value: str | None, name: str = name) -> str | None:
            values = {name: value} if value is not None else {}
            if operand is not None:
                values[operand] = t
            return oracle.call(function, probe(kind, values))

        good = [c for c in every if all(answer(t, c) == answer(t, None) for t in types)]
        kinds = [scalar for scalar, _ in SCALAR_TYPES]
        widest = max((kinds.index(c) for c in good if c in kinds), default=-1)
        if not set(kinds[: widest + 1]) <= set(good):
            # An int index but not a bool: a checker takes a bool for an int, so the int is
            # said and the bool with it (tools/conformance/function_stubs.py names the cells).
            good = [*good, *kinds[: widest + 1]]
        annotation = _operand_annotation(good, every, module)
        if annotation == "":
            return None
        if annotation is not None:
            found[name] = annotation
    return found


def operand_overloads(
    function: str,
    operand: str | None,
    fn: ast.FunctionDef,
    oracle: Oracle,
    module: SourceModule,
    absent: Mapping[str, str],
    others: tuple[tuple[str, object], ...] = (),
    required: str | None = None,
) -> list[ast.FunctionDef]:
    """The overloads by the dtype of the array parameter ``operand`` (the dtype option absent,
    the options ``others`` given, ``required`` made a required parameter).

    An array of unknown dtype (``Array[Any]``, a category, a type variable)
    matches the first, which answers ``Array[Any]``: pyright takes the first
    overload an ``Array[Any]`` matches.  Then one overload per result, the
    dtypes the function keeps sharing one through a bounded type
    variable, and one per Python scalar kind.
    """
    arr = module.array

    def returns(result: str | None) -> str:
        return f"{arr}[{module.marker(result)}]" if result is not None else f"{arr}[_Any]"

    def signature(changes: Mapping[str, str], result: str) -> ast.FunctionDef:
        return signature_of(fn, {**changes, **absent}, result, module, required)

    if operand is None:
        result = oracle.result(function, None, others=others)
        return [signature({}, returns(result))] if result is not None else []
    head: list[ast.FunctionDef] = []
    if is_optional(function, operand, fn):  # absent: before the overloads an absent one matches
        result = oracle.result(function, None, others=others)
        if result is not None:
            head.append(signature({operand: "None"}, returns(result)))
    scalars = not _returns_its_argument(fn, operand, module.type_variables)
    return head + _given_overloads(function, operand, oracle, module, signature, others, scalars)


def _returns_its_argument(fn: ast.FunctionDef, name: str, type_variables: set[str]) -> bool:
    """Whether ``fn`` returns the type variable of its parameter ``name``
    (``stop_gradient(x: T) -> T``).

    JAX returns a Python scalar given to such a function as it came
    (``stop_gradient(1.0)`` is a ``float``), not an array: no overload for
    Python scalars, JAX's declaration answers.
    """
    found = [a for a in all_args(fn) if a.arg == name]
    annotation = found[0].annotation if found else None
    return (
        fn.returns is not None
        and annotation is not None
        and ast.unparse(fn.returns) == ast.unparse(annotation) in type_variables
    )


def _given_overloads(
    function: str,
    operand: str,
    oracle: Oracle,
    module: SourceModule,
    signature: Callable[[Mapping[str, str], str], ast.FunctionDef],
    others: tuple[tuple[str, object], ...],
    python_scalars: bool = True,
) -> list[ast.FunctionDef]:
    """The overloads of :func:`operand_overloads` for an array ``operand`` given (and for
    Python scalars unless ``python_scalars`` is false)."""
    arr = module.array

    def returns(result: str | None) -> str:
        return f"{arr}[{module.marker(result)}]" if result is not None else f"{arr}[_Any]"

    types = [*oracle.rules.types, *dict(oracle.rules.canonical)]
    results = [(t, oracle.result(function, t, others=others)) for t in types]
    scalars = [(kind, oracle.result(function, kind, others=others)) for kind, _ in SCALAR_TYPES]
    defined = {r for _, r in results if r is not None}
    if len(defined) == 1 and all(r is not None for _, r in results + scalars):
        only = defined.pop()
        if {r for _, r in scalars} == {only}:
            return [signature({}, returns(only))]
    if python_scalars:
        out = [signature({operand: f"{arr}[_tpd.Category]"}, returns(None))]
    else:
        same = module.unknown_kept()
        out = [signature({operand: same}, same)]
    kept = tuple(t for t, r in results if r == t)
    unknown = [t for t, r in results if r is None]
    for result, group in by_result(results).items():
        names = [t for t in group if len(kept) < 2 or t not in kept]
        if result is None or not names:
            continue
        out.append(signature({operand: module.arrays(names)}, returns(result)))
    if len(kept) > 1:
        if unknown:
            out.append(signature({operand: module.arrays(unknown)}, returns(None)))
        var = module.keep(kept)
        out.append(signature({operand: f"{arr}[{var}]"}, f"{arr}[{var}]"))
    if operand != "self" and python_scalars:
        last = max((i for i, (_, r) in enumerate(scalars) if r is not None), default=-1)
        for (_, py_type), (_, scalar) in list(zip(SCALAR_TYPES, scalars, strict=True))[: last + 1]:
            out.append(signature({operand: py_type}, returns(scalar)))
    return out
