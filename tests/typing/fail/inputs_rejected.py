"""ArrayLike, DTypeLike, ShapeLike and Shape reject what does not convert."""

from __future__ import annotations

from typing_pkg import ArrayLike, DType, DTypeLike, Shape, ShapeLike, float32


def takes_array_like(a: ArrayLike) -> None: ...
def takes_dtype_like(d: DTypeLike) -> None: ...
def takes_shape_like(s: ShapeLike) -> None: ...
def takes_shape(s: Shape) -> None: ...
def takes_marker(m: type[DType]) -> None: ...


def array_likes() -> None:
    takes_array_like("abc")  # E: arg-type reportArgumentType
    takes_array_like(b"abc")  # E: arg-type reportArgumentType
    takes_array_like(None)  # E: arg-type reportArgumentType
    takes_array_like(object())  # E: arg-type reportArgumentType
    takes_array_like({"a": 1})  # E: dict-item reportArgumentType
    takes_array_like(["a", "b"])  # E: list-item reportArgumentType
    takes_array_like(float32)  # E: arg-type reportArgumentType


def dtype_likes() -> None:
    takes_dtype_like(1)  # E: arg-type reportArgumentType
    takes_dtype_like(1.5)  # E: arg-type reportArgumentType
    takes_dtype_like(None)  # E: arg-type reportArgumentType
    takes_dtype_like(object())  # E: arg-type reportArgumentType
    takes_dtype_like([float32])  # E: arg-type reportArgumentType
    takes_dtype_like(b"f4")  # E: arg-type reportArgumentType
    takes_dtype_like(list)  # E: arg-type reportArgumentType


def shape_likes() -> None:
    takes_shape_like(1.5)  # E: arg-type reportArgumentType
    takes_shape_like(None)  # E: arg-type reportArgumentType
    takes_shape_like("12")  # E: arg-type reportArgumentType
    takes_shape_like([1.5, 2])  # E: list-item reportArgumentType
    takes_shape_like({1: 2})  # E: arg-type reportArgumentType


def shapes() -> None:
    takes_shape([1, 2])  # E: arg-type reportArgumentType
    takes_shape((1.5,))  # E: arg-type reportArgumentType
    takes_shape(3)  # E: arg-type reportArgumentType


def markers() -> None:
    takes_marker("float32")  # E: arg-type reportArgumentType
    takes_marker(float)  # E: arg-type reportArgumentType
