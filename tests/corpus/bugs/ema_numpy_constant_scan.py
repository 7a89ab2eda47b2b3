"""Smooth a bfloat16 signal with an exponential moving average under ``lax.scan``.

The decay is a NumPy float64 scalar: NumPy's scalars are strongly typed in
JAX (x64 off, float64 becomes float32), so ``decay * avg`` is float32 and the
bfloat16 carry changes dtype: ``lax.scan`` raises TypeError.
"""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

DECAY = np.float64(0.9)


def smooth(xs):
    def step(avg, x):
        avg = DECAY * avg + (1 - DECAY) * x
        return avg, avg

    start = jnp.zeros(xs.shape[1:], jnp.bfloat16)
    return lax.scan(step, start, xs)  # BUG: the float64 NumPy decay widens the carry


def main():
    xs = jax.random.normal(jax.random.PRNGKey(0), (6, 4)).astype(jnp.bfloat16)
    final, path = smooth(xs)
    print(final, path.shape)


if __name__ == "__main__":
    main()
