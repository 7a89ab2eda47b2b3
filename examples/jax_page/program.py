"""The program of docs/jax-code.rst: plain JAX code and what mypy reveals with the plugin.

tests/docs/test_jax_code_page.py checks it: each ``reveal_type`` shows the dtype its comment
names, and mypy reports nothing else.  Not meant to be run.
"""

from functools import partial
from typing import reveal_type

import jax
import jax.numpy as jnp
from jax import lax

from typing_pkg import Array, bfloat16, float32


def init(key: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    w = jax.random.normal(key, (n, n), dtype=jnp.bfloat16)
    b = jnp.zeros(n)
    reveal_type(w)  # Array[bfloat16]
    reveal_type(b)  # Array[float32]
    return w, b


def layer(w, b, x):
    h = x @ w
    h = h.astype(jnp.float32) + b
    return jax.nn.gelu(h)


@partial(jax.jit, static_argnames="n")
def step(key: jax.Array, x: jax.Array, n: int) -> jax.Array:
    w, b = init(key, n)
    y = layer(w, b, x.astype(jnp.bfloat16))
    reveal_type(y)  # InferredArray[float32, Any]
    reveal_type(jnp.mean(y > 0))  # Array[float32]
    reveal_type(jnp.argmax(y, axis=-1))  # Array[int32]
    return y


def loss(w: Array[bfloat16], x: Array[float32]) -> Array[float32]:
    return jnp.sum((x @ w) ** 2)


def accumulate(xs: Array[bfloat16]) -> Array[bfloat16]:
    def body(carry, x):
        return carry + x, None

    total, _ = lax.scan(body, jnp.zeros(xs.shape[1:], jnp.bfloat16), xs)
    reveal_type(total)  # Array[bfloat16]
    return total


grads = jax.grad(loss)(jnp.ones((2, 2), jnp.bfloat16), jnp.ones((3, 2)))
reveal_type(grads)  # Array[bfloat16]
