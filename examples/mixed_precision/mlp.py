"""A mixed-precision dense block, in the style of a JAX model.

Weights are stored in bfloat16 to halve memory traffic; the bias and the
residual stream stay in float32.  Python scalars are weak: ``0.5 * h`` keeps
``h``'s dtype instead of widening it.
"""

from __future__ import annotations

from typing import reveal_type

from typing_pkg import Array, bfloat16, float32


def dense(x: Array[bfloat16], w: Array[bfloat16], b: Array[float32]) -> Array[float32]:
    """Multiply by the bfloat16 weights, then add the float32 bias."""
    h = x @ w
    reveal_type(h)
    y = h + b
    reveal_type(y)
    return y


def scaled_relu(h: Array[bfloat16], slope: float) -> Array[bfloat16]:
    """Scale by Python floats, which never widen a bfloat16 array."""
    out = 0.5 * h * slope
    reveal_type(out)
    return out


def block(
    x: Array[float32], w: Array[bfloat16], b: Array[float32], *, slope: float = 0.1
) -> Array[float32]:
    """A residual block: bfloat16 compute, float32 residual stream."""
    h = dense(x.astype(bfloat16), w, b)
    act = scaled_relu(h.astype(bfloat16), slope)
    out = x + act
    reveal_type(out)
    return out
