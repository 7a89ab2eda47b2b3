"""Array is covariant in its dtype: a float32 array is a floating array."""

from __future__ import annotations

from typing import Any, TypeVar, assert_type

from typing_pkg import (
    Array,
    DType,
    bool_,
    float32,
    floating,
    generic,
    inexact,
    int8,
    integer,
    number,
    signedinteger,
    weak_float,
)

DT = TypeVar("DT", bound=DType)


def takes_floating(x: Array[floating]) -> None: ...
def takes_inexact(x: Array[inexact]) -> None: ...
def takes_number(x: Array[number]) -> None: ...
def takes_generic(x: Array[generic]) -> None: ...
def takes_dtype(x: Array[DType]) -> None: ...
def takes_any(x: Array[Any]) -> None: ...
def takes_integer(x: Array[integer]) -> None: ...
def takes_float32(x: Array[float32]) -> None: ...


def identity(x: Array[DT]) -> Array[DT]:
    return x


def upcasts(x: Array[float32], i: Array[int8], w: Array[weak_float], b: Array[bool_]) -> None:
    takes_floating(x)
    takes_inexact(x)
    takes_number(x)
    takes_generic(x)
    takes_dtype(x)
    takes_any(x)
    takes_floating(w)
    takes_integer(i)
    takes_generic(b)
    s: Array[signedinteger] = i
    takes_integer(s)
    unknown: Array[Any] = x
    takes_float32(unknown)  # an unknown dtype is accepted anywhere


def generic_functions(x: Array[float32], i: Array[int8]) -> None:
    assert_type(identity(x), Array[float32])
    assert_type(identity(i), Array[int8])
    both: list[Array[floating]] = [x, x.astype(weak_float)]
    assert_type(both, list[Array[floating]])


def bare(x: Array, y: Array[float32]) -> None:
    # A bare Array is an array of unknown dtype: Array[Any], accepted anywhere.
    assert_type(x, Array[Any])
    takes_float32(x)
    z: Array = y
    takes_floating(z)


def narrowing(maybe: Array[float32] | int) -> None:
    if isinstance(maybe, Array):
        assert_type(maybe, Array[float32])
    else:
        assert_type(maybe, int)
