"""Type shapes on which the no-crash fuzz (test_plugin_type_shapes.py) found the plugin wrong.

Same markers as noise.py: ``# E: code`` an expected error, ``# R: type`` a reveal.
"""

from typing import Any, Never

import jax
import jax.numpy as jnp
from jax import lax
from jax.typing import ArrayLike


# A wide argument (ArrayLike) is one unknown dtype, not each member in turn.
def wide(a: ArrayLike) -> None:
    x = jnp.asarray(a)
    reveal_type(x)  # R: typing_pkg.typing.Array[Any]
    -x
    ~x
    -jnp.full_like(x, 2)


# A function declared -> Any keeps its Any (its body only raises).
def source() -> Any:
    raise NotImplementedError


def use_source() -> None:
    x = source()
    x + 1


# Any on one side of a union operand gives Any for that member.
def reflected(u: Any | jax.Array) -> None:
    y: jax.Array = 1 - u


# A carry of Never or of an empty dict: mypy's own answer.
def body(carry, x):  # type: ignore[no-untyped-def]
    return carry, x


def loops(a: jax.Array, t: Never) -> None:
    v = lax.fori_loop(0, 3, lambda i, c: c, (a, {}))
    c, ys = lax.scan(body, t, a)
