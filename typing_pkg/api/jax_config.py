"""JAX's configurations and the rule sets reproducing them, for JAX's table modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["JAX_RULES", "RULES_OF_CONFIG"]

RULES_OF_CONFIG: Final[Mapping[tuple[bool, bool], str]] = {
    (False, False): "jax",
    (True, False): "jax-x64",
    (False, True): "jax-strict",
}
"""JAX's configuration ``(jax_enable_x64, strict promotion)`` → the rule set reproducing it.

The one place that ties configurations to rule-set names: the truth
recorder (``tools/make_function_truth.py``), the tests and
:func:`typing_pkg.api.result_dtype` read it.
"""

JAX_RULES: Final = frozenset(RULES_OF_CONFIG.values())
"""The rule sets JAX's API follows."""
