"""The named rule sets, each defined as data in its own module.

======================  ==================================================
name                    the behaviour it reproduces
======================  ==================================================
``jax`` (default)       ``jax.numpy`` as JAX runs by default: standard
                        promotion, ``jax_enable_x64=False`` (``jax-x32`` is
                        another name for it)
``jax-x64``             the same with ``jax_enable_x64=True``
``jax-strict``          ``jax_numpy_dtype_promotion='strict'``, x64 off
``numpy``               NumPy ≥ 2 (NEP 50) with the ml_dtypes types
``torch``               PyTorch ≥ 2 operators and ``torch.result_type``
``array-api``           the Array API standard as ``array_api_strict`` enforces it
``tensorflow``          TensorFlow's table in JAX's design note (explicit casts)
======================  ==================================================

``get_rules(name)`` returns a rule set (built once, on first use);
``register(rules)`` adds a user's own, for instance a
``typing_pkg.rules.custom.LatticeRules`` made from a lattice of their own.
A name of the form ``"package.module:ATTRIBUTE"`` imports that module and
uses (and registers) the rule set it holds under that attribute, so the
command line and the mypy plugin can use a custom rule set by reference.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable
from typing import Final

from typing_pkg.rules.base import PY_SCALARS, Outcome, RuleSet, Undefined

__all__ = [
    "ALIASES",
    "BUILTIN",
    "DEFAULT",
    "PY_SCALARS",
    "Outcome",
    "RuleSet",
    "Undefined",
    "UnknownRulesError",
    "get_rules",
    "names",
    "register",
    "unregister",
]

DEFAULT: Final = "jax"

# name -> (module, class): modules are imported only when their rules are used.
_BUILTIN: Final[dict[str, tuple[str, str]]] = {
    "jax": ("typing_pkg.rules.jax", "JaxRules"),
    "jax-x64": ("typing_pkg.rules.jax", "JaxX64Rules"),
    "jax-strict": ("typing_pkg.rules.jax", "JaxStrictRules"),
    "numpy": ("typing_pkg.rules.numpy", "NumpyRules"),
    "torch": ("typing_pkg.rules.torch", "TorchRules"),
    "array-api": ("typing_pkg.rules.array_api", "ArrayApiRules"),
    "tensorflow": ("typing_pkg.rules.tensorflow", "TensorflowRules"),
}
BUILTIN: Final[tuple[str, ...]] = tuple(_BUILTIN)
"""The built-in rule sets' names, the default first."""
ALIASES: Final[dict[str, str]] = {"jax-x32": "jax"}
"""Other names of built-in rule sets (accepted everywhere, not listed)."""
_loaded: dict[str, RuleSet] = {}
_MISSING: Final = object()


class UnknownRulesError(ValueError):
    """No rule set has the name asked for; the message lists the valid names."""


def names() -> tuple[str, ...]:
    """Return the names of every rule set, built-in ones first."""
    return (*_BUILTIN, *(n for n in _loaded if n not in _BUILTIN))


def get_rules(name: str | RuleSet = DEFAULT) -> RuleSet:
    """Return the rule set called ``name`` (a ``RuleSet`` is returned as it is)."""
    if isinstance(name, RuleSet):
        return name
    name = ALIASES.get(name, name)
    found = _loaded.get(name)
    if found is not None:
        return found
    if ":" in name:
        return _import_rules(name)
    spec = _BUILTIN.get(name)
    if spec is None:
        raise UnknownRulesError(
            f"unknown rule set {name!r}{_did_you_mean(name, (*names(), *ALIASES))}; "
            f"valid names: {', '.join(names())}"
        )
    module, cls = spec
    rules: RuleSet = getattr(importlib.import_module(module), cls)()
    _loaded[name] = rules
    return rules


def _did_you_mean(name: str, choices: Iterable[str]) -> str:
    """Return `` (did you mean 'x'?)`` for the choice ``name`` is a misspelling of, or ``""``."""
    choices = [c for c in choices if ":" not in c]
    folded = {c.casefold().replace("_", "-"): c for c in choices}
    close = folded.get(name.casefold().replace("_", "-"))
    if close is None:
        found = difflib.get_close_matches(name, choices, n=1, cutoff=0.6)
        close = found[0] if found else None
    return "" if close is None else f" (did you mean {close!r}?)"


def _import_rules(reference: str) -> RuleSet:
    """Import the rule set named by ``"package.module:ATTRIBUTE"`` and register it.

    ``UnknownRulesError`` when the module or the attribute is not there; an
    exception the module raises while it is imported (a ``LatticeError`` from
    a custom lattice, a bug) propagates as it is.
    """
    module_name, _, attribute = reference.partition(":")
    if not all(p.isidentifier() for p in (*module_name.split("."), attribute)):
        raise UnknownRulesError(
            f"cannot load rule set {reference!r}: a reference is 'package.module:ATTRIBUTE'"
        )
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise UnknownRulesError(f"cannot load rule set {reference!r}: {error}") from None
    found = getattr(module, attribute, _MISSING)
    if found is _MISSING:
        held = [n for n, v in vars(module).items() if isinstance(v, RuleSet)]
        raise UnknownRulesError(
            f"cannot load rule set {reference!r}: module {module_name!r} has no attribute "
            f"{attribute!r}{_did_you_mean(attribute, held)}"
        )
    if not isinstance(found, RuleSet):
        raise UnknownRulesError(f"{reference!r} is a {type(found).__name__}, not a RuleSet")
    _loaded[reference] = found
    if found.name not in _BUILTIN:
        _loaded[found.name] = found
    return found


def register(rules: RuleSet) -> None:
    """Make ``rules`` available by its name (a built-in name cannot be replaced)."""
    if rules.name in _BUILTIN or rules.name in ALIASES:
        raise ValueError(f"{rules.name!r} is a built-in rule set and cannot be replaced")
    _loaded[rules.name] = rules


def unregister(name: str) -> None:
    """Forget a user's rule set (registered by name or loaded by reference)."""
    if name in _BUILTIN:
        raise ValueError(f"{name!r} is a built-in rule set and cannot be removed")
    rules = _loaded.pop(name, None)
    for key in [k for k, v in _loaded.items() if v is rules and k not in _BUILTIN]:
        del _loaded[key]
