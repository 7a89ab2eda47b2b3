"""ArrayLike, DTypeLike, ShapeLike accept what converts; Shape and DType are outputs."""

from __future__ import annotations

import array_api_strict as xp
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import numpy.typing as npt
import torch

from typing_pkg import (
    Array,
    ArrayLike,
    DType,
    DTypeLike,
    Shape,
    ShapeLike,
    bfloat16,
    float32,
    floating,
    weak_int,
)


def takes_array_like(a: ArrayLike) -> None: ...
def takes_dtype_like(d: DTypeLike) -> None: ...
def takes_shape_like(s: ShapeLike) -> None: ...
def takes_shape(s: Shape) -> None: ...
def takes_marker(m: type[DType]) -> None: ...


def array_likes(
    x: Array[float32], n: npt.NDArray[np.float32], j: jax.Array, t: torch.Tensor
) -> None:
    takes_array_like(x)
    takes_array_like(n)
    takes_array_like(np.zeros(3))
    takes_array_like(np.float32(1))  # a NumPy scalar: array-like, not an Array
    takes_array_like(j)
    takes_array_like(t)
    takes_array_like(xp.asarray([1.0]))
    takes_array_like(True)
    takes_array_like(1)
    takes_array_like(1.5)
    takes_array_like(1j)
    takes_array_like([1, 2, 3])
    takes_array_like((1.0, 2.0))
    takes_array_like([[1, 2], [3, 4]])
    takes_array_like([[[True]]])
    takes_array_like([x, x])
    takes_array_like([np.zeros(2), np.ones(2)])


def dtype_likes(
    x: Array[float32], n: npt.NDArray[np.float32], j: jax.Array, t: torch.Tensor
) -> None:
    takes_dtype_like(float32)
    takes_dtype_like(floating)
    takes_dtype_like(bfloat16)
    takes_dtype_like(weak_int)
    takes_dtype_like("float32")
    takes_dtype_like("f4")
    takes_dtype_like(bool)
    takes_dtype_like(int)
    takes_dtype_like(float)
    takes_dtype_like(complex)
    takes_dtype_like(np.float32)
    takes_dtype_like(np.int8)
    takes_dtype_like(np.dtype("float32"))
    takes_dtype_like(np.dtype(np.int64))
    takes_dtype_like(ml_dtypes.bfloat16)
    takes_dtype_like(jnp.float32)
    takes_dtype_like(jnp.bfloat16)
    takes_dtype_like(torch.float32)
    takes_dtype_like(torch.bfloat16)
    takes_dtype_like(x.dtype)
    takes_dtype_like(x)
    takes_dtype_like(n)
    takes_dtype_like(n.dtype)
    takes_dtype_like(j)
    takes_dtype_like(j.dtype)
    takes_dtype_like(t)
    takes_dtype_like(t.dtype)
    takes_dtype_like(xp.asarray([1.0]))


def shape_likes(x: Array[float32]) -> None:
    takes_shape_like(3)
    takes_shape_like(True)
    takes_shape_like(np.int64(3))
    takes_shape_like(())
    takes_shape_like((2, 3))
    takes_shape_like([2, 3])
    takes_shape_like(x.shape)
    takes_shape_like(range(3))
    takes_shape_like((np.int32(2), 3))


def shapes(x: Array[float32]) -> None:
    takes_shape(x.shape)
    takes_shape(())
    takes_shape((2, 3))
    shape: Shape = x.shape[1:]
    takes_shape(shape)


def markers() -> None:
    takes_marker(float32)
    takes_marker(floating)
    takes_marker(DType)
