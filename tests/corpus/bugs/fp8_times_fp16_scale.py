"""Dequantise float8 activations with a float16 per-channel scale.

JAX gives float8 types no implicit promotion: multiplying a float8_e4m3fn
array by a float16 one raises TypePromotionError (the fix is
``x8.astype(jnp.float16) * scale``).
"""

import jax
import jax.numpy as jnp


def quantize(x, scale):
    return (x / scale).astype(jnp.float8_e4m3fn)


def dequantize(x8, scale):
    return x8 * scale  # BUG: float8_e4m3fn * float16 has no implicit promotion in JAX


def main():
    key = jax.random.PRNGKey(0)
    x = jax.random.normal(key, (4, 8), dtype=jnp.float16)
    scale = (jnp.max(jnp.abs(x), axis=0) / 448.0).astype(jnp.float16)
    x8 = quantize(x, scale)
    restored = dequantize(x8, scale)
    print("round-trip error:", jnp.max(jnp.abs(restored - x)))


if __name__ == "__main__":
    main()
