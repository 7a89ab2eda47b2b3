"""Run a bfloat16 recurrent cell over a sequence with ``lax.scan``.

The hidden state starts as bfloat16 and the weights are bfloat16, but the
bias is float32, so the new state the body returns is float32: ``lax.scan``
raises TypeError because the carry's dtype changed.
"""

import jax
import jax.numpy as jnp
from jax import lax


def cell(params, h, x):
    w_h, w_x, b = params
    return jnp.tanh(h @ w_h + x @ w_x + b)


def run(params, xs):
    h0 = jnp.zeros(params[0].shape[0], dtype=jnp.bfloat16)

    def body(h, x):
        h = cell(params, h, x)
        return h, h

    return lax.scan(body, h0, xs)  # BUG: the float32 bias widens the bfloat16 carry to float32


def main():
    key_h, key_x = jax.random.split(jax.random.PRNGKey(0))
    hidden, features = 4, 3
    w_h = (0.5 * jax.random.normal(key_h, (hidden, hidden))).astype(jnp.bfloat16)
    w_x = jax.random.normal(key_x, (features, hidden)).astype(jnp.bfloat16)
    b = jnp.zeros(hidden, dtype=jnp.float32)
    xs = jnp.ones((5, features), dtype=jnp.bfloat16)
    final, states = run((w_h, w_x, b), xs)
    print("final state:", final, "states:", states.shape)


if __name__ == "__main__":
    main()
