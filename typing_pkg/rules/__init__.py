"""The named rule sets, each defined as data in its own module.

======================  ==================================================
name                    the behaviour it reproduces
======================  ==================================================
``jax`` (default)       ``jax.numpy``, standard promotion, ``jax_enable_x64``
``jax-x32``             the same with x64 off (64-bit types do not exist)
``jax-strict``          ``jax_numpy_dtype_promotion='strict'``
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

import importlib
from typing import Final

from typing_pkg.rules.base import PY_SCALARS, Outcome, RuleSet, Undefined

__all__ = [
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
    "jax-x32": ("typing_pkg.rules.jax", "JaxX32Rules"),
    "jax-strict": ("typing_pkg.rules.jax", "JaxStrictRules"),
    "numpy": ("typing_pkg.rules.numpy", "NumpyRules"),
    "torch": ("typing_pkg.rules.torch", "TorchRules"),
    "array-api": ("typing_pkg.rules.array_api", "ArrayApiRules"),
    "tensorflow": ("typing_pkg.rules.tensorflow", "TensorflowRules"),
}
_loaded: dict[str, RuleSet] = {}


class UnknownRulesError(ValueError):
    """No rule set has the name asked for; the message lists the valid names."""


def names() -> tuple[str, ...]:
    """Return the names of every rule set, built-in ones first."""
    return (*_BUILTIN, *(n for n in _loaded if n not in _BUILTIN))


def get_rules(name: str | RuleSet = DEFAULT) -> RuleSet:
    """Return the rule set called ``name`` (a ``RuleSet`` is returned as it is)."""
    if isinstance(name, RuleSet):
        return name
    found = _loaded.get(name)
    if found is not None:
        return found
    if ":" in name:
        return _import_rules(name)
    spec = _BUILTIN.get(name)
    if spec is None:
        raise UnknownRulesError(f"unknown rule set {name!r}; valid names: {', '.join(names())}")
    module, cls = spec
    rules: RuleSet = getattr(importlib.import_module(module), cls)()
    _loaded[name] = rules
    return rules


def _import_rules(reference: str) -> RuleSet:
    """Import the rule set named by ``"package.module:ATTRIBUTE"`` and register it."""
    module, _, attribute = reference.partition(":")
    try:
        found = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as error:
        raise UnknownRulesError(f"cannot load rule set {reference!r}: {error}") from None
    if not isinstance(found, RuleSet):
        raise UnknownRulesError(f"{reference!r} is a {type(found).__name__}, not a RuleSet")
    _loaded[reference] = found
    if found.name not in _BUILTIN:
        _loaded[found.name] = found
    return found


def register(rules: RuleSet) -> None:
    """Make ``rules`` available by its name (a built-in name cannot be replaced)."""
    if rules.name in _BUILTIN:
        raise ValueError(f"{rules.name!r} is a built-in rule set and cannot be replaced")
    _loaded[rules.name] = rules


def unregister(name: str) -> None:
    """Forget a user's rule set (registered by name or loaded by reference)."""
    if name in _BUILTIN:
        raise ValueError(f"{name!r} is a built-in rule set and cannot be removed")
    rules = _loaded.pop(name, None)
    for key in [k for k, v in _loaded.items() if v is rules and k not in _BUILTIN]:
        del _loaded[key]
