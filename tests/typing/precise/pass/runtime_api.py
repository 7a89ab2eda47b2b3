"""promote_types, result_type, astype and NumPy operands: the plugin and the stubs agree.

Where one is more precise than the other (a NumPy operand, ``astype(float)``,
``rules="numpy"``) the stubs are checked in ``tests/stubs/test_runtime_api.py``.
"""

from __future__ import annotations

from typing import Any, assert_type

import numpy as np
import numpy.typing as npt

from typing_pkg import (
    Array,
    DType,
    bfloat16,
    bool_,
    float16,
    float32,
    floating,
    int8,
    int32,
    promote_types,
    result_type,
    uint16,
    weak_float,
)


def promotions(x: Array[float32], i: Array[int8], b: Array[bfloat16]) -> None:
    assert_type(promote_types(uint16, float32), type[float32])
    assert_type(promote_types(float32, uint16), type[float32])
    assert_type(promote_types(int8, uint16), type[int32])
    assert_type(promote_types(x.dtype, i.dtype), type[float32])
    assert_type(promote_types(float, float16), type[float16])  # a Python type is weak
    assert_type(promote_types(np.float32, bfloat16), type[float32])
    assert_type(promote_types(np.int8, uint16), type[int32])
    assert_type(result_type(x, i), type[float32])
    assert_type(result_type(b, 2.0), type[bfloat16])
    assert_type(result_type(2.0, b), type[bfloat16])
    assert_type(result_type(i, 2.0), type[weak_float])
    assert_type(result_type(x), type[float32])


def unknown_dtypes(c: Array[floating], a: Array[Any]) -> None:
    assert_type(promote_types(c.dtype, int8), type[DType])
    assert_type(promote_types(int8, a.dtype), type[DType])
    assert_type(result_type(a, int8), type[DType])


def conversions(x: Array[float32], i: Array[int8]) -> None:
    assert_type(x.astype(int8), Array[int8])
    assert_type(x.astype("int8"), Array[int8])
    assert_type(x.astype("bfloat16"), Array[bfloat16])
    assert_type(x.astype(np.int8), Array[int8])
    assert_type(x.astype(i.dtype), Array[int8])


def numpy_operands(x: Array[float32], n: npt.NDArray[np.float32], m: npt.NDArray[Any]) -> None:
    # Accepted by both; the plugin gives the promoted dtype, the stubs Array[Any].
    y = x + n
    z = x * m
    assert_type(x < n, Array[bool_])
    assert_type(x == m, Array[bool_])
    del y, z
