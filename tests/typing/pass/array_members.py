"""Array's members: the Array API array object with precise types."""

from __future__ import annotations

import operator
from types import ModuleType
from typing import Any, assert_type

from typing_pkg import (
    Array,
    Shape,
    bfloat16,
    bool_,
    complex64,
    complex128,
    complexfloating,
    float32,
    float64,
    floating,
    int8,
    weak_complex,
    weak_float,
)


def attributes(x: Array[float32]) -> None:
    assert_type(x.dtype, type[float32])
    assert_type(x.shape, tuple[int, ...])
    assert_type(x.shape, Shape)
    assert_type(x.ndim, int)
    assert_type(x.size, int)
    assert_type(x.T, Array[float32])
    assert_type(x.mT, Array[float32])
    assert_type(x.device, Any)


def jax_members(x: Array[float32]) -> None:
    """``Array`` is ``jax.Array`` too: it has JAX's members, their dtype unknown without the
    plugin (the plugin gives it from the API table)."""
    assert_type(x.reshape(3), Array[Any])
    assert_type(len(x), int)
    assert_type(x.at[0].set(1.0), Array[float32])
    assert_type(x.block_until_ready(), Array[float32])
    assert_type(x.nbytes, int)


def methods(x: Array[float32], y: Array[int8]) -> None:
    assert_type(x.astype(int8), Array[int8])
    assert_type(x.astype(bfloat16, copy=False), Array[bfloat16])
    assert_type(x.astype(y.dtype), Array[int8])
    assert_type(x.astype(floating), Array[floating])
    assert_type(x.astype("int8"), Array[Any])
    assert_type(x.astype(float), Array[Any])
    assert_type(x.to_device(x.device), Array[float32])
    assert_type(x.__array_namespace__(), ModuleType)
    assert_type(x.__array_namespace__(api_version="2024.12"), ModuleType)
    assert_type(x.__dlpack__(), object)
    assert_type(x.__dlpack_device__(), tuple[int, int])
    assert_type(bool(x), bool)
    assert_type(int(x), int)
    assert_type(float(x), float)
    assert_type(complex(x), complex)
    assert_type(operator.index(x), int)


def indexing(x: Array[float32], i: Array[int8], b: Array[bool_]) -> None:
    assert_type(x[0], Array[float32])
    assert_type(x[1:3], Array[float32])
    assert_type(x[..., None], Array[float32])
    assert_type(x[0, 1:, ...], Array[float32])
    assert_type(x[i], Array[float32])
    assert_type(x[b], Array[float32])
    x[0] = 1.0
    x[1:] = x
    x[b] = 0
    x[..., 0] = i


def unary(x: Array[float32], i: Array[int8], c: Array[complex64], z: Array[complex128]) -> None:
    assert_type(-x, Array[float32])
    assert_type(+x, Array[float32])
    assert_type(~i, Array[int8])
    assert_type(abs(x), Array[float32])
    assert_type(abs(i), Array[int8])
    assert_type(abs(c), Array[float32])
    assert_type(abs(z), Array[float64])


def abs_of_categories(c: Array[complexfloating], w: Array[weak_complex]) -> None:
    assert_type(abs(c), Array[floating])
    assert_type(abs(w), Array[weak_float])


def binary_fallbacks(x: Array[float32], y: Array[int8]) -> None:
    # Without the plugin or the stubs: un-promoted fallbacks.
    assert_type(x + y, Array[Any])
    assert_type(x - 1, Array[Any])
    assert_type(x * 2.0, Array[Any])
    assert_type(x / y, Array[Any])
    assert_type(x // 2, Array[Any])
    assert_type(x % 2, Array[Any])
    assert_type(x**2, Array[Any])
    assert_type(x @ x, Array[Any])
    assert_type(y & y, Array[Any])
    assert_type(y | True, Array[Any])
    assert_type(y ^ 1, Array[Any])
    assert_type(y << 1, Array[Any])
    assert_type(y >> y, Array[Any])


def unions(x: Array[float32], a: Array[float32] | Array[int8], n: Array[float32] | None) -> None:
    assert_type(x + a, Array[Any])
    assert_type(a + x, Array[Any])
    assert_type(1 + a, Array[Any])
    assert_type(a < 1, Array[bool_])
    assert_type(x < 1j, Array[bool_])  # JAX and NumPy order complex numbers
    if n is not None:
        assert_type(n[0], Array[float32])


def reflected(x: Array[float32], y: Array[int8]) -> None:
    assert_type(1 + x, Array[Any])
    assert_type(1.5 - x, Array[Any])
    assert_type(2j * x, Array[Any])
    assert_type(True / x, Array[Any])
    assert_type(2 // x, Array[Any])
    assert_type(2 % x, Array[Any])
    assert_type(2**x, Array[Any])
    assert_type(1 & y, Array[Any])
    assert_type(1 | y, Array[Any])
    assert_type(1 ^ y, Array[Any])
    assert_type(1 << y, Array[Any])
    assert_type(1 >> y, Array[Any])


def comparisons(x: Array[float32], y: Array[int8]) -> None:
    assert_type(x < y, Array[bool_])
    assert_type(x <= 1, Array[bool_])
    assert_type(x > 1.5, Array[bool_])
    assert_type(x >= y, Array[bool_])
    assert_type(x == y, Array[bool_])
    assert_type(x != 1j, Array[bool_])
    assert_type(1 < x, Array[bool_])  # noqa: SIM300  (reflected: x.__gt__)


def in_place(x: Array[float32], y: Array[int8]) -> None:
    x += 1
    x -= y
    x *= 2.0
    x /= x
    x //= 2
    x %= 2
    x **= 2
    x @= x
    assert_type(x, Array[float32])
    y &= 1
    y |= y
    y ^= True
    y <<= 1
    y >>= y
    assert_type(y, Array[int8])
