"""The stub generator: ``.pyi`` files that give pyright the mypy plugin's results.

pyright, basedpyright, Pylance, pyrefly and ty have no plugins.  ``python -m
typing_pkg stubs`` writes a PEP 561 stub-only package, ``stubs/typing_pkg-stubs``,
whose ``Array`` operators are ``@overload``\\ s derived from the default rule
set (``jax``), so that those checkers infer the same ``Array[...]`` results
as the plugin and report an error where the rules leave a promotion
undefined.  ``python -m typing_pkg stubs --check`` fails when the files on disk
differ from what the rules and the runtime modules give now; CI runs it.

The encoding
============

One overload per operand pair would be hundreds per operator, which makes
mypy 5-17× and pyright 2.4-3.9× slower.  The stubs use the encoding of
numtype's ``_nep50.pyi`` instead: the rules are matched through the *other*
operand.

* Every marker class in ``dtypes.pyi`` carries one private *rule method* per
  family of equal tables (``+``, ``*``, ``@``, their in-place forms and
  ``promote_types`` are one family under ``jax``), overloaded by left
  operand::

      class int8(signedinteger):
          @overload
          def __tp_add__(self, left: Category, /) -> Any: ...        # unknown dtype
          @overload
          def __tp_add__(self, left: Kept3, /) -> Kept3: ...         # L + int8 is L
          @overload
          def __tp_add__(self, left: uint8, /) -> int16: ...
          ...

  A category (``floating``, ``DType``) answers ``Any`` for any left operand.
* ``Array.__add__`` has *one* overload for arrays,
  ``(self: Array[Left], other: Array[AddRule[Left, Result]] | NumpyArray)
  -> Array[Result]``: the checker solves ``Left`` from ``self`` and ``Result``
  from the right operand's rule method.  An undefined pair has no item, so
  nothing matches and the checker reports the operator as unsupported (then
  tries the reflected method, which takes Python scalars only).
* A NumPy array operand comes after the Python scalars (see ``_numpy_sigs``):
  one of ``self``'s own NumPy type (``Array[float32] + NDArray[np.float32]``)
  gives the rule's result, read through ``__tp_numpy__``, an attribute each
  concrete marker declares (``type[np.float32]``); any other, ``Array[Any]``
  (a comparison ``Array[bool_]``), never an error.
* Python scalars (``x + 1``, and ``1 + x`` through ``__radd__``) and unary
  operators depend on ``self``'s dtype alone: each marker has a method per
  such rule it defines, ``__tp_add_int__(self) -> <result>``, and
  ``Array.__add__`` one overload per Python scalar kind,
  ``(self: Array[AddIntRule[Result]], other: int) -> Array[Result]``.  The
  kinds come in the order ``bool``, ``int``, ``float``, ``complex``, since a
  checker accepts a ``bool`` where an ``int`` is expected and an ``int``
  where a ``float`` is; where a narrower scalar is undefined and a wider one
  is not (``Array[bool_] - True`` is an error, ``Array[bool_] - 1`` is not),
  the wider rule is a separate overload taking a protocol the narrower
  Python type does not satisfy (``_IntNotBool``, ``_FloatNotInt``,
  ``_ComplexNotFloat``).
* Unknown dtypes (``Array[Any]``, ``Array[floating]``, ``Array[T]``) give
  ``Array[Any]`` (a comparison ``Array[bool_]``, as with the plugin) and
  never an error: a category's rule methods answer ``Any``, a concrete
  marker's first item takes a left operand that is a ``Category`` (its
  ``abstract`` is ``Literal[True]``; concrete markers declare
  ``Literal[False]``, as at run time), and a last overload takes a ``self``
  of unknown dtype (``SomeDType``) with any Python scalar.  Categories give
  ``Array[Any]`` rather than the plugin's category result because pyright
  matches a type variable bounded by ``floating`` exactly as it matches
  ``floating``, and a generic function (``def f(x: Array[F]) -> Array[F]:
  return x * 2``) must not get a false error.
* A comparison gives ``bool_`` wherever it is defined, so its overloads
  check the rule (``other: Array[LtRule[Left, bool_]]``) without solving a
  type variable: less work for the checker.
* The dtypes JAX with x64 off canonicalises (``float64`` computes as
  ``float32``) are operands too, with the rules' results.

``Encoding.overloads`` counts them: 2 to 12 per operator (``+``: 9).

The run-time API
----------------

``promotion.pyi`` types ``promote_types(a, b)`` and ``result_type(a, b)`` with
the same rule methods, in a dozen overloads each rather than one per pair:
``(a: type[Left] | Array[Left], b: type[AddRule[Left, Result]] | ...) ->
type[Result]``, and a marker or array with no promotion matches nothing (an
error).  A NumPy or Python scalar type (or scalar) as the first argument is
read by a rule method of its own, ``__tp_promote_other__`` (kept out of the
operators' methods: pyright reads every item of a method it matches, NumPy's
annotations with them); a Python type or scalar as the second by one
overload per kind (``type[_FloatNotInt]`` after NumPy's types, since
``np.float64`` is a ``float``).  Anything the stubs do not read (a dtype
name, a NumPy type second, a category, ``rules="numpy"``) gives
``type[DType]``, never an error.  ``Array.astype`` has an overload per
marker name (``Literal["float32"] | type[np.float32] | np.dtype[np.float32]``),
and one per Python type, converted as the library converts it: to the dtype
a weak value of its kind takes (``RuleSet.weak_dtypes``: ``float32`` under
``jax``, as ``jnp.zeros(3).astype(float)`` is).

Names
-----

What a checker shows (hovering ``+``: ``other: Array[AddRule[Left,
Result]]``): ``Left`` is ``self``'s dtype, ``Result`` the result's; a
family's protocol is ``<Op>Rule`` (``AddRule``, ``LtRule``, named after its
first operator) with rule method ``__tp_<op>__``; a self rule's protocol is
``<Op><Kind>Rule`` (``AddFloatRule``, ``SubIntNotBoolRule``, ``NegRule``,
``ResultTypeRule``), named after the first operator that uses it, with
method ``__tp_<op>_<kind>__``; each protocol's docstring lists every use.
``Category`` is a dtype category, ``SomeDType`` a dtype the stubs cannot
name, ``Kept<n>`` the left operands a rule leaves unchanged,
``NumpyArray`` a NumPy array operand, and ``NumpyUnknown`` a NumPy scalar
type that names no marker (``np.floating``).

These stubs are for checkers without plugins; mypy does not read the
overloads (see below), so they may use what only pyright-like checkers
support (a protocol as ``Array``'s type argument).

Packaging
=========

The stubs are a stub-only package, ``typing_pkg-stubs`` (PEP 561, marked
``partial``: the modules it lacks, such as ``typing_pkg.rules``, come from the
runtime package), built into the same wheel as ``typing_pkg`` from
``stubs/``.  Installing the package puts it in ``site-packages``, where
pyright, basedpyright, Pylance, pyrefly and ty look first.

mypy looks there too, and the overloads would cost it: measured with
``benchmarks/bench_stubs.py`` on 10,000 operations, mypy with the plugin
took 2.9× as long with the stubs visible (the plugin widens every overload
item) and mypy without the plugin 4.5×.  So ``Array``'s operators and
``astype`` come twice in ``typing.pyi``, as ``promote_types`` and
``result_type`` do in ``promotion.pyi``: first the run-time module's plain
signatures under ``if MYPY:``, then the overloads, unconditionally.  mypy treats ``MYPY`` as
true and keeps the first declaration of a name (the second is a
redefinition, an error it does not report in an installed package), so it
reads the plain signatures, which the plugin refines exactly as without the
stubs; pyright takes the last declaration and pyrefly follows the class
body's flow, so both read the overloads alone.  The markers' rule methods in
``dtypes.pyi`` (most of the package) are under ``if not MYPY:``, a block
mypy skips and the other checkers read.  With the plugin, mypy then
costs the same with or without the stubs (1.01× at 10,000 operations, the
parse of the files at 1,000).

Only what the declarations need is imported: a stub keeps a literal default
and writes any other as ``...``, and the imports of the run-time module that
no declaration uses are dropped (:func:`_prune_imports`); ``__init__.pyi``
declares ``result_dtype`` instead of importing it from ``typing_pkg.api``.
So a program that imports ``typing_pkg`` makes a checker analyse the four
stub files, not the rule sets, the JAX function table or NumPy's aliases
(measured on the realistic JAX corpus with ``benchmarks/bench_mypy_corpus.py``:
the stubs as they were, with the rule methods visible to mypy and the
run-time imports kept, cost mypy with the plugin 1.26× cold in a round).

The price: mypy *without* the plugin is not precise through the stubs (it
gives the plain ``Array[Any]`` results); the plugin is mypy's precise path.
Offering it the overloads would not be enough either: mypy solves the
protocol for arrays (``Array[float32] + Array[int8]``) but not the
self-type protocols of the scalar overloads (``Array[int8] + 2`` is an
error) nor the ``Category`` test (``Array[bool_] - Array[bool_]`` is
``Array[Any]``, not an error); precision without the plugin would need an
encoding of its own for mypy.

Another rule set
================

``python -m typing_pkg stubs --rules numpy --out typings`` (or ``--config
pyproject.toml``: the rule set mypy's plugin is configured with) writes the
package of another rule set into a project's ``typings/``, pyright's default
``stubPath``.  There it is *complete* (its ``py.typed`` is empty;
:func:`is_partial`): pyright maps every partial stub package it finds, in
``stubPath`` as in ``site-packages``, over the installed package's
directory, and there the installed ``typing_pkg-stubs`` (the wheel's, for
``jax``) wins, so a partial copy in ``typings/`` would be silently ignored;
a complete one is found in ``stubPath`` before anything installed, and
pyright still reads the modules it lacks from the run-time package when they
are imported by their full name (``from typing_pkg.rules import
get_rules``; ``from typing_pkg import rules`` is not found).  Each file's
first line names the rule set it encodes (:func:`recorded_rules`).
"""

from __future__ import annotations

import ast
import difflib
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from typing_pkg.dtypes import ABSTRACT, BY_NAME
from typing_pkg.ops import BINARY, COMPARISON, INPLACE, SYMBOL, UNARY
from typing_pkg.rules import DEFAULT, PY_SCALARS, RuleSet, Undefined, get_rules

__all__ = [
    "PACKAGE",
    "Encoding",
    "StaleStub",
    "check",
    "encode",
    "generate",
    "in_checkout",
    "is_partial",
    "recorded_rules",
    "stubs_dir",
    "write",
]

PACKAGE: Final = "typing_pkg-stubs"
"""The name of the stub-only package (a directory under ``stubs/``)."""

_SOURCE: Final = Path(__file__).resolve().parent
_SCALARS: Final = tuple(
    (kind, kind.removeprefix("py_"), narrow)
    for kind, narrow in zip(
        PY_SCALARS, ("bool", "_IntNotBool", "_FloatNotInt", "_ComplexNotFloat"), strict=True
    )
)
"""(rule-set operand, Python type, the type accepting it but no narrower scalar), narrowest
first (``PY_SCALARS``' order): the order a checker must try them in."""
_COMPARISONS: Final = frozenset(COMPARISON)
_REFLECTED: Final = tuple(op for op in BINARY if op not in _COMPARISONS)
_OPS: Final = (*BINARY, *INPLACE)
_OVERLOADED: Final = frozenset(
    {f"__{op}__" for op in (*_OPS, *UNARY)} | {f"__r{op}__" for op in _REFLECTED} | {"astype"}
)
"""``Array``'s methods that the stubs declare twice: plain for mypy, overloaded for pyright."""
_DTYPES_IMPORTS: Final = (
    "from typing import Any, ClassVar, Literal, Never, Protocol, TypeAlias, TypeVar, overload, "
    "type_check_only\n"
    "MYPY: bool\n"
)
_CATEGORY_PROTOCOL: Final = '''
@type_check_only
class Category(Protocol):
    """A category of dtypes (``floating``), not a dtype: its ``abstract`` is true.

    ``Any``, ``DType`` and a type variable bounded by a marker class are
    categories too: their dtype is unknown.
    """
    abstract: ClassVar[Literal[True]]
'''


def in_checkout() -> bool:
    """Return whether ``typing_pkg`` runs from its source checkout rather than an installed copy.

    A checkout is recognised by the ``pyproject.toml`` beside ``typing_pkg/``
    that names this project; an editable install runs from the checkout too.
    """
    try:
        with (_SOURCE.parent / "pyproject.toml").open("rb") as file:
            name: object = tomllib.load(file).get("project", {}).get("name")
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        return False
    return name == "typing_pkg"


def stubs_dir() -> Path:
    """Return the directory that holds the stub package the checkers read.

    In a source checkout, ``stubs/`` beside ``typing_pkg/``; in an installed
    copy, the directory ``typing_pkg`` is installed in (``site-packages``),
    where the wheel puts ``typing_pkg-stubs`` beside it.
    """
    return _SOURCE.parent / "stubs" if in_checkout() else _SOURCE.parent


def is_partial(root: Path) -> bool:
    """Return whether the stub package written under ``root`` is marked ``partial``.

    Beside the package it types it is, as PEP 561 has it: in the checkout's
    ``stubs/`` (on the path of an editable install) and in a directory that
    holds ``typing_pkg`` itself (``site-packages``), the modules it lacks come
    from the run-time package, for mypy too.  Anywhere else (a project's
    ``typings/``, pyright's ``stubPath``) it is complete: pyright would lay a
    partial one over the installed package's directory, where the installed
    stub package wins (the module's "Another rule set").
    """
    root = root.resolve()
    return root == stubs_dir().resolve() or (root / "typing_pkg").is_dir()


def _header(rules: RuleSet) -> str:
    return (
        f"# Generated by `python -m typing_pkg stubs` from the {rules.name!r} rule set "
        "and the runtime module: do not edit.\n"
        "# `python -m typing_pkg stubs --check` fails when this file is stale.\n"
    )


_RECORDED: Final = re.compile(
    r"^# Generated by `python -m typing_pkg stubs` from the '(.+)' rule set"
)


def recorded_rules(root: Path) -> str | None:
    """Return the name of the rule set the stub package under ``root`` was generated from.

    Read from the first line of its ``__init__.pyi``; ``None`` when there is no
    such file or it was not generated.
    """
    try:
        with (root / PACKAGE / "__init__.pyi").open(encoding="utf-8") as file:
            first = file.readline()
    except (OSError, UnicodeDecodeError):
        return None
    found = _RECORDED.match(first)
    return None if found is None else found[1]


# ------------------------------------------------------------------ the rules as groups

PROMOTE: Final = "promote"
"""The key of ``promote_types``'s table (``RuleSet.promote``) beside the operators'."""


@dataclass(frozen=True)
class Group:
    """Left operands that give one result."""

    result: str
    operands: tuple[str, ...]


@dataclass
class Family:
    """Equal tables (operators, ``promote_types``) and their rules.

    Its rule method on marker ``M`` gives ``L OP M`` by left operand ``L``.
    """

    name: str
    ops: tuple[str, ...]
    """The keys it serves: operators and ``promote``."""
    kept: dict[str, tuple[str, ...]] | None
    """Right operand → the left operands ``L`` with ``L OP M`` = ``L`` (``None``: no such rule)."""
    rules: dict[str, list[Group]] = field(default_factory=dict)
    """Right operand → its other groups of left operands, in the order they are tried."""
    constant: str | None = None
    """The one result every defined pair gives (``bool_`` for comparisons), if there is one."""


@dataclass(frozen=True)
class SelfRule:
    """Results that depend on ``self``'s dtype alone: a Python scalar kind, or a unary operator.

    Each marker it defines a result for gets a method returning that result;
    ``param`` is the type the scalar operand is declared as (empty for a
    unary operator).
    """

    param: str
    results: tuple[tuple[str, str], ...]
    """(array dtype, result) pairs, in table order."""


@dataclass
class Encoding:
    """Everything the stubs say about one rule set, grouped as the overloads need it."""

    rules: RuleSet
    types: tuple[str, ...]
    """The array dtypes the stubs read: the rule set's, then those it canonicalises
    (``float64`` is ``float32`` in JAX with x64 off)."""
    families: list[Family]
    family_of: dict[str, Family]
    """Every key (operator, ``promote``) → the family that serves it."""
    scalar_rules: dict[tuple[str, bool], list[SelfRule]]
    """(op, reflected) → the rules for Python scalars, in the order a checker tries them."""
    unary_rules: dict[str, SelfRule]
    numpy: dict[str, str]
    """Marker → the NumPy scalar type that stands for it (``float32`` → ``np.float32``):
    ``promote_types``, ``result_type`` and ``astype`` read them."""
    result_type: SelfRule
    """``result_type`` of one argument: a dtype of the rules gives itself."""
    self_rules: dict[SelfRule, str] = field(default_factory=dict)
    """Every distinct self rule and its name, from its first use (``add_float``, ``neg``)."""

    def constant(self, op: str) -> str | None:
        """Return the one result ``op`` gives wherever it is defined, arrays and scalars alike.

        Comparisons give ``bool_``: their overloads then only accept or refuse
        an operand, with no type variable to solve, and an operand of unknown
        dtype still gives ``Array[bool_]``.
        """
        arrays = self.family_of[op].constant
        scalars = {
            result
            for reflected in (False, True)
            for rule in self.scalar_rules.get((op, reflected), [])
            for _, result in rule.results
        }
        return arrays if arrays is not None and scalars <= {arrays} else None

    def python_types(self) -> list[tuple[str, str]]:
        """Return each Python scalar type and the marker the rules read it as (``float``: weak)."""
        return [(plain, self.rules.scalars[kind]) for kind, plain, _ in _SCALARS]

    def overloads(self, op: str, reflected: bool = False) -> int:
        """Return the number of overloads ``Array`` declares for ``op`` (or its reflection)."""
        if op in UNARY:
            return 2
        scalars = self.scalar_rules[(op, reflected)]
        # forward: the array rule first, and three for NumPy arrays unless the result is
        # constant; both: the unknown-dtype overload last
        numpy = 3 if self.numpy and not reflected and self.constant(op) is None else 0
        return (0 if reflected else 1) + len(scalars) + numpy + 1


def _outcome(rules: RuleSet, op: str, left: str, right: str | None = None) -> str | None:
    found = rules.result(op, left, right)
    return None if isinstance(found, Undefined) else found


def _cell(rules: RuleSet, key: str, left: str, right: str) -> str | None:
    """Return table ``key``'s result for ``(left, right)``, ``None`` where undefined."""
    if key == PROMOTE:
        return rules.promote(left, right)
    return _outcome(rules, key, left, right)


def _by_result(pairs: Iterable[tuple[str, str]]) -> list[Group]:
    by_result: dict[str, list[str]] = {}
    for operand, result in pairs:
        by_result.setdefault(result, []).append(operand)
    return [Group(r, tuple(ops)) for r, ops in by_result.items()]


def _families(rules: RuleSet, types: Sequence[str]) -> list[Family]:
    tables: dict[tuple[str | None, ...], list[str]] = {}
    for key in (*_OPS, PROMOTE):
        table = tuple(_cell(rules, key, a, b) for a in types for b in types)
        tables.setdefault(table, []).append(key)
    families: list[Family] = []
    for table, ops in tables.items():
        cell = dict(zip(((a, b) for a in types for b in types), table, strict=True))
        defined = {m: [(a, r) for a in types if (r := cell[(a, m)]) is not None] for m in types}
        plain = {m: _by_result(pairs) for m, pairs in defined.items()}
        rest = {m: _by_result((a, r) for a, r in pairs if r != a) for m, pairs in defined.items()}
        use_keep = 1 + max(map(len, rest.values())) < max(map(len, plain.values()))
        results = {r for r in table if r is not None}
        constant = next(iter(results)) if len(results) == 1 else None
        family = Family(ops[0], tuple(ops), None, rest if use_keep else plain, constant)
        if use_keep:
            family.kept = {m: tuple(a for a, r in pairs if r == a) for m, pairs in defined.items()}
        families.append(family)
    return families


def _scalar_rules(rules: RuleSet, types: Sequence[str], op: str, reflected: bool) -> list[SelfRule]:
    def out(a: str, scalar: str) -> str | None:
        return _outcome(rules, op, scalar, a) if reflected else _outcome(rules, op, a, scalar)

    found: list[SelfRule] = []
    for k, (kind, plain, narrow) in enumerate(_SCALARS):
        for restricted in (False, True):
            results = tuple(
                (a, r)
                for a in types
                if (r := out(a, kind)) is not None
                and restricted == any(out(a, s) is None for s, _, _ in _SCALARS[:k])
            )
            if results:
                found.append(SelfRule(narrow if restricted else plain, results))
    return found


def _numpy_types(types: Sequence[str]) -> dict[str, str]:
    """Return the markers NumPy has a scalar type of, and that type (``np.float32``).

    Read from NumPy itself: a strong marker's dtype whose scalar type lives in
    ``numpy`` (the ml_dtypes types are ``np.generic`` in NumPy's annotations).
    """
    import numpy as np

    found: dict[str, str] = {}
    for name in types:
        marker = BY_NAME[name]
        if marker.weak or marker.abstract:
            continue
        scalar = np.dtype(marker).type
        if scalar.__module__ == "numpy" and getattr(np, scalar.__name__, None) is scalar:
            found.setdefault(name, f"np.{scalar.__name__}")
    return found


def _snake(param: str) -> str:
    """``_IntNotBool`` → ``int_not_bool``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", param.lstrip("_")).lower()


def encode(rules: str | RuleSet = DEFAULT) -> Encoding:
    """Return the grouped rules of ``rules`` that the stubs encode."""
    ruleset = get_rules(rules)
    types = (*ruleset.array_types, *(t for t in ruleset.canonical if t not in ruleset.array_types))
    families = _families(ruleset, types)
    scalar_rules = {
        (op, reflected): _scalar_rules(ruleset, types, op, reflected)
        for op in _OPS
        for reflected in (False, True)
        if not (reflected and (op in _COMPARISONS or op in INPLACE))
    }
    unary_rules = {
        op: SelfRule("", tuple((a, r) for a in types if (r := _outcome(ruleset, op, a))))
        for op in UNARY
    }
    family_of = {op: f for f in families for op in f.ops}
    alone = SelfRule("", tuple((a, a) for a in types if _cell(ruleset, PROMOTE, a, a)))
    enc = Encoding(
        ruleset, types, families, family_of, scalar_rules, unary_rules, _numpy_types(types),
        alone,
    )  # fmt: skip
    for (op, reflected), found in scalar_rules.items():
        for rule in found:
            enc.self_rules.setdefault(rule, f"{'r' if reflected else ''}{op}_{_snake(rule.param)}")
    for op, rule in unary_rules.items():
        enc.self_rules.setdefault(rule, op)
    enc.self_rules.setdefault(alone, "result_type")
    return enc


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


class _Names:
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


def _protocol(family: Family) -> str:
    return f"{_camel(family.name)}Rule"


def _self_rule(enc: Encoding, rule: SelfRule) -> str:
    return f"__tp_{enc.self_rules[rule]}__"


def _self_protocol(enc: Encoding, rule: SelfRule) -> str:
    return f"{_camel(enc.self_rules[rule])}Rule"


def _uses(keys: Iterable[str]) -> str:
    """Return what a family serves, for its protocol's docstring."""
    ops = [f"``{SYMBOL[k]}``" for k in keys if k in _OPS]
    parts = [f"``L OP M`` for {', '.join(ops)}"] if ops else []
    if PROMOTE in keys:
        parts.append("``promote_types(L, M)`` and ``result_type``")
    return "; ".join(parts)


_Sig = tuple[str, str]
"""An overload: its parameters and its result."""


def _defs(
    name: str, sigs: Sequence[_Sig], ignore: str = "", indent: str = "    ", tail: str = ", /"
) -> str:
    """Return the overloads of ``name`` (a plain function if there is one signature)."""
    comment = f"  # type: ignore[{ignore}]" if ignore else ""
    decorator = f"{indent}@overload\n" if len(sigs) > 1 else ""
    return "".join(
        f"{decorator}{indent}def {name}({params}{tail}) -> {result}: ...{comment}\n"
        for params, result in sigs
    )


_ANY_SCALAR: Final = _union(plain for _, plain, _ in _SCALARS)
_NUMPY_UNKNOWN: Final = _union(
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


def _scalar_sigs(enc: Encoding, op: str, reflected: bool) -> list[_Sig]:
    """Return the overloads for Python scalars: ``self``'s marker gives the result."""
    result = _result(enc, op)
    return [
        (f"self: Array[{_self_protocol(enc, r)}[{result}]], other: {r.param}", f"Array[{result}]")
        for r in enc.scalar_rules[(op, reflected)]
    ]


def _unknown_sig(enc: Encoding, op: str) -> _Sig:
    """Return the last overload: a ``self`` of unknown dtype (a category, a type variable,
    ``Any``) with any Python scalar; as with the plugin, an unknown dtype is never an error."""
    return (f"self: Array[SomeDType], other: {_ANY_SCALAR}", f"Array[{enc.constant(op) or 'Any'}]")


def _binary_sigs(enc: Encoding, op: str) -> list[_Sig]:
    """Return the overloads of ``Array.__op__``: arrays through the rule, Python scalars, NumPy
    arrays (``_numpy_sigs``), a ``self`` of unknown dtype.

    A comparison gives ``bool_`` whatever the NumPy array: its first overload
    takes one (``NumpyArray``, a protocol) beside the arrays.
    """
    family = enc.family_of[op]
    result = _result(enc, op)
    other = f"Array[{_protocol(family)}[Left, {result}]]"
    scalars = _scalar_sigs(enc, op, reflected=False)
    if enc.constant(op) is not None or not enc.numpy:
        rule = (f"self: Array[Left], other: {other} | NumpyArray", f"Array[{result}]")
        return [rule, *scalars, _unknown_sig(enc, op)]
    rule = (f"self: Array[Left], other: {other}", f"Array[{result}]")
    return [rule, *scalars, *_numpy_sigs(family), _unknown_sig(enc, op)]


def _numpy_sigs(family: Family) -> list[_Sig]:
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


def _reflected_sigs(enc: Encoding, op: str) -> list[_Sig]:
    """Return the overloads of ``Array.__rop__``: Python scalars on the left only."""
    return [*_scalar_sigs(enc, op, reflected=True), _unknown_sig(enc, op)]


def _unary_sigs(enc: Encoding, op: str) -> list[_Sig]:
    rule = enc.unary_rules[op]
    return [
        (f"self: Array[{_self_protocol(enc, rule)}[Result]]", "Array[Result]"),
        ("self: Array[SomeDType]", "Array[Any]" if op == "abs" else "Array[SomeDType]"),
    ]


_ASTYPE_TAIL: Final = ", *, copy: bool = True, device: Any = None"


def _astype_sigs(enc: Encoding) -> list[_Sig]:
    """Return the overloads of ``Array.astype``: a marker, a NumPy type, a name, a Python type.

    A Python type is read as the rules read it (``float`` is the weak
    ``weak_float``) and converted as the library converts it: to the dtype
    a weak value of its kind takes (``RuleSet.weak_dtypes``: ``float32``
    under ``jax``), ``Any`` where the rules do not say.
    """
    sigs: list[_Sig] = [("self, dtype: type[Left]", "Array[Left]")]
    if enc.numpy:
        sigs.append(("self, dtype: type[NumpyUnknown] | np.dtype[NumpyUnknown]", "Array[Any]"))
    for name, marker in BY_NAME.items():
        if marker.abstract:
            continue
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


def _operators(enc: Encoding) -> str:
    """Return the source of every overloaded method of ``Array``: astype and the operators."""
    parts = [_defs("astype", _astype_sigs(enc), tail=_ASTYPE_TAIL)]
    for op in _OPS:
        ignore = "override" if op in ("eq", "ne") else ""
        parts.append(_defs(f"__{op}__", _binary_sigs(enc, op), ignore))
        if op in _REFLECTED:
            parts.append(_defs(f"__r{op}__", _reflected_sigs(enc, op)))
    for op in UNARY:
        parts.append(_defs(f"__{op}__", _unary_sigs(enc, op)))
    return "".join(parts)


def _helpers(enc: Encoding) -> str:
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
            f"class {_protocol(family)}(Protocol[Left_contra, Result_co]):",
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
        f"class {_OTHER_PROTOCOL}(Protocol[Left_contra, Result_co]):",
        '    """A dtype ``M`` whose rule gives ``Result_co`` for ``promote_types(L, M)``, ``L`` a '
        'NumPy or Python scalar type (or scalar) ``Left_contra``."""',
        f"    def {_OTHER_RULE}(self, left: Left_contra, /) -> Result_co: ...",
    ]
    for rule in enc.self_rules:
        lines += [
            "",
            "@type_check_only",
            f"class {_self_protocol(enc, rule)}(Protocol[Result_co]):",
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
_OTHER_PROTOCOL: Final = "PromoteOtherRule"


def _other_lefts(enc: Encoding, marker: str) -> list[_Sig]:
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
    sigs: list[_Sig] = []
    if enc.numpy:
        sigs.append(("self, left: NumpyUnknown", enc.family_of[PROMOTE].constant or "Any"))
        # A NumPy type that is a Python type too (np.float64 is a float) is refused
        # explicitly where the rules refuse it, or the Python type's item would take it.
        python = tuple(getattr(builtins, plain) for _, plain, _ in _SCALARS)
        pairs = [
            (scalar, result or "object")
            for name, scalar in enc.numpy.items()
            if (result := _cell(rules, PROMOTE, name, marker)) is not None
            or issubclass(getattr(np, scalar.removeprefix("np.")), python)
        ]
        sigs += [(f"self, left: {_union(g.operands)}", g.result) for g in _by_result(pairs)]
    results = [
        _cell(rules, PROMOTE, name, marker) if name in enc.types else None
        for _, name in enc.python_types()
    ]
    for k, (plain, _) in enumerate(enc.python_types()):
        if results[k] is not None or any(r is not None for r in results[k + 1 :]):
            sigs.append((f"self, left: {plain}", results[k] or "object"))
    return sigs


def _rule_methods(enc: Encoding, names: _Names, marker: str) -> str:
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
            sigs: list[_Sig] = [("self, left: object", unknown)]
        else:
            sigs = [("self, left: Category", unknown)]
            kept = family.kept.get(marker) if family.kept is not None else None
            if kept:
                var = names.keep_var(kept)
                sigs.append((f"self, left: {var}", var))
            sigs += [(f"self, left: {_union(g.operands)}", g.result)
                     for g in family.rules.get(marker, [])]  # fmt: skip
        out.append(_defs(_rule(family), sigs, "misc" if abstract else "override"))
    if not abstract and marker in enc.types:
        out.append(_defs(_OTHER_RULE, _other_lefts(enc, marker)))
    if marker in enc.numpy:
        out.append(f"    {_NUMPY_ATTR}: ClassVar[type[{enc.numpy[marker]}]]\n")
    for rule in enc.self_rules:
        result = dict(rule.results).get(marker)
        if result is not None:
            out.append(f"    def {_self_rule(enc, rule)}(self, /) -> {result}: ...\n")
    return "".join(out)


# ------------------------------------------------------------------ runtime modules as stubs

_PLACEHOLDER: Final = "__typing_pkg_stubgen_placeholder__"


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _ellipsis() -> ast.Expr:
    return ast.Expr(ast.Constant(...))


def _placeholder() -> ast.Expr:
    return ast.Expr(ast.Name(_PLACEHOLDER))


def _literal_or_ellipsis(default: ast.expr) -> ast.expr:
    return default if isinstance(default, ast.Constant) else ast.Constant(...)


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> ast.stmt:
    first = node.body[0] if node.body else None
    doc = (
        [first]
        if isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        else []
    )
    node.body = [*doc, _ellipsis()]
    # A default other than a literal is ``...``: the stub need not import its name.
    arguments = node.args
    arguments.defaults = [_literal_or_ellipsis(default) for default in arguments.defaults]
    arguments.kw_defaults = [
        None if default is None else _literal_or_ellipsis(default)
        for default in arguments.kw_defaults
    ]
    return node


def _stub_body(
    body: Iterable[ast.stmt], edit: Callable[[ast.ClassDef], None] | None = None
) -> list[ast.stmt]:
    """Return the statements a stub keeps of ``body``: declarations, no run-time code."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, ast.If):
            test = node.test
            if _is_name(test, "TYPE_CHECKING"):
                out += _stub_body(node.body, edit)
            elif isinstance(test, ast.UnaryOp) and _is_name(test.operand, "TYPE_CHECKING"):
                out += _stub_body(node.orelse, edit)
            continue
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out.append(_signature(node))
        elif isinstance(node, ast.ClassDef):
            node.body = _stub_body(node.body) or [_ellipsis()]
            if edit is not None:
                edit(node)
            out.append(node)
        elif isinstance(node, ast.AnnAssign):
            bare_final = _is_name(node.annotation, "Final")
            if (
                node.value is not None
                and not bare_final
                and "TypeAlias" not in ast.dump(node.annotation)
            ):
                node.value = ast.Constant(...)
            out.append(node)
        elif isinstance(node, ast.Assign | ast.Import | ast.ImportFrom) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            out.append(node)
    return out


def _stub_source(path: Path, edit: Callable[[ast.ClassDef], None], extra: str) -> str:
    """Return the stub of the module at ``path``: its declarations, edited, then ``extra``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tree.body = _stub_body(tree.body, edit)
    text = ast.unparse(ast.fix_missing_locations(tree))
    return text + "\n\n" + extra


def _indent(text: str, prefix: str = "    ") -> str:
    return "".join(prefix + line if line.strip() else line for line in text.splitlines(True))


def _typing_stub(enc: Encoding) -> str:
    """Return ``typing.pyi``: ``typing.py``'s declarations, the operators for mypy and pyright.

    The plain signatures come first, under ``if MYPY:`` (mypy's name for
    "mypy is checking"), the overloads after them, unconditionally: mypy
    keeps the first declaration of a name, the run-time module's plain
    signatures, which the plugin refines; pyright takes the last declaration
    and pyrefly follows the class body's flow, so both read the overloads.
    """
    plain: list[ast.stmt] = []
    overloads = _operators(enc)

    def edit(cls: ast.ClassDef) -> None:
        if cls.name != "Array":
            return
        kept: list[ast.stmt] = []
        for node in cls.body:
            if isinstance(node, ast.FunctionDef) and node.name in _OVERLOADED:
                if not plain:
                    kept.append(_placeholder())
                plain.append(node)
                continue
            kept.append(node)
        cls.body = kept

    imports = (
        "from typing import Any, ClassVar, Literal, Never, Protocol, Self, TypeVar, overload, "
        "type_check_only\n"
        "import numpy as np\n"
        "from typing_pkg.dtypes import Category, DType, NumpyUnknown, "
        f"{', '.join(_markers(enc))}\n"
        "MYPY: bool\n"
    )
    stub = _stub_source(_SOURCE / "typing.py", edit, _helpers(enc))
    plain_source = "\n".join(ast.unparse(node) for node in plain) + "\n"
    operators = "    if MYPY:\n" + _indent(plain_source, "        ") + overloads
    return imports + stub.replace(f"    {_PLACEHOLDER}\n", operators)


def _markers(enc: Encoding) -> list[str]:
    """Return the markers the overloads name: the rule set's, and every one ``astype`` takes."""
    named = {*enc.types, *(n for n, m in BY_NAME.items() if not m.abstract)}
    return sorted(named)


def _dtypes_stub(enc: Encoding, names: _Names) -> str:
    abstract = {m.name for m in ABSTRACT}
    inserts: dict[str, str] = {}

    def edit(cls: ast.ClassDef) -> None:
        if cls.name == "DTypeMeta":
            # The markers' own ``abstract`` (a literal) must be what checkers read.
            cls.body = [
                n
                for n in cls.body
                if not (isinstance(n, ast.AnnAssign) and "abstract" in _targets(n))
            ]
            return
        if BY_NAME.get(cls.name) is None:
            return
        # The category flag replaces the run-time assignments (declared once on DType).
        body = [
            n
            for n in cls.body
            if not (isinstance(n, ast.Assign | ast.AnnAssign) and "abstract" in _targets(n))
            and not (cls.name != "DType" and isinstance(n, ast.Assign))
        ]
        key = f"__tp_marker_{cls.name}__"
        body.append(ast.Expr(ast.Name(key)))
        if cls.name in abstract:
            flag = "    abstract: ClassVar[Literal[True]]\n"
        else:
            flag = "    abstract: ClassVar[Literal[False]]  # type: ignore[assignment]\n"
        # For pyright only: mypy (``MYPY`` is true for it) skips them (the plugin types operators).
        inserts[f"    {key}\n"] = (
            flag + "    if not MYPY:\n" + _indent(_rule_methods(enc, names, cls.name))
        )
        cls.body = body

    stub = _stub_source(_SOURCE / "dtypes.py", edit, "")
    for key, text in inserts.items():
        stub = stub.replace(key, text)
    numpy_unknown = (
        f"NumpyUnknown: TypeAlias = {_NUMPY_UNKNOWN}\n"
        '"""A NumPy scalar type that names no marker: ``np.floating``, ``np.generic``."""\n'
    )
    helpers = f"{_CATEGORY_PROTOCOL}\n{numpy_unknown}{names.variables()}"
    return f"{_DTYPES_IMPORTS}{stub}\n{helpers}"


_PROMOTION_FUNCTIONS: Final = ("promote_types", "result_type")


def _promotion_stub(enc: Encoding) -> str:
    """Return ``promotion.pyi``: the run-time functions for mypy, overloads for pyright.

    As in ``typing.pyi``, the plain signatures come first under ``if MYPY:``
    (the plugin types the calls), the overloads after them.
    """
    tree = ast.parse((_SOURCE / "promotion.py").read_text(encoding="utf-8"))
    body = _stub_body(tree.body)
    plain = [n for n in body if isinstance(n, ast.FunctionDef) and n.name in _PROMOTION_FUNCTIONS]
    body.insert(body.index(plain[0]), _placeholder())
    tree.body = [n for n in body if n not in plain]
    text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    plain_source = "\n".join(ast.unparse(node) for node in plain) + "\n"
    family = enc.family_of[PROMOTE]
    imports = (
        "from typing import Any, Literal, TypeAlias, TypeVar, overload\n"
        "import numpy as np\n"
        "from typing_pkg.dtypes import Category, DType, "
        f"{', '.join(_markers(enc))}\n"
        f"from typing_pkg.typing import Array, DTypeLike, {_protocol(family)}, {_OTHER_PROTOCOL}, "
        f"{_self_protocol(enc, enc.result_type)}, _ComplexNotFloat, "
        "_DTypeObject, _FloatNotInt, _IntNotBool, _SupportsArray\n"
        "MYPY: bool\n"
    )
    functions = "if MYPY:\n" + _indent(plain_source) + _promotion_helpers(enc)
    for name, sigs in _promotion_sigs(enc).items():
        functions += _defs(name, sigs, indent="", tail="")
    return imports + text.replace(f"{_PLACEHOLDER}\n", functions)


def _promotion_helpers(enc: Encoding) -> str:
    return (
        'Left = TypeVar("Left")\n'
        '"""The first dtype-like: a marker, a NumPy or Python scalar type, a NumPy dtype, an '
        'array, a scalar."""\n'
        'Result = TypeVar("Result", bound=DType)\n'
        '"""The promoted dtype, as the rule of the second (a marker or an array) gives it."""\n'
        "OtherDTypeLike: TypeAlias = str | type[bool] | type[int] | type[float] | type[complex] "
        "| np.dtype[Any] | type[np.generic] | _DTypeObject | _SupportsArray\n"
        '"""A dtype-like the stubs do not read: a name, a NumPy dtype or type, another '
        'library\'s dtype or array."""\n'
        "OtherOperand: TypeAlias = OtherDTypeLike | bool | int | float | complex | np.generic\n"
        '"""An operand of ``result_type`` the stubs do not read."""\n'
    )


def _promotion_sigs(enc: Encoding) -> dict[str, list[_Sig]]:
    """Return the overloads of ``promote_types`` and ``result_type``.

    A dtype of unknown dtype (a category, ``Any``) on either side first gives
    ``type[DType]``.  Then the rule: the second argument, a marker or an
    array, matched through its rule method with the first, which may be a
    marker, a NumPy or Python scalar type, a NumPy dtype or an array (and for
    ``result_type`` a Python or NumPy scalar).  A Python scalar type (or
    value) second, after a NumPy one (``np.float64`` is a ``float``), is read
    by the first's rule.  Anything else the stubs do not read gives
    ``type[DType]``; two markers or arrays the rules do not promote match
    nothing: an error.  Another rule set (``rules="numpy"``) gives
    ``type[DType]``.  The stubs of another rule set (``stubs --rules numpy``)
    are precise for ``rules="numpy"`` alone: a call without ``rules`` uses the
    run-time default (``jax``), which they do not encode, and gives
    ``type[DType]``, never an error.
    """
    family = enc.family_of[PROMOTE]
    name = enc.rules.name
    precise = f'rules: Literal["{name}"]' + (" = ..." if name == DEFAULT else "")
    any_rules = "rules: str = ..."
    # The last items take what the others refuse: under the default rules, two dtypes
    # without a promotion, an error unless ``rules`` is given; under another rule set
    # a call without ``rules`` too, since the run-time default is not the stubs' rules.
    rest = "rules: str" if name == DEFAULT else any_rules
    unknown = "type[Category] | Array[Category]"

    def second(left: str, protocol: str = _protocol(family)) -> str:
        rule = f"{protocol}[{left}, Result]"
        return f"type[{rule}] | Array[{rule}]"

    first = "type[Left] | Array[Left]"
    other = second("Left", _OTHER_PROTOCOL)
    alone = f"{_self_protocol(enc, enc.result_type)}[Result]"
    numpy = "type[np.generic] | np.dtype[Any]"
    python = [
        ("bool" if kind == "py_bool" else narrow, enc.rules.scalars[kind])
        for kind, _, narrow in _SCALARS
        if enc.rules.scalars[kind] in enc.types
    ]
    promote: list[_Sig] = [
        (f"a: {unknown}, b: DTypeLike, *, {any_rules}", "type[DType]"),
        (f"a: DTypeLike, b: {unknown}, *, {any_rules}", "type[DType]"),
        (f"a: {first}, b: {second('Left')}, *, {precise}", "type[Result]"),
        (f"a: type[Left] | np.dtype[Left], b: {other}, *, {precise}", "type[Result]"),
        (f"a: DTypeLike, b: {numpy}, *, {any_rules}", "type[DType]"),
        *[(f"a: {second(m)}, b: type[{t}], *, {precise}", "type[Result]") for t, m in python],
        (f"a: OtherDTypeLike, b: DTypeLike, *, {any_rules}", "type[DType]"),
        (f"a: DTypeLike, b: OtherDTypeLike, *, {any_rules}", "type[DType]"),
        (f"a: DTypeLike, b: DTypeLike, *, {rest}", "type[DType]"),
    ]
    numpy_operand = f"np.generic | {numpy} | np.ndarray[Any, Any]"
    result: list[_Sig] = [
        (f"a: {unknown}, /, *, {any_rules}", "type[DType]"),
        (f"a: type[{alone}] | Array[{alone}], /, *, {precise}", "type[Result]"),
        (f"a: object, /, *, {any_rules}", "type[DType]"),
        (f"a: {unknown}, b: object, /, *, {any_rules}", "type[DType]"),
        (f"a: object, b: {unknown}, /, *, {any_rules}", "type[DType]"),
        (f"a: {first}, b: {second('Left')}, /, *, {precise}", "type[Result]"),
        (f"a: type[Left] | np.dtype[Left], b: {other}, /, *, {precise}", "type[Result]"),
        (f"a: Left, b: {other}, /, *, {precise}", "type[Result]"),
        (f"a: object, b: {numpy_operand}, /, *, {any_rules}", "type[DType]"),
        *[
            (f"a: {second(m)}, b: {t} | type[{t}], /, *, {precise}", "type[Result]")
            for t, m in python
        ],
        (f"a: OtherOperand, b: object, /, *, {any_rules}", "type[DType]"),
        (f"a: object, b: OtherOperand, /, *, {any_rules}", "type[DType]"),
        (f"a: object, b: object, c: object, /, *args: object, {any_rules}", "type[DType]"),
        (f"*args: object, {rest}", "type[DType]"),
    ]
    return {"promote_types": promote, "result_type": result}


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    found: set[str] = set()
    for t in targets:
        found |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return found


# ------------------------------------------------------------------ files


def generate(rules: str | RuleSet = DEFAULT, *, partial: bool = True) -> dict[str, str]:
    """Return the stub package's files (path relative to ``stubs/`` → text).

    ``partial``: whether ``py.typed`` marks the package partial (see :func:`is_partial`).
    """
    enc = encode(rules)
    names = _Names()
    header = _header(enc.rules)
    dtypes = _dtypes_stub(enc, names)
    typing = _typing_stub(enc)
    stubs = {
        "__init__.pyi": _init_stub(),
        "dtypes.pyi": dtypes,
        "promotion.pyi": _promotion_stub(enc),
        "typing.pyi": typing,
    }
    return {
        f"{PACKAGE}/py.typed": "partial\n" if partial else "",
        **{f"{PACKAGE}/{name}": header + _prune_imports(text) for name, text in stubs.items()},
    }


def _init_stub() -> str:
    """Return ``__init__.pyi``: the package's names, ``result_dtype`` declared in place.

    The run-time ``__init__.py`` imports ``result_dtype`` from ``typing_pkg.api``
    (the JAX function table) for checkers; the stub declares its signature
    instead, so that a program importing ``typing_pkg`` does not make the
    checker analyse the table's modules.
    """
    tree = ast.parse((_SOURCE / "__init__.py").read_text(encoding="utf-8"))
    api = ast.parse((_SOURCE / "api" / "__init__.py").read_text(encoding="utf-8"))
    declared = [
        node
        for node in _stub_body(api.body)
        if isinstance(node, ast.FunctionDef) and node.name == "result_dtype"
    ]
    body: list[ast.stmt] = []
    for node in _stub_body(tree.body):
        if isinstance(node, ast.ImportFrom) and node.module == "typing_pkg.api":
            body += declared
        elif not (isinstance(node, ast.FunctionDef) and node.name == "__getattr__"):
            body.append(node)
    imports = ast.parse("from typing import Any\nfrom typing_pkg.dtypes import DType\n").body
    tree.body = [*body[:1], *imports, *body[1:]]  # after the docstring
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def _prune_imports(text: str) -> str:
    """Drop the names a stub's top-level imports bind and nothing in the stub uses.

    The stubs carry the run-time modules' imports; those the declarations do
    not need (``typing_pkg.rules`` for a default value, ``typing_pkg.dtypelike``
    for a function body) would make a checker analyse those modules too.  A
    name counts as used when it occurs anywhere but in an import, docstrings
    and ``__all__`` included (a conservative reading).
    """
    tree = ast.parse(text)
    imports = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            used.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            used.update(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", node.value))
    lines = text.splitlines(keepends=True)
    for node in reversed(imports):
        if node.end_lineno != node.lineno:  # pragma: no cover - generated imports are one line
            continue
        node.names = [a for a in node.names if (a.asname or a.name).split(".")[0] in used]
        lines[node.lineno - 1] = ast.unparse(node) + "\n" if node.names else ""
    return "".join(lines)


@dataclass(frozen=True)
class StaleStub:
    """A generated file that differs from what the generator gives now."""

    path: str
    diff: str


def write(root: Path | None = None, rules: str | RuleSet = DEFAULT) -> list[Path]:
    """Write the stub package under ``root`` (default ``stubs/``); return the files written.

    An installed copy has no default: its stub package came with the wheel,
    and its files in ``site-packages`` belong to the installer.
    """
    if root is None:
        if not in_checkout():
            raise ValueError("typing_pkg is installed, not a source checkout: give a directory")
        root = stubs_dir()
    written: list[Path] = []
    files = generate(rules, partial=is_partial(root))
    package = root / PACKAGE
    if package.is_dir():
        for old in package.rglob("*"):
            if old.is_file() and str(old.relative_to(root)) not in files:
                old.unlink()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def check(root: Path | None = None, rules: str | RuleSet = DEFAULT) -> list[StaleStub]:
    """Return the files under ``root`` (default ``stubs_dir()``) missing, stale or extra."""
    root = stubs_dir() if root is None else root
    files = generate(rules, partial=is_partial(root))
    stale: list[StaleStub] = []
    for rel, text in files.items():
        path = root / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else None
        if old != text:  # a missing file (None) is stale, even where the text is empty
            old = old or ""
            diff = "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True), text.splitlines(keepends=True), rel, rel, n=1
                )
            )
            stale.append(StaleStub(rel, diff or f"{rel}: missing\n"))
    package = root / PACKAGE
    if package.is_dir():
        for extra in sorted(package.rglob("*")):
            rel = str(extra.relative_to(root))
            if extra.is_file() and rel not in files and "__pycache__" not in rel:
                stale.append(StaleStub(rel, f"{rel}: not generated, remove it\n"))
    return stale
