"""Promotions the jax rules leave undefined: an error in both checkers."""

from __future__ import annotations

from typing_pkg import Array, float8_e4m3fn, float16, promote_types, result_type


def undefined(a: Array[float8_e4m3fn], b: Array[float16]) -> None:
    promote_types(float8_e4m3fn, float16)  # E: dtype-promotion reportCallIssue reportArgumentType
    promote_types(a.dtype, b.dtype)  # E: dtype-promotion reportCallIssue reportArgumentType
    result_type(a, b)  # E: dtype-promotion reportCallIssue reportArgumentType
    a * b  # E: dtype-promotion reportOperatorIssue
