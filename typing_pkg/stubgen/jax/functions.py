"""Each function of the table typed: joins, pairs, Python scalars, sequences, and how."""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Final

from typing_pkg import stubgen
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules import RuleSet
from typing_pkg.stubgen.jax.oracle import (
    Oracle,
    is_optional,
    is_required,
    operand_params,
    probe,
    sequence_param,
)
from typing_pkg.stubgen.jax.overloads import (
    SCALAR_TYPES,
    by_result,
    checked_annotations,
    dtype_overloads,
    operand_overloads,
    unknown_dtype_overload,
)
from typing_pkg.stubgen.jax.source_edit import (
    Qualify,
    SourceModule,
    all_args,
    decorate,
    find_arg,
    name_of,
    require,
    signature_of,
    typing_names,
)

if TYPE_CHECKING:
    from typing_pkg.api.kinds import Kind

COVERAGE: Final[Mapping[str, str]] = {
    "one array": (
        "overloads by the dtype of its one array parameter whose dtype matters (or of none), "
        "and by its dtype option"
    ),
    "operator": "two arrays whose table is an operator's: that operator's overloads",
    "pairs": (
        "two arrays whose table is no operator's: overloads for two arrays of one dtype "
        "(and a few pairs)"
    ),
    "sequence": "a sequence of arrays: one overload for arrays of one strong dtype it keeps",
    "several arrays": "JAX's signature: three or more arrays whose dtype matters",
    "sequence untyped": (
        "JAX's signature: a sequence of arrays (or JAX's *args) whose dtype it does not keep, "
        "or beside other arrays"
    ),
    "no result": (
        "JAX's signature: the table gives no dtype the overloads can name (several outputs, an "
        "unknown dtype, a required option)"
    ),
    "index update": (
        "JAX's declaration: a method of x.at[i] whose result is not x's dtype for every "
        "dtype (divide, power, get): x.at[i] is generic in x's dtype, its methods are not "
        "overloaded"
    ),
    "property": (
        "JAX's declaration: a property of jax.Array whose dtype is not the array's "
        "(x.real, x.imag of a complex array): a property has no overloads"
    ),
    "not declared": (
        "JAX's declaration: not a function of the files the stubs rewrite (an attribute, an "
        "object, a name JAX declares otherwise)"
    ),
}
"""How the stubs type a function of the table (:func:`coverage`), and what each means."""


def overloads_for(
    function: str,
    operands: Sequence[str],
    fn: ast.FunctionDef,
    oracle: Oracle,
    module: SourceModule,
    omitted: Sequence[str] = (),
) -> list[ast.FunctionDef]:
    """The overloads of one function, before JAX's own signature.

    The options of the table that ``fn`` has: a dtype option (``dtype``,
    ``new_dtype``…) gets its own overloads, and is ``None`` in the others (none
    when JAX requires it); ``promote_integers`` gets the overloads of
    ``promote_integers=False`` first, and is ``Literal[True]`` in the others.
    The array parameters ``omitted`` (optional ones after ``operands``:
    ``loc``, ``scale``) are ``None`` in every overload: a call passing them
    is JAX's signature's.
    """
    from typing_pkg.api import table
    from typing_pkg.api.kinds import DTYPE_OPTIONS

    kind = table()[function]
    options = [o for o in kind.options if find_arg(fn, o) is not None]
    dtype_option = next((o for o in options if o in DTYPE_OPTIONS), None)
    required = {o for o in options if is_required(fn, o)}
    absent = {o: "None" for o in options if o in DTYPE_OPTIONS}
    pinned = _pinned_flags(kind, fn)
    if pinned is None:
        return []
    absent.update(pinned)
    absent.update(dict.fromkeys(omitted, "None"))
    if len(operands) > 1:
        if required & absent.keys():
            return []
        joined = _join_overloads(function, operands, fn, oracle, module, absent)
        if joined and dtype_option is not None:  # the option's None must not take an Any
            joined[:0] = unknown_dtype_overload(function, None, dtype_option, fn, module, {})
        first, second = operands
        if not is_optional(function, second, fn):
            return joined
        alone = {**absent, second: "None"}  # the first alone
        head = operand_overloads(function, first, fn, oracle, module, alone)
        if dtype_option is not None:
            head += dtype_overloads(
                function, first, dtype_option, fn, oracle, module, {second: "None"}
            )
            head[:0] = unknown_dtype_overload(
                function, first, dtype_option, fn, module, {second: "None"}
            )
        if head:
            oracle.typed.setdefault(function, "pairs")
        return head + joined
    operand = operands[0] if operands else None
    checked = checked_annotations(function, operand, fn, oracle, module)
    if checked is None:
        return []
    absent.update(checked)
    out: list[ast.FunctionDef] = []
    oracle.typed[function] = "one array"
    if "promote_integers" in options:
        changes = {**absent, "promote_integers": "_Literal[False]"}
        others = (("promote_integers", False),)
        out += operand_overloads(
            function, operand, fn, oracle, module, changes, others, "promote_integers"
        )
        absent["promote_integers"] = "_Literal[True]"
    if dtype_option is None or dtype_option not in required:
        out += operand_overloads(function, operand, fn, oracle, module, absent)
    if dtype_option is not None:
        out += dtype_overloads(function, operand, dtype_option, fn, oracle, module, checked)
        out[:0] = unknown_dtype_overload(function, operand, dtype_option, fn, module, checked)
    return out


def _literals(annotation: ast.expr | None) -> tuple[object, ...] | None:
    """The values of a ``Literal[...]`` annotation, None for any other."""
    if not isinstance(annotation, ast.Subscript) or not name_of(annotation.value).endswith(
        "Literal"
    ):
        return None
    items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
    if not all(isinstance(item, ast.Constant) for item in items):
        return None
    return tuple(item.value for item in items if isinstance(item, ast.Constant))


def _pinned_flags(kind: Kind, fn: ast.FunctionDef) -> dict[str, str] | None:
    """The table's answers assume each flag's default (``svd``'s ``compute_uv=True``): the
    flags JAX's declaration ``fn`` leaves open are pinned to it (``Literal[True]``); None when
    ``fn`` is JAX's overload for other values of a flag (the stubs keep it as it is)."""
    from typing_pkg.api.kinds import flags

    pinned: dict[str, str] = {}
    for flag, values in flags(kind).items():
        arg = find_arg(fn, flag)
        if arg is None:
            continue
        literals = _literals(arg.annotation)
        if literals is not None and values[0] not in literals:
            return None
        if literals is None or len(literals) > 1:
            pinned[flag] = f"_Literal[{values[0]!r}]"
    return pinned


@cache
def _encoding(rules_name: str) -> stubgen.Encoding:
    return stubgen.encode(rules_name)


def _family_methods(
    rules: RuleSet, name: str
) -> tuple[list[ast.FunctionDef], list[ast.FunctionDef]]:
    """The overloads of ``Array.__<name>__`` and ``__r<name>__`` in ``typing_pkg``'s stubs that
    read an array or a Python scalar (``int``, or ``_IntNotBool`` for an ``int`` that is not a
    ``bool``; not a NumPy array, not an unknown dtype), qualified."""
    cls, qualify = typing_names(rules)
    params = Qualify({**qualify, "Array": "_tpt.Array"})
    others = Qualify({k: v for k, v in qualify.items() if k != "Array"})
    found: dict[str, list[ast.FunctionDef]] = {f"__{name}__": [], f"__r{name}__": []}
    for stmt in cls.body:
        if not isinstance(stmt, ast.FunctionDef) or stmt.name not in found:
            continue
        args = all_args(stmt)
        if len(args) != 2 or args[0].annotation is None or args[1].annotation is None:
            continue
        other = name_of(args[1].annotation)
        if "SomeDType" in name_of(args[0].annotation) or "np." in other or "Numpy" in other:
            continue
        fn = copy.deepcopy(stmt)
        for arg in all_args(fn):
            arg.annotation = params.visit(arg.annotation) if arg.annotation else None
        fn.returns = others.visit(fn.returns) if fn.returns is not None else None
        found[stmt.name].append(fn)
    return found[f"__{name}__"], found[f"__r{name}__"]


def _family_cells(
    family: stubgen.Family, types: Sequence[str]
) -> dict[tuple[str, str], str | None]:
    """An operator family's table: ``(left, right)`` → result, None where undefined."""
    cells: dict[tuple[str, str], str | None] = {(a, b): None for a in types for b in types}
    for right in types:
        pairs = [(left, left) for left in (family.kept or {}).get(right, ())]
        pairs += [(left, g.result) for g in family.rules.get(right, []) for left in g.operands]
        for left, result in pairs:
            if (left, right) in cells:
                cells[(left, right)] = result
    return cells


def _join_overloads(
    function: str,
    operands: Sequence[str],
    fn: ast.FunctionDef,
    oracle: Oracle,
    module: SourceModule,
    absent: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """Two array parameters whose result is an operator's table (``maximum`` is ``+``'s join).

    The function's table is asked for every pair of dtypes; if it equals the
    table of an operator family of ``typing_pkg``'s stubs, the function gets
    that operator's overloads (its rule protocols), the scalar ones both ways
    round when the table is symmetric, each way where the function gives
    what the operator gives with every Python scalar; elsewhere it gets its
    own overloads for Python scalars, as a function of two arrays does
    (:func:`_scalar_overloads`).
    """
    from typing_pkg.api import table

    if len(operands) != 2:
        return []
    kind = table()[function]
    first, second = operands
    types = oracle.rules.types
    cells = {
        (a, b): oracle.call(function, probe(kind, {first: a, second: b}))
        for a in types
        for b in types
    }
    enc = _encoding(oracle.rules.name)
    family = next((f for f in enc.families if _family_cells(f, types) == cells), None)
    if family is None:
        found = _pair_overloads(
            first,
            second,
            cells,
            lambda a, b: oracle.call(function, probe(kind, {first: a, second: b})),
            fn,
            module,
            absent,
        )
        if found:
            oracle.typed[function] = "pairs"
        return found
    oracle.typed[function] = "operator"
    symmetric = all(r == cells[(b, a)] for (a, b), r in cells.items())
    direct, reflected = _family_methods(oracle.rules, family.name)

    def scalars_agree(reflect: bool) -> bool:
        """Whether the function gives what the operator gives with a Python scalar."""
        for t in types:
            for scalar, _ in SCALAR_TYPES:
                a, b = (scalar, t) if reflect else (t, scalar)
                theirs = oracle.rules.result(family.name, a, b)
                mine = oracle.call(function, probe(kind, {first: a, second: b}))
                if mine != (theirs if isinstance(theirs, str) else None):
                    return False
        return True

    def answer(a: str, b: str) -> str | None:
        return oracle.call(function, probe(kind, {first: a, second: b}))

    out: list[ast.FunctionDef] = []
    for methods, reflect in ((direct, False), (reflected, True)):
        agree = scalars_agree(reflect)
        for method in methods if symmetric or not reflect else []:
            this, other = (arg.annotation for arg in all_args(method))
            if this is None or other is None or method.returns is None:
                continue
            if not (agree or name_of(other).startswith("_tpt.Array[")):
                continue
            a, b = (other, this) if reflect else (this, other)
            changes = {first: ast.unparse(a), second: ast.unparse(b), **absent}
            out.append(signature_of(fn, changes, ast.unparse(method.returns), module))
        if not agree or (reflect and not (symmetric and methods)):
            # the function's own, as for two arrays (a comparison has no reflected operator)
            out += _scalar_overloads(first, second, types, answer, reflect, fn, module, absent)
    return out


_FEW_PAIRS: Final = 12
"""At most this many pairs of two dtypes get an overload each."""


def _pair_overloads(
    first: str,
    second: str,
    cells: Mapping[tuple[str, str], str | None],
    result: Callable[[str, str], str | None],
    fn: ast.FunctionDef,
    module: SourceModule,
    absent: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """Two array parameters whose table (``cells``) is no operator's: arrays of one dtype, and
    Python scalars.

    An array of unknown dtype on either side matches one of the first two
    overloads (``Array[Any]``).  Then two arrays of one dtype: the dtypes
    that the function keeps share one overload through a constrained type
    variable (``lax.add(x, y)``: ``Array[K]`` and ``Array[K]`` give
    ``Array[K]``), and so do those giving one result (``lax.eq``); no marker
    is a subclass of another, so arrays of two dtypes match none of them.  A
    few pairs of two dtypes (a weakly typed array beside one of its dtype)
    get one each; the other pairs are left to JAX's signature.  An array
    and a Python scalar (``result`` answers for any two operands), either way
    round, get one overload per scalar kind and result, the dtypes kept
    sharing one, and two Python scalars one per pair, narrowest first: where
    a narrower scalar has no result, an overload answering ``Array[Any]``
    keeps it from a wider one's (``bool`` is an ``int``).
    """
    arr = module.array

    def signature(a: str, b: str, returns: str) -> ast.FunctionDef:
        return signature_of(fn, {first: a, second: b, **absent}, returns, module)

    def returns(found: str | None) -> str:
        return f"{arr}[{module.marker(found)}]" if found is not None else f"{arr}[_Any]"

    out = [
        signature_of(fn, {first: f"{arr}[_tpd.Category]", **absent}, f"{arr}[_Any]", module),
        signature_of(fn, {second: f"{arr}[_tpd.Category]", **absent}, f"{arr}[_Any]", module),
    ]
    types = list(dict.fromkeys(a for a, _ in cells))
    kept = tuple(t for t in types if cells[(t, t)] == t)
    if len(kept) > 1:
        var = module.keep(kept, one=True)
        out.append(signature(f"{arr}[{var}]", f"{arr}[{var}]", f"{arr}[{var}]"))
    rest = [(t, cells[(t, t)]) for t in types if len(kept) < 2 or t not in kept]
    for found, group in by_result(rest).items():
        if found is None:
            continue
        one = (
            f"{arr}[{module.keep(tuple(group), one=True)}]"
            if len(group) > 1
            else module.arrays(group)
        )
        out.append(signature(one, one, returns(found)))
    pairs = [(a, b, r) for (a, b), r in cells.items() if a != b and r is not None]
    if len(pairs) <= _FEW_PAIRS:
        for a, b, found in pairs:
            out.append(signature(module.arrays([a]), module.arrays([b]), returns(found)))
    for reflect in (False, True):
        out += _scalar_overloads(first, second, types, result, reflect, fn, module, absent)
    scalars = list(SCALAR_TYPES)
    both = [(a, b, result(ka, kb)) for ka, a in scalars for kb, b in scalars]
    for index, (a, b, found) in enumerate(both):
        if found is not None or any(r is not None for _, _, r in both[index + 1 :]):
            out.append(signature(a, b, returns(found)))
    return out if len(out) > 2 else []


def _scalar_overloads(
    first: str,
    second: str,
    types: Sequence[str],
    result: Callable[[str, str], str | None],
    reflect: bool,
    fn: ast.FunctionDef,
    module: SourceModule,
    absent: Mapping[str, str],
) -> list[ast.FunctionDef]:
    """An array and a Python scalar (the scalar first when ``reflect``): one overload per scalar
    kind and result, the dtypes kept sharing one, narrowest kind first; where a narrower kind
    has no result, an overload answering ``Array[Any]`` keeps it from a wider one's."""
    arr = module.array
    scalars = list(SCALAR_TYPES)
    answers = [
        {t: result(*((kind, t) if reflect else (t, kind))) for t in types} for kind, _ in scalars
    ]
    out: list[ast.FunctionDef] = []
    for index, (_, py_type) in enumerate(scalars):
        wider = any(r is not None for later in answers[index + 1 :] for r in later.values())
        mine = answers[index]
        same = tuple(t for t in types if mine[t] == t)
        overloads: list[tuple[str, str]] = []
        if len(same) > 1:
            var = module.keep(same)
            overloads.append((f"{arr}[{var}]", f"{arr}[{var}]"))
        others = [(t, mine[t]) for t in types if len(same) < 2 or t not in same]
        for found, group in by_result(others).items():
            if found is not None or wider:
                marker = module.marker(found) if found is not None else "_Any"
                overloads.append((module.arrays(group), f"{arr}[{marker}]"))
        for array, returns in overloads:
            a, b = (py_type, array) if reflect else (array, py_type)
            out.append(signature_of(fn, {first: a, second: b, **absent}, returns, module))
    return out


def _sequence_overloads(
    function: str, name: str, fn: ast.FunctionDef, oracle: Oracle, module: SourceModule
) -> list[ast.FunctionDef]:
    """A sequence of arrays of one dtype, for a function that keeps it (``concatenate``).

    The weak dtypes are left out: pyright solves the constrained type variable
    for ``[Array[float32], Array[weak_float]]`` as ``weak_float`` (JAX gives
    ``float32``); without them such a list falls to JAX's signature.
    """
    from typing_pkg.api import table
    from typing_pkg.api.kinds import DTYPE_OPTIONS

    kind = table()[function]
    kept = tuple(
        t
        for t in oracle.rules.types
        if not BY_NAME[t].weak and oracle.call(function, probe(kind, {name: [t, t]})) == t
    )
    if len(kept) < 2:
        return []
    oracle.typed[function] = "sequence"
    var = module.keep(kept, one=True)
    absent = {o: "None" for o in kind.options if o in DTYPE_OPTIONS and find_arg(fn, o) is not None}
    arr = module.array
    unknown = [  # a dtype of unknown value (typed Any) must not take the option's None
        overload
        for option in absent
        for overload in unknown_dtype_overload(function, None, option, fn, module, {})
    ]
    sequence = f"_typing.Sequence[{arr}[{var}]]"
    return [*unknown, signature_of(fn, {name: sequence, **absent}, f"{arr}[{var}]", module)]


def rewrite_functions(
    body: list[ast.stmt], prefix: str, oracle: Oracle, module: SourceModule
) -> list[ast.stmt]:
    """Each function of the table in ``body``: before each of its declarations (JAX's overloads,
    ``where(c)`` and ``where(c, x, y)``) whose array parameters no earlier one has, the overloads
    for that declaration's parameters, every one decorated ``@overload``; the others unchanged.
    How each is typed goes to ``oracle.typed``."""
    from typing_pkg.api import table

    entries = table()
    out: list[ast.stmt] = []
    seen: set[str] = set()
    for stmt in body:
        if not isinstance(stmt, ast.FunctionDef):
            out.append(stmt)
            continue
        if stmt.name in seen:  # a further declaration, rewritten with the first
            continue
        seen.add(stmt.name)
        function = prefix + stmt.name
        kind = entries.get(function)
        defs = [s for s in body if isinstance(s, ast.FunctionDef) and s.name == stmt.name]
        if kind is None:
            out.extend(defs)
            continue
        if "property" in {name_of(d) for d in stmt.decorator_list}:
            oracle.typed[function] = "property"  # a property has no overloads
            out.extend(defs)
            continue
        # a declaration with the array parameters of an earlier one keeps its own (logsumexp's
        # return_sign=True): only one with others (where(c, x, y) after where(c)) gets overloads
        found: list[tuple[list[ast.FunctionDef], str]] = []
        params: list[list[str] | None] = []
        for fn in defs:
            operands = operand_params(kind, fn)
            fresh = not found or operands not in params
            params.append(operands)
            found.append(_typed(function, kind, fn, oracle, module) if fresh else ([], ""))
        labels = [label for extra, label in found if extra] or [found[0][1] or "no result"]
        oracle.typed[function] = labels[-1]  # where(c, x, y) over where(c)
        if not any(extra for extra, _ in found):
            out.extend(defs)
            continue
        for fn, (extra, _) in zip(defs, found, strict=True):
            out.extend([*extra, _literal_defaults(decorate(fn), fn is defs[0], defs[0])])
    return out


def _literal_defaults(
    fn: ast.FunctionDef, first: bool, declared: ast.FunctionDef
) -> ast.FunctionDef:
    """A further declaration of a function requires the parameters its first declares with a
    ``Literal`` and a default (``logsumexp(..., return_sign: bool = ...)`` after ``return_sign:
    Literal[False] = ...``): a call without them is the first's, and pyright, given an argument
    of unknown type, would otherwise join the declarations' results (``Array | tuple``)."""
    if first:
        return fn
    literal = {
        arg.arg
        for arg in all_args(declared)
        if "Literal[" in name_of(arg.annotation) and not is_required(declared, arg.arg)
    }
    for name in sorted(literal):
        if find_arg(fn, name) is not None and not is_required(fn, name):
            require(fn, name)
    return fn


def _typed(
    function: str, kind: Kind, fn: ast.FunctionDef, oracle: Oracle, module: SourceModule
) -> tuple[list[ast.FunctionDef], str]:
    """The overloads for one declaration of ``function``, and how they type it (a key of
    :data:`COVERAGE`)."""
    oracle.typed.pop(function, None)
    operands = operand_params(kind, fn)
    extra: list[ast.FunctionDef] = []
    label = "no result"
    if operands is not None and len(operands) > 2:
        label = "several arrays"
        given = _before_optional(function, operands, fn)
        if len(given) <= 2:  # stats.norm.logpdf(x, loc=0, scale=1): typed for x alone
            omitted = operands[len(given) :]
            extra = overloads_for(function, given, fn, oracle, module, omitted)
    elif operands is not None:
        extra = overloads_for(function, operands, fn, oracle, module)
    else:
        sequence = sequence_param(kind, fn)
        if sequence is not None:
            extra = _sequence_overloads(function, sequence, fn, oracle, module)
        label = "sequence untyped"
    return extra, oracle.typed.get(function, label) if extra else label


def _before_optional(function: str, operands: list[str], fn: ast.FunctionDef) -> list[str]:
    """The array parameters before the first one a call may leave out, if all after it may."""
    for index, name in enumerate(operands):
        if is_optional(function, name, fn):
            rest = operands[index:]
            return operands[:index] if all(is_optional(function, o, fn) for o in rest) else operands
    return operands
