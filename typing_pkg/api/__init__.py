"""The result dtype of every public array-returning function of the JAX API, as data.

The table maps each public name of ``jax.numpy``, ``jax.numpy.linalg``,
``jax.numpy.fft``, ``jax.random``, ``jax.nn``, the members of ``jax.Array``
(with the indexed updates ``x.at[i].set(y)``, … as ``jax.Array.at.set``) and
the dtype-relevant part of ``jax.lax`` to a *rule kind*
(:mod:`typing_pkg.api.kinds`) and the JAX parameters it reads.  Names whose
result does not follow from the argument dtypes are listed as "unknown" with
the reason, and public names that are not functions returning arrays (dtype
objects, classes, utilities) as "not an array": no public name is missing.

Ask it at run time with :func:`result_dtype`::

    >>> import typing_pkg as tp
    >>> tp.result_dtype("jax.numpy.mean", "int8")
    typing_pkg.float32
    >>> tp.result_dtype("jnp.exp", "int64", rules="jax-x64")
    typing_pkg.float64
    >>> tp.result_dtype("jnp.add", "int8", float)  # a Python float: JAX's f*
    typing_pkg.weak_float
    >>> tp.result_dtype("jnp.zeros", dtype="bfloat16")
    typing_pkg.bfloat16
    >>> tp.result_dtype("jnp.zeros", dtype="float64")  # x64 off: canonicalised
    typing_pkg.float32
    >>> tp.result_dtype("jnp.sum", "uint8")
    typing_pkg.uint32
    >>> tp.result_dtype("jnp.sum", "uint8", promote_integers=False)
    typing_pkg.uint8
    >>> tp.result_dtype("jnp.concatenate", ["int8", "float16"])
    typing_pkg.float16
    >>> tp.result_dtype("jnp.full", int)
    typing_pkg.weak_int
    >>> tp.result_dtype("Array.astype", "float32", dtype=float, rules="jax-x64")
    typing_pkg.float64
    >>> tp.result_dtype("jnp.linalg.slogdet", "complex64")
    (typing_pkg.complex64, typing_pkg.float32)
    >>> tp.result_dtype("random.key")  # a typed key array (JAX's key<fry>)
    typing_pkg.key
    >>> tp.result_dtype("jnp.sin", "key")  # not modelled: unknown, never wrong
    typing_pkg.DType

The function is named in full (``"jax.numpy.mean"``) or by a short alias:
``jnp.``, ``lax.``, ``random.`` (or ``jr.``), ``nn.``, ``linalg.``, ``fft.``,
``Array.`` (``Array.at.set``; ``Array.at[].set`` works too), or a bare
``jax.numpy`` name (``"mean"``).  The positional arguments after it are the
dtypes of the function's array arguments, in the order of JAX's signature
(counting array parameters only): anything ``promote_types`` accepts (a
marker, ``"float32"``, ``numpy.float32``, ``jnp.bfloat16``, an array), a
Python type or ``"py_int"``, ``"py_float"``, … for a Python scalar (weak), a
weak marker (``tp.weak_float``) for a weakly typed array, and a list for a
sequence argument (``concatenate``'s ``arrays``; the remaining dtypes are
gathered into it when no list is given).  Keyword arguments are the options
the rule reads: ``dtype=`` in every form JAX takes (``jnp.float32``,
``"float32"``, ``float``, ``int``, ``bool``, a marker; a Python type means
JAX's default dtype of its kind, strongly typed, and a 64-bit request is
canonicalised to 32 bits under x64-off rules, as JAX does),
``promote_integers=``, ``preferred_element_type=``, ``new_dtype=``,
``index_dtype=``.  ``rules=`` names a JAX rule set (:data:`RULES_OF_CONFIG`:
``jax``, JAX's default with x64 off, ``jax-x64``, ``jax-strict``).

The answer is a marker (a weak marker for a weakly typed result), a tuple
of markers for a function returning a fixed tuple of arrays, or
``typing_pkg.DType`` (an array of unknown dtype) for an "unknown" entry;
``PromotionError`` when JAX refuses the dtypes; ``TypeError`` for a name that
does not return an array; :class:`UnknownFunctionError` (a ``LookupError``)
with a suggestion for a name not in the table.  :func:`explain` returns the
entry and the outcome without raising.  On the command line:
``typing-pkg explain jnp.mean int8 --rules jax-x64``.

Static checkers read the same table: :func:`table` maps every full name to
its kind (:class:`~typing_pkg.api.kinds.Kind`), whose ``params`` and ``options`` name
JAX's parameters.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, cast

from typing_pkg.api.jax_config import RULES_OF_CONFIG
from typing_pkg.api.kinds import (
    DTYPE_OPTIONS,
    Call,
    Env,
    Kind,
    NotArray,
    Operand,
    Result,
    Unknown,
)
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypelike import to_marker
from typing_pkg.dtypes import BY_NAME, DType
from typing_pkg.promotion import cacheable as _cacheable
from typing_pkg.rules import DEFAULT, PY_SCALARS, RuleSet, Undefined, get_rules

__all__ = [
    "RULES_OF_CONFIG",
    "Explanation",
    "UnknownFunctionError",
    "explain",
    "lookup",
    "namespace_of",
    "namespaces",
    "resolve",
    "result_dtype",
    "table",
]


class UnknownFunctionError(LookupError):
    """The function is not in the table (the message suggests close names)."""


_namespaces: list[Namespace] = []
_table: dict[str, Kind] = {}
_aliases: list[tuple[str, str]] = []


def namespaces() -> tuple[Namespace, ...]:
    """Return every table module's namespaces (the modules found on first use).

    A table module is a module of this package with a ``NAMESPACES`` tuple of
    :class:`~typing_pkg.api.namespace.Namespace`: a second library's API is
    its own table module, and nothing else.
    """
    if not _namespaces:
        import importlib
        import pkgutil

        for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
            if info.ispkg or info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{__name__}.{info.name}")
            _namespaces.extend(getattr(module, "NAMESPACES", ()))
    return tuple(_namespaces)


def table() -> Mapping[str, Kind]:
    """Return the whole table, full name → kind (loaded on first use)."""
    if not _table:
        for namespace in namespaces():
            _table.update({namespace.prefix + n: kind for n, kind in namespace.entries.items()})
    return _table


def _alias_pairs() -> list[tuple[str, str]]:
    """Each alias and the prefix it stands for, the longest alias first (a bare name last)."""
    if not _aliases:
        pairs = [(a, ns.prefix) for ns in namespaces() for a in ns.aliases]
        _aliases.extend(sorted(pairs, key=lambda pair: -len(pair[0])))
    return _aliases


def namespace_of(full: str) -> Namespace:
    """Return the namespace of a full name (the longest prefix that holds it)."""
    found = [ns for ns in namespaces() if full.startswith(ns.prefix)]
    return max(found, key=lambda ns: len(ns.prefix))


def resolve(function: str) -> str:
    """Return the full name of ``function`` (an alias, or a bare name where a namespace
    takes them: ``jax.numpy``'s)."""
    entries = table()
    name = function.replace("at[].", "at.").replace("at[...].", "at.")
    if name in entries:
        return name
    for alias, full in _alias_pairs():
        if name.startswith(alias) and full + name[len(alias) :] in entries:
            return full + name[len(alias) :]
    close = difflib.get_close_matches(name, list(entries), n=3, cutoff=0.6)
    if not close:
        tail = name.rsplit(".", 1)[-1]
        close = [n for n in entries if n.rsplit(".", 1)[-1] == tail][:3]
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise UnknownFunctionError(f"{function!r} is not in the function table{hint}")


def lookup(function: str) -> Kind:
    """Return the kind of ``function`` (full name or alias)."""
    return table()[resolve(function)]


_envs: dict[str, Env] = {}


def _env(rules: str | RuleSet, namespace: Namespace | None = None) -> Env:
    """The environment of a rule set, refused when ``namespace`` does not follow it."""
    ruleset = get_rules(rules)
    if namespace is not None and ruleset.name not in namespace.rules:
        raise ValueError(
            f"{namespace.prefix}* follows {namespace.library}'s rule sets "
            f"({', '.join(sorted(namespace.rules))}), not {ruleset.name!r}"
        )
    env = _envs.get(ruleset.name)
    if env is None or env.rules is not ruleset:
        env = Env(ruleset)
        _envs[ruleset.name] = env
    return env


def _operand(arg: object) -> Operand:
    """Return the operand name of one positional argument."""
    if isinstance(arg, list | tuple):
        items: Sequence[object] = cast("Sequence[object]", arg)
        return tuple(_single(item) for item in items)
    return _single(arg)


_PY_TYPES: Final[Mapping[type, str]] = {
    bool: "py_bool",
    int: "py_int",
    float: "py_float",
    complex: "py_complex",
}


def _single(arg: object) -> str:
    if isinstance(arg, str) and arg in PY_SCALARS:
        return arg
    if isinstance(arg, type):
        found = _PY_TYPES.get(arg)
        if found is not None:
            return found
    elif type(arg) in _PY_TYPES:  # a Python scalar value
        return _PY_TYPES[type(arg)]
    marker = to_marker(arg)
    if marker.abstract:
        raise TypeError(f"{marker.name} is a category of dtypes, not a dtype")
    return marker.name


def _option(name: str, value: object) -> object:
    if name in DTYPE_OPTIONS and value is not None:
        marker = to_marker(value)
        if marker.abstract:
            raise TypeError(f"{name}={marker.name} is a category of dtypes, not a dtype")
        return marker.name
    return value


def _bind(full: str, kind: Kind, args: Sequence[object], options: Mapping[str, object]) -> Call:
    """Map the positional dtypes onto the kind's array parameters."""
    params = kind.params
    names = ", ".join(p.name for p in params if not p.constant)
    accepted = set(kind.options)
    unknown = [name for name in options if name not in accepted]
    if unknown:
        takes = f"its options are {', '.join(sorted(accepted))}" if accepted else "no options"
        raise TypeError(f"{full}: unexpected option {unknown[0]!r} ({takes})")
    bound: dict[str, Operand] = {}
    positional = [p for p in params if not p.constant]
    rest = list(args)
    for i, p in enumerate(positional):
        if not rest:
            if not p.optional:
                raise TypeError(f"{full} needs the dtypes of its array arguments: {names}")
            continue
        if p.sequence and not isinstance(rest[0], list | tuple):
            later = sum(1 for q in positional[i + 1 :] if not q.optional)
            taken, rest = rest[: len(rest) - later], rest[len(rest) - later :]
            bound[p.name] = tuple(_single(a) for a in taken)
            continue
        bound[p.name] = _operand(rest.pop(0))
    if rest:
        raise TypeError(
            f"{full} takes the dtypes of {names or 'no array argument'}, got {len(args)} dtype(s)"
        )
    return Call(full, bound, {name: _option(name, value) for name, value in options.items()})


@dataclass(frozen=True)
class Explanation:
    """A function's entry and what it gives for one call."""

    function: str
    """The full name."""
    kind: Kind
    rules: str
    result: Result

    @property
    def text(self) -> str:
        """The result as text: marker names, or why there is none."""
        return _text(self.result)


def _text(result: Result) -> str:
    if isinstance(result, tuple):
        return "(" + ", ".join(_text(r) for r in result) + ")"
    if isinstance(result, Undefined):
        return f"undefined: {result}"
    return str(result)


def explain(
    function: str, /, *args: object, rules: str | RuleSet = DEFAULT, **options: object
) -> Explanation:
    """Return the entry of ``function`` and its outcome for these dtypes, without raising."""
    full = resolve(function)
    kind = table()[full]
    env = _env(rules, namespace_of(full))
    call = _bind(full, kind, args, options)
    return Explanation(full, kind, env.name, kind.result(call, env))


def _marker(full: str, outcome: Result) -> type[DType] | tuple[type[DType], ...]:
    from typing_pkg.promotion import PromotionError

    if isinstance(outcome, tuple):
        return tuple(_marker_single(full, o) for o in outcome)
    if isinstance(outcome, Undefined):
        raise PromotionError(f"{full}: {outcome}")
    return _marker_single(full, outcome)


def _marker_single(full: str, outcome: Result) -> type[DType]:
    if isinstance(outcome, str):
        return BY_NAME[outcome]
    if isinstance(outcome, Unknown):
        return DType
    if isinstance(outcome, NotArray):
        raise TypeError(f"{full} does not return an array: {outcome.reason}")
    from typing_pkg.promotion import PromotionError

    raise PromotionError(f"{full}: {outcome}")


# The fast path.  A lookup must cost no more than about a promotion, so the common calls
# (one or two dtypes, perhaps dtype=, the default rules) are answered by nested dicts keyed
# by the arguments as given (cheaper than hashing a tuple), one table per shape of call;
# the signature takes ``rules`` in ``**options`` since a keyword-only parameter with a
# default costs every call a dict lookup.  _NONE stands for an argument not given.  The
# other calls are keyed by a tuple of everything.
_NONE: Final = object()
_Answer = type[DType] | tuple[type[DType], ...]
_unary: Final[dict[Any, dict[Any, _Answer]]] = {}  # function → a
_binary: Final[dict[Any, dict[Any, dict[Any, _Answer]]]] = {}  # function → a → b
_typed: Final[dict[Any, dict[Any, dict[Any, dict[Any, _Answer]]]]] = {}  # dtype → function → a → b
_other: Final[dict[Any, dict[Any, dict[Any, _Answer]]]] = {}  # rules → function → everything


if TYPE_CHECKING:

    def result_dtype(
        function: str,
        /,
        *dtypes: Any,
        rules: str = DEFAULT,
        dtype: Any = None,
        **options: Any,
    ) -> type[DType] | tuple[type[DType], ...]:
        """Return the dtype marker ``function`` gives for arguments of these dtypes."""
        ...

else:

    def result_dtype(function, a=_NONE, b=_NONE, /, *more, dtype=_NONE, **options):
        """Return the dtype marker ``function`` gives for arguments of these dtypes.

        The positional arguments after ``function`` are the dtypes of its array
        arguments, ``dtype=`` and the other keywords its options (``rules=`` the
        rule set, :data:`~typing_pkg.rules.DEFAULT` unless given); see the module
        documentation.  A weak marker stands for a weakly typed result, ``DType``
        for an unknown dtype.
        """
        if not (more or options):
            try:
                if dtype is _NONE:
                    if b is _NONE:
                        return _unary[function][a]
                    return _binary[function][a][b]
                return _typed[dtype][function][a][b]
            except (KeyError, TypeError):  # not seen yet, or unhashable
                pass
        return _result_dtype(function, a, b, more, dtype, options)


def _result_dtype(
    function: str, a: object, b: object, more: tuple[object, ...], dtype: object, options: Any
) -> _Answer:
    """Answer a call the fast path has not seen (and remember it if it may)."""
    rules: str = options.pop("rules", DEFAULT)
    key = (a, b, more, dtype, tuple(options.items()))
    with contextlib.suppress(KeyError, TypeError):  # not seen yet, or unhashable
        return _other[rules][function][key]
    args = tuple(x for x in (a, b) if x is not _NONE) + more
    if dtype is not _NONE:
        options = {"dtype": dtype, **options}
    found = explain(function, *args, rules=rules, **options)
    answer = _marker(found.function, found.result)
    if all(_keyable(x) for x in key):
        with contextlib.suppress(TypeError):  # a dtype-like may be unhashable
            if more or rules != DEFAULT or options.keys() - {"dtype"}:
                _other.setdefault(rules, {}).setdefault(function, {})[key] = answer
            elif dtype is not _NONE:
                _typed.setdefault(dtype, {}).setdefault(function, {}).setdefault(a, {})[b] = answer
            elif b is _NONE:
                _unary.setdefault(function, {})[a] = answer
            else:
                _binary.setdefault(function, {}).setdefault(a, {})[b] = answer
    return answer


def _keyable(x: object) -> bool:
    """Return whether ``x`` may be part of a cache key.

    Not an array, which the cache must not keep alive (``promote_types``'
    test), nor a Python scalar value: ``True``, ``1`` and ``1.0`` are equal
    keys but give different dtypes.
    """
    if isinstance(x, tuple):
        return all(_keyable(item) for item in cast("tuple[object, ...]", x))
    return type(x) not in _PY_TYPES and _cacheable(x)
