"""Runtime promotion: ``promote_types``, ``result_type`` and ``PromotionError``.

Both functions read the same rule sets the type checkers use::

    >>> import typing_pkg as tp
    >>> tp.promote_types(tp.float32, tp.int8)
    typing_pkg.float32
    >>> tp.promote_types("uint64", "int64", rules="numpy")
    typing_pkg.float64
    >>> tp.result_type(tp.bfloat16, 2.0)
    typing_pkg.bfloat16

An undefined promotion raises ``PromotionError``, a ``TypeError``::

    >>> tp.promote_types("float8_e4m3fn", "float16")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    typing_pkg.promotion.PromotionError: float8_e4m3fn and float16 have no promotion ...
"""

from __future__ import annotations

import contextlib
from typing import Any, Final

from typing_pkg.dtypelike import to_marker
from typing_pkg.dtypes import BY_NAME, DType
from typing_pkg.rules import DEFAULT, get_rules

__all__ = ["PromotionError", "promote_types", "result_type"]


class PromotionError(TypeError):
    """The active rules define no promotion for these dtypes."""


# rules -> a -> b -> marker: the fast path of promote_types (nested dicts cost
# less than hashing a tuple key).  Only dtype-likes that are not arrays are
# keys (an array passed in must not be kept alive), and the cache is bounded.
_promoted: Final[dict[str, dict[Any, dict[Any, type[DType]]]]] = {}
_CACHE_LIMIT: Final = 4096
_SCALAR_VALUES: Final[dict[type, str]] = {
    bool: "bool_",
    int: "weak_int",
    float: "weak_float",
    complex: "weak_complex",
}


def _promote_names(a: str, b: str, rules: str) -> str:
    ruleset = get_rules(rules)
    for name in (a, b):
        if not ruleset.is_dtype(name):
            marker = BY_NAME[name]
            what = "a category of dtypes" if marker.abstract else "not a dtype"
            raise PromotionError(f"{name} is {what} under the {ruleset.name!r} rules")
    joined = ruleset.promote(a, b)
    if joined is None:
        raise PromotionError(
            f"{a} and {b} have no promotion under the {ruleset.name!r} rules; "
            "cast one explicitly with .astype(...)"
        )
    return joined


def promote_types(a: Any, b: Any, *, rules: str = DEFAULT) -> type[DType]:
    """Return the marker ``a`` and ``b`` promote to under ``rules``."""
    try:
        return _promoted[rules][a][b]
    except (KeyError, TypeError):  # not seen yet, or unhashable
        pass
    result = BY_NAME[_promote_names(to_marker(a).name, to_marker(b).name, rules)]
    if cacheable(a) and cacheable(b):
        by_rules = _promoted.setdefault(rules, {})
        if len(by_rules) >= _CACHE_LIMIT:
            by_rules.clear()
        with contextlib.suppress(TypeError):  # an unhashable dtype-like is not cached
            by_rules.setdefault(a, {})[b] = result
    return result


def cacheable(x: object) -> bool:
    """Return whether ``x`` may be a cache key: a dtype-like, not an array (which has a dtype)."""
    return isinstance(x, (str, type)) or not hasattr(x, "dtype")


def _operand_marker(arg: object) -> str:
    kind = _SCALAR_VALUES.get(type(arg))
    if kind is not None:
        return kind
    return to_marker(arg).name


def result_type(*args: Any, rules: str = DEFAULT) -> type[DType]:
    """Return the dtype of combining ``args``: arrays, Python scalars (weak) and dtype-likes.

    Strongly typed operands are promoted first, weak ones (Python scalars,
    weakly typed arrays) after them, as NumPy's NEP 50 and JAX do.
    """
    if not args:
        raise TypeError("result_type() needs at least one array, scalar or dtype")
    names = [_operand_marker(arg) for arg in args]
    ordered = [n for n in names if not BY_NAME[n].weak] + [n for n in names if BY_NAME[n].weak]
    result = ordered[0]
    if len(ordered) == 1:
        _promote_names(result, result, rules)
    for name in ordered[1:]:
        result = _promote_names(result, name, rules)
    return BY_NAME[result]
