"""What a table module declares: its namespaces, their aliases and the rule sets they follow.

``typing_pkg.api`` finds the table modules itself (every module of the
package with a ``NAMESPACES`` tuple): a library's API is added by writing
its table module, and nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from typing_pkg.api.kinds import Kind

__all__ = ["Namespace"]


@dataclass(frozen=True)
class Namespace:
    """One namespace of a library's API, as a table."""

    prefix: str
    """How its full names start: ``"jax.numpy."``."""
    entries: Mapping[str, Kind]
    """Each name after the prefix → its kind."""
    library: str
    """The library, as messages name it: ``"JAX"``."""
    rules: frozenset[str]
    """The rule sets that reproduce the library (one per configuration of it)."""
    aliases: tuple[str, ...] = ()
    """Short prefixes that stand for ``prefix`` (``"jnp."``); ``""`` takes a bare name."""
