"""Array rejects dtypes that are not subtypes, and members it does not declare."""

from __future__ import annotations

from typing_pkg import Array, DType, bool_, float32, floating, int8, integer


def takes_int8(x: Array[int8]) -> None: ...
def takes_float32(x: Array[float32]) -> None: ...
def takes_integer(x: Array[integer]) -> None: ...


def rejected(x: Array[float32], f: Array[floating], d: Array[DType], b: Array[bool_]) -> None:
    takes_int8(x)  # E: arg-type reportArgumentType
    takes_integer(x)  # E: arg-type reportArgumentType
    takes_float32(f)  # E: arg-type reportArgumentType
    takes_float32(d)  # E: arg-type reportArgumentType
    takes_integer(b)  # E: arg-type reportArgumentType
    y: Array[int8] = x  # E: assignment reportAssignmentType
    z: Array[float32] = x.astype(int8)  # E: assignment reportAssignmentType
    c: Array[float32] = x < x  # E: assignment reportAssignmentType
    n: Array[float32] = -b  # E: assignment reportAssignmentType
    t: Array[int8] = x.T  # E: assignment reportAssignmentType
    e: Array[int8] = x[0]  # E: assignment reportAssignmentType
    w: Array[int8] = x.astype(float32)  # E: assignment reportAssignmentType
    del y, z, c, n, t, e, w


def runtime_checks(v: object) -> None:
    # Works at run time, but checkers refuse a subscripted generic in isinstance.
    isinstance(v, Array[float32])  # E: misc reportArgumentType


def not_types(x: Array[int]) -> None: ...  # E: type-var reportInvalidTypeArguments
def not_a_marker(x: Array[str]) -> None: ...  # E: type-var reportInvalidTypeArguments
def two_args(x: Array[float32, int8]) -> None: ...  # E: type-arg reportInvalidTypeArguments
