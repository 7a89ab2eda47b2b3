"""Preprocessing: int8 features, uint32 ids and float8 activations.

Two mistakes hide in here, and the type checker finds both before anything
runs: ids that silently become floats, and a float8 operand that JAX refuses
to promote.
The rules are JAX's defaults (x64 off).
"""

from __future__ import annotations

from typing import reveal_type

from typing_pkg import (
    Array,
    bfloat16,
    float8_e4m3fn,
    float16,
    float32,
    int8,
    integer,
    uint32,
)


def dequantize(q: Array[int8], scale: Array[float32]) -> Array[float32]:
    """Turn int8 features into float32 (an integer defers to a float's width)."""
    x = q * scale
    reveal_type(x)
    return x


def normalise(q: Array[int8], w: Array[bfloat16]) -> Array[bfloat16]:
    """Divide by a Python float (a weak result), then meet the bfloat16 weights."""
    unit = q / 127.0
    reveal_type(unit)
    out = unit * w
    reveal_type(out)
    return out


def lookup(table: Array[bfloat16], idx: Array[integer]) -> Array[bfloat16]:
    """Gather rows of an embedding table."""
    return table[idx]


# Hashed ids arrive as uint32 (with x64 off JAX has no 64-bit integers); each
# shard holds every ``shards``-th row of the table.
def embed(table: Array[bfloat16], ids: Array[uint32], shards: int) -> Array[bfloat16]:
    """Map hashed ids to rows of this shard and look them up."""
    rows = ids / shards  # meant ids // shards: true division makes floats
    reveal_type(rows)
    return lookup(table, rows)  # caught: the row indices are floats now


def fp8_scale(a: Array[float8_e4m3fn], scale: Array[float16]) -> Array[float16]:
    """Rescale float8 activations (the fix: ``a.astype(float16) * scale``)."""
    out: Array[float16] = a * scale  # caught: float8_e4m3fn and float16 have no promotion
    return out
