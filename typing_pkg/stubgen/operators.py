"""Rendering: ``Array``'s overloaded operators, their protocols and the markers' rule methods."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from typing_pkg.dtypes import BY_NAME, EXTENDED_NAMES
from typing_pkg.ops import BINARY, INPLACE, SYMBOL, UNARY
from typing_pkg.stubgen.encoding import (
    OPS,
    PROMOTE,
    REFLECTED,
    SCALARS,
    Encoding,
    Family,
    SelfRule,
    groups_by_result,
    rule_cell,
)

# ------------------------------------------------------------------ rendering
#
# The names the checkers show (hovering ``+`` shows the first overload,
# ``other: Array[AddRule[Left, Result]]``): a family's protocol is
# ``<Op>Rule`` and its rule method ``__tp_<op>__``; a self rule's protocol
# ``<Op><Kind>Rule`` (``AddFloatRule``, ``NegRule``) and its method
# ``__tp_<op>_<kind>__``, named after the first operator that uses it.


def _union(names: Iterable[str]) -> str:
    return " | ".join(names)


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


class Names:
    """Type variables of ``dtypes.pyi`` bounded by unions of markers, made once each."""

    def __init__(self) -> None:
        self.bounds: dict[tuple[str, ...], str] = {}

    def keep_var(self, operands: tuple[str, ...]) -> str:
        """Return a type variable bounded by the union of ``operands``: ``Kept<n>``."""
        return self.bounds.setdefault(operands, f"Kept{len(self.bounds)}")

    def variables(self) -> str:
        """Return the definitions of the type variables made so far."""
        return "".join(
            f'{var} = TypeVar("{var}", bound={_union(ops)})\n' for ops, var in self.bounds.items()
        )


def _rule(family: Family) -> str:
    """Return the name of the rule method of ``family`` on the markers."""
    return f"__tp_{family.name}__"


def family_protocol(family: Family) -> str:
    return f"{_camel(family.name)}Rule"


def _self_rule(enc: Encoding, rule: SelfRule) -> str:
    return f"__tp_{enc.self_rules[rule]}__"


def self_protocol(enc: Encoding, rule: SelfRule) -> str:
    return f"{_camel(enc.self_rules[rule])}Rule"


def _uses(keys: Iterable[str]) -> str:
    """Return what a family serves, for its protocol's docstring."""
    ops = [f"``{SYMBOL[k]}``" for k in keys if k in OPS]
    parts = [f"``L OP M`` for {', '.join(ops)}"] if ops else []
    if PROMOTE in keys:
        parts.append("``promote_types(L, M)`` and ``result_type``")
    return "; ".join(parts)


Sig = tuple[str, str]
"""An overload: its parameters and its result."""


def defs(
    name: str, sigs: Sequence[Sig], ignore: str = "", indent: str = "    ", tail: str = ", /"
) -> str:
    """Return the overloads of ``name`` (a plain function if there is one signature)."""
    comment = f"  # type: ignore[{ignore}]" if ignore else ""
    decorator = f"{indent}@overload\n" if len(sigs) > 1 else ""
    return "".join(
        f"{decorator}{indent}def {name}({params}{tail}) -> {result}: ...{comment}\n"
        for params, result in sigs
    )


_ANY_SCALAR: Final = _union(plain for _, plain, _ in SCALARS)
NUMPY_UNKNOWN: Final = _union(
    (
        "np.generic[Never]",
        "np.number[Never, Any]",
        "np.integer[Never]",
        "np.signedinteger[Never]",
        "np.unsignedinteger[Never]",
        "np.inexact[Never, Any]",
        "np.floating[Never]",
        "np.complexfloating[Never, Never]",
    )
)
"""NumPy scalar types that name no marker statically: ``np.floating``
(``floating[Any]``), ``np.generic``, ml_dtypes' types (``generic[Any]``).
A ``Never`` argument is matched by ``Any`` and by no bit width, so
``np.float32`` (``floating[_32Bit]``) is not one.  (pyright reads
``np.intp``, ``signedinteger[_32Bit | _64Bit]``, as ``np.int64``: NumPy's
``_32Bit`` derives from ``_64Bit``.)"""


def _result(enc: Encoding, op: str) -> str:
    """Return the result of an overload: ``op``'s one result if it has one, else ``Result``."""
    return enc.constant(op) or "Result"


def _scalar_sigs(enc: Encoding, op: str, reflected: bool) -> list[Sig]:
    """Return the overloads for Python scalars: ``self``'s marker gives the result."""
    result = _result(enc, op)
    return [
        (f"self: Array[{self_protocol(enc, r)}[{result}]], other: {r.param}", f"Array[{result}]")
        for r in enc.scalar_rules[(op, reflected)]
    ]


def _unknown_sig(enc: Encoding, op: str) -> Sig:
    """Return the last overload: a ``self`` of unknown dtype (a category, a type variable,
    ``Any``) with any Python scalar; as with the plugin, an unknown dtype is never an error."""
    return (f"self: Array[SomeDType], other: {_ANY_SCALAR}", f"Array[{enc.constant(op) or 'Any'}]")


def _binary_sigs(enc: Encoding, op: str) -> list[Sig]:
    """Return the overloads of ``Array.__op__``: arrays through the rule, Python scalars, NumPy
    arrays (``_numpy_sigs``), a ``self`` of unknown dtype.

    A comparison gives ``bool_`` whatever the NumPy array: its first overload
    takes one (``NumpyArray``, a protocol) beside the arrays.
    """
    family = enc.family_of[op]
    result = _result(enc, op)
    other = f"Array[{family_protocol(family)}[Left, {result}]]"
    scalars = _scalar_sigs(enc, op, reflected=False)
    if enc.constant(op) is not None or not enc.numpy:
        rule = (f"self: Array[Left], other: {other} | NumpyArray", f"Array[{result}]")
        return [rule, *scalars, _unknown_sig(enc, op)]
    rule = (f"self: Array[Left], other: {other}", f"Array[{result}]")
    return [rule, *scalars, *_numpy_sigs(family), _unknown_sig(enc, op)]


def _numpy_sigs(family: Family) -> list[Sig]:
    """Return the overloads for a NumPy array operand, after the Python scalars'.

    First a NumPy array of unknown dtype (``NDArray[np.floating]``,
    ``NDArray[Any]``), which would match any NumPy scalar type below: ``Any``.
    Then an array of ``self``'s own NumPy scalar type (``Array[float32]`` with
    ``NDArray[np.float32]``): ``self``'s marker is matched against
    ``<Op>NumpyRule[Numpy, Result]``, whose attribute ``__tp_numpy__`` solves
    ``Numpy`` (``float32.__tp_numpy__`` is ``type[np.float32]``) and whose rule
    method, with ``self``'s marker as left operand, solves ``Result``.  Any
    other NumPy array (another dtype, a category's ``self``): ``Any``; the
    mypy plugin gives the promoted dtype.  Mixed dtypes would need the rule
    keyed by the NumPy type, which one overload cannot do (pyright solves
    ``self``'s annotation, binding the method, before it reads the argument)
    and one overload per NumPy type made basedpyright 1.6 times slower.
    These overloads come after the Python scalars' so that the programs
    without NumPy arrays rarely try them (an undefined operation does).
    """
    array = "np.ndarray[Any, np.dtype[{}]]"
    return [
        (f"self, other: {array.format('NumpyUnknown')}", "Array[Any]"),
        (
            f"self: Array[{_numpy_protocol(family)}[Numpy, Result]], "
            f"other: {array.format('Numpy')}",
            "Array[Result]",
        ),
        ("self, other: NumpyArray", "Array[Any]"),
    ]


def _numpy_protocol(family: Family) -> str:
    return f"{_camel(family.name)}NumpyRule"


_NUMPY_ATTR: Final = "__tp_numpy__"
"""A concrete marker's NumPy scalar type, in the stubs (``float32``: ``type[np.float32]``)."""


def _numpy_families(enc: Encoding) -> list[Family]:
    """Return the families whose operators read a NumPy operand's dtype (not comparisons)."""
    if not enc.numpy:
        return []
    ops = [op for op in BINARY if enc.constant(op) is None]
    return [f for f in enc.families if any(op in f.ops for op in ops)]


def _reflected_sigs(enc: Encoding, op: str) -> list[Sig]:
    """Return the overloads of ``Array.__rop__``: Python scalars on the left only."""
    return [*_scalar_sigs(enc, op, reflected=True), _unknown_sig(enc, op)]


def _unary_sigs(enc: Encoding, op: str) -> list[Sig]:
    rule = enc.unary_rules[op]
    return [
        (f"self: Array[{self_protocol(enc, rule)}[Result]]", "Array[Result]"),
        ("self: Array[SomeDType]", "Array[Any]" if op == "abs" else "Array[SomeDType]"),
    ]


_ASTYPE_TAIL: Final = ", *, copy: bool = True, device: Any = None"


def _astype_sigs(enc: Encoding) -> list[Sig]:
    """Return the overloads of ``Array.astype``: a marker, a NumPy type, a name, a Python type.

    A Python type is read as the rules read it (``float`` is the weak
    ``weak_float``) and converted as the library converts it: to the dtype
    a weak value of its kind takes (``RuleSet.weak_dtypes``: ``float32``
    under ``jax``), ``Any`` where the rules do not say.
    """
    sigs: list[Sig] = [("self, dtype: type[Left]", "Array[Left]")]
    if enc.numpy:
        sigs.append(("self, dtype: type[NumpyUnknown] | np.dtype[NumpyUnknown]", "Array[Any]"))
    for name, marker in BY_NAME.items():
        if marker.abstract or name in EXTENDED_NAMES:
            continue  # a category, or a key (no array is cast to one)
        forms = [f'Literal["{name}"]']
        scalar = enc.numpy.get(name)
        if scalar is not None:
            forms += [f"type[{scalar}]", f"np.dtype[{scalar}]"]
        sigs.append((f"self, dtype: {_union(forms)}", f"Array[{name}]"))
    for plain, name in enc.python_types():
        converted = enc.rules.weak_dtypes.get(name) if BY_NAME[name].weak else name
        sigs.append((f"self, dtype: type[{plain}]", f"Array[{converted or 'Any'}]"))
    sigs.append(("self, dtype: DTypeLike", "Array[Any]"))
    return sigs


def operator_methods(enc: Encoding) -> str:
    """Return the source of every overloaded method of ``Array``: astype and the operators."""
    parts = [defs("astype", _astype_sigs(enc), tail=_ASTYPE_TAIL)]
    for op in OPS:
        ignore = "override" if op in ("eq", "ne") else ""
        parts.append(defs(f"__{op}__", _binary_sigs(enc, op), ignore))
        if op in REFLECTED:
            parts.append(defs(f"__r{op}__", _reflected_sigs(enc, op)))
    for op in UNARY:
        parts.append(defs(f"__{op}__", _unary_sigs(enc, op)))
    return "".join(parts)


def array_helpers(enc: Encoding) -> str:
    """Return the type variables and protocols the overloads refer to, with what each means."""
    lines = [
        'Left = TypeVar("Left", bound=DType)',
        '"""The dtype of ``self`` (the left operand)."""',
        'Result = _TypeVarWithDefault("Result", bound=DType, default=Any)',
        '"""The dtype of the result: what the rule of the other operand (or of self) gives;'
        ' ``Any`` if none does (a NumPy array)."""',
        'Left_contra = TypeVar("Left_contra", contravariant=True)',
        'Result_co = TypeVar("Result_co", covariant=True)',
        'SomeDType = TypeVar("SomeDType", bound=Category)',
        '"""A dtype the stubs cannot name: a category (``floating``), a type variable, ``Any``."""',
        'Numpy = TypeVar("Numpy")',
        '"""The NumPy scalar type of ``self``\'s dtype (``np.float32`` for ``float32``)."""',
        'Numpy_co = TypeVar("Numpy_co", covariant=True)',
        "",
        "@type_check_only",
        "class _IntNotBool(Protocol):",
        '    """An ``int`` that is not a ``bool`` (``True & 1`` is an ``int``, not a ``bool``)."""',
        "    def __and__(self, value: int, /) -> Self: ...",
        "    def bit_length(self) -> int: ...",
        "",
        "@type_check_only",
        "class _FloatNotInt(Protocol):",
        '    """A ``float`` that is not an ``int`` or a ``bool`` (those have no ``hex()``)."""',
        "    def hex(self) -> str: ...",
        "",
        "@type_check_only",
        "class _ComplexNotFloat(Protocol):",
        '    """A ``complex`` that is not a ``float``, ``int`` or ``bool``."""',
        "    def __complex__(self) -> complex: ...",
        "    def conjugate(self) -> complex: ...",
        "",
        "@type_check_only",
        "class NumpyArray(Protocol):",
        '    """A NumPy array (``numpy.ndarray``: it alone has ``ctypes``), of a dtype the stubs '
        'do not read."""',
        "    @property",
        "    def ctypes(self) -> Any: ...",
    ]
    numpy_families = _numpy_families(enc)
    for family in enc.families:
        lines += [
            "",
            "@type_check_only",
            f"class {family_protocol(family)}(Protocol[Left_contra, Result_co]):",
            f'    """A dtype ``M`` whose rule gives ``Result_co`` for ``Left_contra`` ``L``: '
            f'{_uses(family.ops)}."""',
            f"    def {_rule(family)}(self, left: Left_contra, /) -> Result_co: ...",
        ]
        if family in numpy_families:
            lines += [
                "",
                "@type_check_only",
                f"class {_numpy_protocol(family)}(Protocol[Numpy_co, Result_co]):",
                f'    """A dtype ``M`` of NumPy scalar type ``Numpy_co`` whose rule gives '
                f"``Result_co`` for ``M`` and a NumPy array of that type: "
                f'{_uses(family.ops)}."""',
                f"    {_NUMPY_ATTR}: ClassVar[type[Numpy_co]]",
                f"    def {_rule(family)}(self, left: Self, /) -> Result_co: ...",
            ]
    lines += [
        "",
        "@type_check_only",
        f"class {OTHER_PROTOCOL}(Protocol[Left_contra, Result_co]):",
        '    """A dtype ``M`` whose rule gives ``Result_co`` for ``promote_types(L, M)``, ``L`` a '
        'NumPy or Python scalar type (or scalar) ``Left_contra``."""',
        f"    def {_OTHER_RULE}(self, left: Left_contra, /) -> Result_co: ...",
    ]
    for rule in enc.self_rules:
        lines += [
            "",
            "@type_check_only",
            f"class {self_protocol(enc, rule)}(Protocol[Result_co]):",
            f'    """A dtype whose rule gives ``Result_co`` for {_self_rule_doc(enc, rule)}."""',
            f"    def {_self_rule(enc, rule)}(self, /) -> Result_co: ...",
        ]
    return "\n".join(lines) + "\n"


def _self_rule_doc(enc: Encoding, rule: SelfRule) -> str:
    """Return what a self rule is the result of: ``x + float``, ``-x`` (in-place forms too)."""
    unary = [op for op, r in enc.unary_rules.items() if r == rule]
    uses = [("abs(x)" if op == "abs" else f"{SYMBOL[op]}x") for op in unary] + [
        f"{rule.param} {SYMBOL[op]} x" if reflected else f"x {SYMBOL[op]} {rule.param}"
        for (op, reflected), found in enc.scalar_rules.items()
        if rule in found and op not in INPLACE
    ]
    if rule == enc.result_type:
        uses.append("result_type(x)")
    return ", ".join(f"``{use}``" for use in uses)


_OTHER_RULE: Final = "__tp_promote_other__"
"""The rule method of ``promote_types`` for a left operand that is not a marker."""
OTHER_PROTOCOL: Final = "PromoteOtherRule"


def _other_lefts(enc: Encoding, marker: str) -> list[Sig]:
    """Return the items of ``__tp_promote_other__``: ``promote`` by a left that is not a marker.

    They serve ``promote_types`` and ``result_type`` with a NumPy scalar type
    (``np.float32``), dtype or scalar, or a Python type or scalar, first:
    NumPy's unknown types first (an unknown dtype, as ``Any`` would match any
    later item), NumPy's others, then Python's ``bool``, ``int``, ``float``,
    ``complex``, read as the rules read them (``float`` is weak), each before
    the wider types that accept it (``np.float64`` is a ``float``); one the
    rules refuse where a wider type is accepted gives ``object``, which no
    ``Result`` bounded by ``DType`` matches.  A method of its own, not items
    of the ``promote`` family's: every operator matches that family's method,
    and pyright reads all of a method's items (NumPy's annotations with them)
    when it matches one.
    """
    import builtins

    import numpy as np

    rules = enc.rules
    sigs: list[Sig] = []
    if enc.numpy:
        sigs.append(("self, left: NumpyUnknown", enc.family_of[PROMOTE].constant or "Any"))
        # A NumPy type that is a Python type too (np.float64 is a float) is refused
        # explicitly where the rules refuse it, or the Python type's item would take it.
        python = tuple(getattr(builtins, plain) for _, plain, _ in SCALARS)
        pairs = [
            (scalar, result or "object")
            for name, scalar in enc.numpy.items()
            if (result := rule_cell(rules, PROMOTE, name, marker)) is not None
            or issubclass(getattr(np, scalar.removeprefix("np.")), python)
        ]
        sigs += [(f"self, left: {_union(g.operands)}", g.result) for g in groups_by_result(pairs)]
    results = [
        rule_cell(rules, PROMOTE, name, marker) if name in enc.types else None
        for _, name in enc.python_types()
    ]
    for k, (plain, _) in enumerate(enc.python_types()):
        if results[k] is not None or any(r is not None for r in results[k + 1 :]):
            sigs.append((f"self, left: {plain}", results[k] or "object"))
    return sigs


def rule_methods(enc: Encoding, names: Names, marker: str) -> str:
    """Return the rule methods of one marker class, one per family, and its self rules.

    A category (``floating``) gives an unknown result for any left operand; a
    concrete marker gives one for a left operand of unknown dtype (first, so
    that ``Any`` matches it), then the rule's results for the left operands
    it defines, and nothing for any other: the overload does not match.
    """
    out: list[str] = []
    abstract = BY_NAME[marker].abstract
    for family in enc.families:
        unknown = family.constant or "Any"
        if abstract:
            sigs: list[Sig] = [("self, left: object", unknown)]
        else:
            sigs = [("self, left: Category", unknown)]
            kept = family.kept.get(marker) if family.kept is not None else None
            if kept:
                var = names.keep_var(kept)
                sigs.append((f"self, left: {var}", var))
            sigs += [(f"self, left: {_union(g.operands)}", g.result)
                     for g in family.rules.get(marker, [])]  # fmt: skip
        out.append(defs(_rule(family), sigs, "misc" if abstract else "override"))
    if not abstract and marker in enc.types:
        out.append(defs(_OTHER_RULE, _other_lefts(enc, marker)))
    if marker in enc.numpy:
        out.append(f"    {_NUMPY_ATTR}: ClassVar[type[{enc.numpy[marker]}]]\n")
    for rule in enc.self_rules:
        result = dict(rule.results).get(marker)
        if result is not None:
            out.append(f"    def {_self_rule(enc, rule)}(self, /) -> {result}: ...\n")
    return "".join(out)
