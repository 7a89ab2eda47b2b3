"""Three dtype mistakes JAX users make, each found by mypy before anything runs.

Run it (``python examples/jax_mlp/mistakes.py``) to see what JAX does with
each one; type-check it to see mypy report them.  The first needs no
annotation at all; the other two come to light once a function's annotation
says which dtype it promises (``Array[bfloat16]``, ``Array[int32]``): tighten
annotations one function at a time, the rest of the program keeps its
``jax.Array`` annotations.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from typing_pkg import Array, bfloat16, float32, int32


def scale_activations(x: jax.Array) -> jax.Array:
    """Store activations in float8 to save memory, then rescale them."""
    stored = x.astype(jnp.float8_e4m3fn)
    scale = jnp.asarray(0.5, dtype=jnp.float16)
    return stored * scale  # caught: float8_e4m3fn and float16 have no promotion


def dense(x: Array[bfloat16], w: Array[bfloat16], b: Array[float32]) -> Array[bfloat16]:
    """A bfloat16 layer whose float32 bias silently widens the result."""
    return x @ w + b  # caught: bfloat16 + float32 is float32, twice the memory


def bucket(ids: Array[int32], n_buckets: int) -> Array[int32]:
    """Spread integer ids over buckets (meant ``ids // n_buckets``)."""
    return ids / n_buckets  # caught: true division of integers gives floats


def main() -> None:
    key = jax.random.key(0)
    x = jax.random.normal(key, (4,))
    try:
        scale_activations(x)
    except jax.dtypes.TypePromotionError as error:
        print(f"scale_activations: {type(error).__name__}: {str(error).splitlines()[0]}")
    w = jnp.ones((4, 4), jnp.bfloat16)
    print("dense returns", dense(x.astype(jnp.bfloat16), w, jnp.zeros(4)).dtype)
    print("bucket returns", bucket(jnp.arange(8), 3).dtype)


if __name__ == "__main__":
    main()
