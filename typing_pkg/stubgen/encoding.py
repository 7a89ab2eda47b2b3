"""The rules as groups: the families of equal tables and the self rules the stubs encode."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from typing_pkg.dtypes import BY_NAME
from typing_pkg.ops import BINARY, COMPARISON, INPLACE, UNARY
from typing_pkg.rules import DEFAULT, PY_SCALARS, RuleSet, Undefined, get_rules

SCALARS: Final = tuple(
    (kind, kind.removeprefix("py_"), narrow)
    for kind, narrow in zip(
        PY_SCALARS, ("bool", "_IntNotBool", "_FloatNotInt", "_ComplexNotFloat"), strict=True
    )
)
"""(rule-set operand, Python type, the type accepting it but no narrower scalar), narrowest
first (``PY_SCALARS``' order): the order a checker must try them in."""
_COMPARISONS: Final = frozenset(COMPARISON)
REFLECTED: Final = tuple(op for op in BINARY if op not in _COMPARISONS)
OPS: Final = (*BINARY, *INPLACE)
OVERLOADED: Final = frozenset(
    {f"__{op}__" for op in (*OPS, *UNARY)} | {f"__r{op}__" for op in REFLECTED} | {"astype"}
)
"""``Array``'s methods that the stubs declare twice: plain for mypy, overloaded for pyright."""
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
        return [(plain, self.rules.scalars[kind]) for kind, plain, _ in SCALARS]

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


def rule_cell(rules: RuleSet, key: str, left: str, right: str) -> str | None:
    """Return table ``key``'s result for ``(left, right)``, ``None`` where undefined."""
    if key == PROMOTE:
        return rules.promote(left, right)
    return _outcome(rules, key, left, right)


def groups_by_result(pairs: Iterable[tuple[str, str]]) -> list[Group]:
    by_result: dict[str, list[str]] = {}
    for operand, result in pairs:
        by_result.setdefault(result, []).append(operand)
    return [Group(r, tuple(ops)) for r, ops in by_result.items()]


def _families(rules: RuleSet, types: Sequence[str]) -> list[Family]:
    tables: dict[tuple[str | None, ...], list[str]] = {}
    for key in (*OPS, PROMOTE):
        table = tuple(rule_cell(rules, key, a, b) for a in types for b in types)
        tables.setdefault(table, []).append(key)
    families: list[Family] = []
    for table, ops in tables.items():
        cell = dict(zip(((a, b) for a in types for b in types), table, strict=True))
        defined = {m: [(a, r) for a in types if (r := cell[(a, m)]) is not None] for m in types}
        plain = {m: groups_by_result(pairs) for m, pairs in defined.items()}
        rest = {
            m: groups_by_result((a, r) for a, r in pairs if r != a) for m, pairs in defined.items()
        }
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
    for k, (kind, plain, narrow) in enumerate(SCALARS):
        for restricted in (False, True):
            results = tuple(
                (a, r)
                for a in types
                if (r := out(a, kind)) is not None
                and restricted == any(out(a, s) is None for s, _, _ in SCALARS[:k])
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
        for op in OPS
        for reflected in (False, True)
        if not (reflected and (op in _COMPARISONS or op in INPLACE))
    }
    unary_rules = {
        op: SelfRule("", tuple((a, r) for a in types if (r := _outcome(ruleset, op, a))))
        for op in UNARY
    }
    family_of = {op: f for f in families for op in f.ops}
    alone = SelfRule("", tuple((a, a) for a in types if rule_cell(ruleset, PROMOTE, a, a)))
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
