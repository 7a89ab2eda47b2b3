"""Members and operands that the array object does not have or accept."""

from __future__ import annotations

from typing_pkg import Array, float32, int8


def members(x: Array[float32], i: Array[int8]) -> None:
    x.shape = (1,)  # E: misc reportAttributeAccessIssue
    x.astype(3)  # E: call-overload reportCallIssue reportArgumentType
    _ = x[1.5]  # E: index reportArgumentType
    _ = x["a"]  # E: index reportArgumentType
    x[0] = "a"  # E: assignment reportArgumentType
    Array()  # E: abstract reportAbstractUsage


def operands(x: Array[float32], i: Array[int8]) -> None:
    x + "a"  # E: operator reportOperatorIssue
    "a" + x  # E: operator reportOperatorIssue
    x @ 1  # E: operator reportOperatorIssue
    1 @ x  # E: operator reportOperatorIssue
    i & 1.5  # E: operator reportOperatorIssue
    1.5 | i  # E: operator reportOperatorIssue
    x + None  # E: operator reportOperatorIssue
    x += "a"  # E: arg-type reportOperatorIssue reportUnknownVariableType
