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
  operator family (operators whose array tables are equal: ``+``, ``*``,
  ``@`` and their in-place forms are one family), overloaded by left operand::

      class int8(signedinteger):
          @overload
          def __tp_add__(self, left: _Abstract, /) -> Any: ...     # unknown dtype
          @overload
          def __tp_add__(self, left: _K3, /) -> _K3: ...           # L + int8 is L
          @overload
          def __tp_add__(self, left: uint8, /) -> int16: ...
          ...

  A category (``floating``, ``DType``) answers ``Any`` for any left operand.
* ``Array.__add__`` has *one* overload for arrays,
  ``(self: Array[_L], other: Array[_Can_add[_L, _R]]) -> Array[_R]``: the
  checker solves ``_L`` from ``self`` and ``_R`` from the right operand's rule
  method.  An undefined pair has no item, so nothing matches and the checker
  reports the operator as unsupported (then tries the reflected method, which
  takes Python scalars only).
* Python scalars (``x + 1``, and ``1 + x`` through ``__radd__``) and unary
  operators depend on ``self``'s dtype alone: each marker has a method
  ``__tp_s<n>__(self) -> <result>`` per such rule it defines, and
  ``Array.__add__`` one overload per Python scalar kind,
  ``(self: Array[_S1[_R]], other: int) -> Array[_R]``.  The kinds come in the
  order ``bool``, ``int``, ``float``, ``complex``, since a checker accepts a
  ``bool`` where an ``int`` is expected and an ``int`` where a ``float`` is;
  where a narrower scalar is undefined and a wider one is not
  (``Array[bool_] - True`` is an error, ``Array[bool_] - 1`` is not), the
  wider rule is a separate overload taking a protocol the narrower Python
  type does not satisfy (``_IntNotBool``, ``_FloatNotInt``,
  ``_ComplexNotFloat``).
* Unknown dtypes (``Array[Any]``, ``Array[floating]``, ``Array[T]``) give
  ``Array[Any]`` (a comparison ``Array[bool_]``, as with the plugin) and
  never an error: a category's rule methods answer ``Any``, a concrete
  marker's first item takes a left operand whose ``abstract`` is
  ``Literal[True]`` (categories; concrete markers declare ``Literal[False]``,
  as at run time), and a last overload takes a ``self`` of unknown dtype with
  any Python scalar.  Categories give ``Array[Any]`` rather than the
  plugin's category result because pyright matches a type variable bounded
  by ``floating`` exactly as it matches ``floating``, and a generic function
  (``def f(x: Array[F]) -> Array[F]: return x * 2``) must not get a false
  error.
* A comparison gives ``bool_`` wherever it is defined, so its overloads
  check the rule (``other: Array[_Can_lt[_L, bool_]]``) without solving a
  type variable: less work for the checker.

``Encoding.overloads`` counts them: 2 to 9 per operator (``+``: 6).  These
stubs are for checkers without plugins; mypy does not read the overloads
(see below), so they may use what only pyright-like checkers support (a
protocol as ``Array``'s type argument).

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
item) and mypy without the plugin 4.5×.  So ``Array``'s operators come
twice in ``typing.pyi``: first the run-time module's plain signatures under
``if MYPY:``, then the overloads, unconditionally.  mypy treats ``MYPY`` as
true and keeps the first declaration of a name (the second is a
redefinition, an error it does not report in an installed package), so it
reads the plain signatures, which the plugin refines exactly as without the
stubs; pyright takes the last declaration and pyrefly follows the class
body's flow, so both read the overloads alone.  With the plugin, mypy then
costs the same with or without the stubs (1.01× at 10,000 operations, the
parse of the files at 1,000).

The price: mypy *without* the plugin is not precise through the stubs (it
gives the plain ``Array[Any]`` results); the plugin is mypy's precise path.
Offering it the overloads would not be enough either: mypy solves the
protocol for arrays (``Array[float32] + Array[int8]``) but not the
self-type protocols of the scalar overloads (``Array[int8] + 2`` is an
error) nor the ``_Abstract`` test (``Array[bool_] - Array[bool_]`` is
``Array[Any]``, not an error); precision without the plugin would need an
encoding of its own for mypy.
"""

from __future__ import annotations

import ast
import difflib
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from typing_pkg.dtypes import ABSTRACT, BY_NAME
from typing_pkg.ops import BINARY, COMPARISON, INPLACE, UNARY
from typing_pkg.rules import DEFAULT, RuleSet, Undefined, get_rules

__all__ = [
    "PACKAGE",
    "Encoding",
    "StaleStub",
    "check",
    "encode",
    "generate",
    "in_checkout",
    "stubs_dir",
    "write",
]

PACKAGE: Final = "typing_pkg-stubs"
"""The name of the stub-only package (a directory under ``stubs/``)."""

_SOURCE: Final = Path(__file__).resolve().parent
_SCALARS: Final = (
    # (rule-set operand, Python type, the type accepting it but no narrower scalar)
    ("py_bool", "bool", "bool"),
    ("py_int", "int", "_IntNotBool"),
    ("py_float", "float", "_FloatNotInt"),
    ("py_complex", "complex", "_ComplexNotFloat"),
)
_COMPARISONS: Final = frozenset(COMPARISON)
_REFLECTED: Final = tuple(op for op in BINARY if op not in _COMPARISONS)
_OPERATOR_DUNDERS: Final = frozenset(
    {f"__{op}__" for op in (*BINARY, *INPLACE, *UNARY)} | {f"__r{op}__" for op in _REFLECTED}
)
_DTYPES_IMPORTS: Final = (
    "from typing import Any, ClassVar, Literal, Protocol, TypeVar, overload, type_check_only\n"
)
_ABSTRACT_PROTOCOL: Final = '''
@type_check_only
class _Abstract(Protocol):
    """A category of dtypes (``floating``), not a dtype: its ``abstract`` is true."""
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


def _header(rules: RuleSet) -> str:
    return (
        f"# Generated by `python -m typing_pkg stubs` from the {rules.name!r} rule set "
        "and the runtime module: do not edit.\n"
        "# `python -m typing_pkg stubs --check` fails when this file is stale.\n"
    )


# ------------------------------------------------------------------ the rules as groups


@dataclass(frozen=True)
class Group:
    """Operands that give one result; ``result`` ``None``: each keeps its own dtype."""

    result: str | None
    operands: tuple[str, ...]
    param: str = ""
    """For a group of Python scalars: the type the scalar operand is declared as."""


@dataclass
class Family:
    """Operators with equal array×array tables, and each right operand's rules."""

    name: str
    ops: tuple[str, ...]
    kept: dict[str, tuple[str, ...]] | None
    """Right operand → the left operands ``L`` with ``L OP M`` = ``L`` (``None``: no such rule)."""
    rules: dict[str, list[Group]] = field(default_factory=dict)
    """Right operand → its other groups of left operands; group ``k`` is rule ``k``."""

    @property
    def size(self) -> int:
        """The number of indexed rules: the most groups one right operand has."""
        return max((len(g) for g in self.rules.values()), default=0)


@dataclass(frozen=True)
class SelfRule:
    """Results that depend on ``self``'s dtype alone: a Python scalar kind, or a unary operator.

    Each marker it defines a result for gets a method ``__tp_s<index>__``
    returning that result; ``param`` is the type the scalar operand is
    declared as (empty for a unary operator).
    """

    param: str
    results: tuple[tuple[str, str], ...]
    """(array dtype, result) pairs, in table order."""


@dataclass
class Encoding:
    """Everything the stubs say about one rule set, grouped as the overloads need it."""

    rules: RuleSet
    families: list[Family]
    family_of: dict[str, Family]
    scalar_rules: dict[tuple[str, bool], list[SelfRule]]
    """(op, reflected) → the rules for Python scalars, in the order a checker tries them."""
    unary_rules: dict[str, SelfRule]
    self_rules: dict[SelfRule, int] = field(default_factory=dict)
    """Every distinct self rule and its index (rules shared by operators are one)."""

    def overloads(self, op: str, reflected: bool = False) -> int:
        """Return the number of overloads ``Array`` declares for ``op`` (or its reflection)."""
        if op in UNARY:
            return 2
        scalars = self.scalar_rules[(op, reflected)]
        # forward: the array rule first; both: the unknown-dtype overload after the scalars
        return (0 if reflected else 1) + len(scalars) + 1


def _outcome(rules: RuleSet, op: str, left: str, right: str | None = None) -> str | None:
    found = rules.result(op, left, right)
    return None if isinstance(found, Undefined) else found


def _by_result(pairs: Iterable[tuple[str, str]], param: str = "") -> list[Group]:
    by_result: dict[str, list[str]] = {}
    for operand, result in pairs:
        by_result.setdefault(result, []).append(operand)
    return [Group(r, tuple(ops), param) for r, ops in by_result.items()]


def _families(rules: RuleSet, types: Sequence[str]) -> list[Family]:
    tables: dict[tuple[str | None, ...], list[str]] = {}
    for op in (*BINARY, *INPLACE):
        table = tuple(_outcome(rules, op, a, b) for a in types for b in types)
        tables.setdefault(table, []).append(op)
    families: list[Family] = []
    for table, ops in tables.items():
        cell = dict(zip(((a, b) for a in types for b in types), table, strict=True))
        defined = {m: [(a, r) for a in types if (r := cell[(a, m)]) is not None] for m in types}
        plain = {m: _by_result(pairs) for m, pairs in defined.items()}
        rest = {m: _by_result((a, r) for a, r in pairs if r != a) for m, pairs in defined.items()}
        use_keep = 1 + max(map(len, rest.values())) < max(map(len, plain.values()))
        family = Family(ops[0], tuple(ops), None, rest if use_keep else plain)
        if use_keep:
            family.kept = {m: tuple(a for a, r in pairs if r == a) for m, pairs in defined.items()}
        families.append(family)
    return families


def _scalar_rules(rules: RuleSet, op: str, reflected: bool) -> list[SelfRule]:
    def out(a: str, scalar: str) -> str | None:
        return _outcome(rules, op, scalar, a) if reflected else _outcome(rules, op, a, scalar)

    found: list[SelfRule] = []
    for k, (kind, plain, narrow) in enumerate(_SCALARS):
        for restricted in (False, True):
            results = tuple(
                (a, r)
                for a in rules.array_types
                if (r := out(a, kind)) is not None
                and restricted == any(out(a, s) is None for s, _, _ in _SCALARS[:k])
            )
            if results:
                found.append(SelfRule(narrow if restricted else plain, results))
    return found


def encode(rules: str | RuleSet = DEFAULT) -> Encoding:
    """Return the grouped rules of ``rules`` that the stubs encode."""
    ruleset = get_rules(rules)
    types = ruleset.array_types
    families = _families(ruleset, types)
    scalar_rules = {
        (op, reflected): _scalar_rules(ruleset, op, reflected)
        for op in (*BINARY, *INPLACE)
        for reflected in (False, True)
        if not (reflected and (op in _COMPARISONS or op in INPLACE))
    }
    unary_rules = {
        op: SelfRule("", tuple((a, r) for a in types if (r := _outcome(ruleset, op, a))))
        for op in UNARY
    }
    family_of = {op: f for f in families for op in f.ops}
    enc = Encoding(ruleset, families, family_of, scalar_rules, unary_rules)
    for rule in [*(r for rs in scalar_rules.values() for r in rs), *unary_rules.values()]:
        enc.self_rules.setdefault(rule, len(enc.self_rules))
    return enc


# ------------------------------------------------------------------ rendering


def _union(names: Iterable[str]) -> str:
    return " | ".join(names)


class _Names:
    """Private names of the stubs: type variables bounded by unions, made once each."""

    def __init__(self) -> None:
        self.bounds: dict[tuple[str, ...], str] = {}

    def keep_var(self, operands: tuple[str, ...]) -> str:
        """Return a type variable bounded by the union of ``operands``."""
        return self.bounds.setdefault(operands, f"_K{len(self.bounds)}")

    def variables(self) -> str:
        """Return the definitions of the type variables made so far."""
        return "".join(
            f'{var} = TypeVar("{var}", bound={_union(ops)})\n' for ops, var in self.bounds.items()
        )


def _rule(family: Family) -> str:
    """Return the name of the rule method of ``family`` on the markers."""
    return f"__tp_{family.name}__"


def _protocol(family: Family) -> str:
    return f"_Can_{family.name}"


_Sig = tuple[str, str]
"""An overload: its parameters and its result."""


def _defs(name: str, sigs: Sequence[_Sig], ignore: str = "", indent: str = "    ") -> str:
    """Return the overloads of method ``name`` (a plain method if there is one signature)."""
    comment = f"  # type: ignore[{ignore}]" if ignore else ""
    decorator = f"{indent}@overload\n" if len(sigs) > 1 else ""
    return "".join(
        f"{decorator}{indent}def {name}({params}, /) -> {result}: ...{comment}\n"
        for params, result in sigs
    )


def _self_rule(enc: Encoding, rule: SelfRule) -> str:
    return f"__tp_s{enc.self_rules[rule]}__"


def _self_protocol(enc: Encoding, rule: SelfRule) -> str:
    return f"_S{enc.self_rules[rule]}"


_ANY_SCALAR: Final = _union(plain for _, plain, _ in _SCALARS)


def _unknown_result(op: str) -> str:
    """Return the result for an operand of unknown dtype: a comparison still gives ``bool_``."""
    return "bool_" if op in _COMPARISONS else "Any"


def _scalar_sigs(enc: Encoding, op: str, reflected: bool) -> list[_Sig]:
    """Return the overloads for Python scalars: ``self``'s marker gives the result.

    The last takes every scalar kind for a ``self`` of unknown dtype (a
    category, a type variable, ``Any``): as with the plugin, an unknown
    dtype is never an error.
    """
    rules = enc.scalar_rules[(op, reflected)]
    # A comparison gives bool_ wherever it is defined: the rule only accepts or refuses.
    result = "bool_" if op in _COMPARISONS else "_R"
    sigs = [
        (f"self: Array[{_self_protocol(enc, r)}[{result}]], other: {r.param}", f"Array[{result}]")
        for r in rules
    ]
    sigs.append((f"self: Array[_UD], other: {_ANY_SCALAR}", f"Array[{_unknown_result(op)}]"))
    return sigs


def _binary_sigs(enc: Encoding, op: str) -> list[_Sig]:
    """Return the overloads of ``Array.__op__``: arrays through the rule, then Python scalars."""
    family = enc.family_of[op]
    result = "bool_" if op in _COMPARISONS else "_R"
    rule = (f"self: Array[_L], other: Array[{_protocol(family)}[_L, {result}]]", f"Array[{result}]")
    return [rule, *_scalar_sigs(enc, op, reflected=False)]


def _reflected_sigs(enc: Encoding, op: str) -> list[_Sig]:
    """Return the overloads of ``Array.__rop__``: Python scalars on the left only."""
    return _scalar_sigs(enc, op, reflected=True)


def _unary_sigs(enc: Encoding, op: str) -> list[_Sig]:
    rule = enc.unary_rules[op]
    return [
        (f"self: Array[{_self_protocol(enc, rule)}[_R]]", "Array[_R]"),
        ("self: Array[_UD]", "Array[Any]" if op == "abs" else "Array[_UD]"),
    ]


def _operators(enc: Encoding) -> str:
    """Return the source of every operator method of ``Array``."""
    parts: list[str] = []
    for op in (*BINARY, *INPLACE):
        ignore = "override" if op in ("eq", "ne") else ""
        parts.append(_defs(f"__{op}__", _binary_sigs(enc, op), ignore))
        if op in _REFLECTED:
            parts.append(_defs(f"__r{op}__", _reflected_sigs(enc, op)))
    for op in UNARY:
        parts.append(_defs(f"__{op}__", _unary_sigs(enc, op)))
    return "".join(parts)


def _helpers(enc: Encoding) -> str:
    """Return the type variables and protocols the operators refer to."""
    lines = [
        '_L = TypeVar("_L", bound=DType)',
        '_R = TypeVar("_R", bound=DType)',
        '_T_contra = TypeVar("_T_contra", contravariant=True)',
        '_R_co = TypeVar("_R_co", covariant=True)',
        '_UD = TypeVar("_UD", bound=_Abstract)',
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
    ]
    for family in enc.families:
        lines += [
            "",
            "@type_check_only",
            f"class {_protocol(family)}(Protocol[_T_contra, _R_co]):",
            f"    def {_rule(family)}(self, left: _T_contra, /) -> _R_co: ...",
        ]
    for rule in enc.self_rules:
        lines += [
            "",
            "@type_check_only",
            f"class {_self_protocol(enc, rule)}(Protocol[_R_co]):",
            f"    def {_self_rule(enc, rule)}(self, /) -> _R_co: ...",
        ]
    return "\n".join(lines) + "\n"


def _rule_methods(enc: Encoding, names: _Names, marker: str) -> str:
    """Return the rule methods of one marker class, one per operator family.

    A category (``floating``) gives an unknown result for any left operand; a
    concrete marker gives one for a left operand of unknown dtype (first, so
    that ``Any`` matches it), then the rule's results for the left operands
    it defines, and nothing for any other: the overload does not match.
    """
    out: list[str] = []
    for family in enc.families:
        unknown = _unknown_result(family.ops[0])
        if BY_NAME[marker].abstract:
            sigs: list[_Sig] = [("self, left: object", unknown)]
        else:
            sigs = [("self, left: _Abstract", unknown)]
            kept = family.kept.get(marker) if family.kept is not None else None
            if kept:
                var = names.keep_var(kept)
                sigs.append((f"self, left: {var}", var))
            sigs += [(f"self, left: {_union(g.operands)}", str(g.result))
                     for g in family.rules.get(marker, [])]  # fmt: skip
        out.append(_defs(_rule(family), sigs, "misc" if BY_NAME[marker].abstract else "override"))
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
            if isinstance(node, ast.FunctionDef) and node.name in _OPERATOR_DUNDERS:
                if not plain:
                    kept.append(_placeholder())
                plain.append(node)
                continue
            kept.append(node)
        cls.body = kept

    imports = (
        "from typing import Any, ClassVar, Literal, Never, Protocol, Self, TypeVar, overload, "
        "type_check_only\n"
        f"from typing_pkg.dtypes import DType, _Abstract, {', '.join(sorted(_markers(enc)))}\n"
        "MYPY: bool\n"
    )
    stub = _stub_source(_SOURCE / "typing.py", edit, _helpers(enc))
    plain_source = "\n".join(ast.unparse(node) for node in plain) + "\n"
    operators = "    if MYPY:\n" + _indent(plain_source, "        ") + overloads
    return imports + stub.replace(f"    {_PLACEHOLDER}\n", operators)


def _markers(enc: Encoding) -> set[str]:
    return set(enc.rules.array_types)


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
        inserts[f"    {key}\n"] = flag + _rule_methods(enc, names, cls.name)
        cls.body = body

    stub = _stub_source(_SOURCE / "dtypes.py", edit, "")
    for key, text in inserts.items():
        stub = stub.replace(key, text)
    return _DTYPES_IMPORTS + stub + "\n" + _ABSTRACT_PROTOCOL + "\n" + names.variables()


def _targets(node: ast.Assign | ast.AnnAssign) -> set[str]:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    found: set[str] = set()
    for t in targets:
        found |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
    return found


# ------------------------------------------------------------------ files


def generate(rules: str | RuleSet = DEFAULT) -> dict[str, str]:
    """Return the stub package's files (path relative to ``stubs/`` → text)."""
    enc = encode(rules)
    names = _Names()
    header = _header(enc.rules)
    dtypes = _dtypes_stub(enc, names)
    typing = _typing_stub(enc)
    return {
        f"{PACKAGE}/py.typed": "partial\n",
        f"{PACKAGE}/dtypes.pyi": header + dtypes,
        f"{PACKAGE}/typing.pyi": header + typing,
    }


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
    files = generate(rules)
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
    """Return the files under ``root`` that are missing, stale or not generated."""
    root = stubs_dir() if root is None else root
    files = generate(rules)
    stale: list[StaleStub] = []
    for rel, text in files.items():
        path = root / rel
        old = path.read_text(encoding="utf-8") if path.is_file() else ""
        if old != text:
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


def summary(rules: str | RuleSet = DEFAULT) -> str:
    """Return one line per operator: how many overloads the stubs declare for it."""
    enc = encode(rules)
    lines: list[str] = []
    for op in (*BINARY, *INPLACE, *UNARY):
        text = f"{op}: {enc.overloads(op)}"
        if op in _REFLECTED:
            text += f" (reflected {enc.overloads(op, reflected=True)})"
        lines.append(text)
    return "\n".join(lines)
