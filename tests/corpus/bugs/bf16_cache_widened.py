"""Append projected keys to a bfloat16 attention cache.

The projection weights are bfloat16, but the bias was left in float32, so
``x @ w + b`` is float32: writing it into the bfloat16 cache with
``lax.dynamic_update_slice`` raises TypeError (the operands must have the
same dtype).  The bias should be bfloat16, or the result cast back.
"""

import jax
import jax.numpy as jnp
from jax import lax


def init(key, d_model):
    w = (jax.random.normal(key, (d_model, d_model)) / d_model**0.5).astype(jnp.bfloat16)
    b = jnp.zeros(d_model)  # float32: the bias was not cast with the weights
    return w, b


def append_keys(cache, position, x, w, b):
    k = x @ w + b
    return lax.dynamic_update_slice(cache, k, (position, 0))  # BUG: k is float32, cache bfloat16


def main():
    d_model, max_len = 8, 16
    w, b = init(jax.random.PRNGKey(0), d_model)
    cache = jnp.zeros((max_len, d_model), dtype=jnp.bfloat16)
    x = jnp.ones((1, d_model), dtype=jnp.bfloat16)
    for position in range(3):
        cache = append_keys(cache, position, x, w, b)
    print("cache rows filled:", int(jnp.sum(jnp.any(cache != 0, axis=1))))


if __name__ == "__main__":
    main()
