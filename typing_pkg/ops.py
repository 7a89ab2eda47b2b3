"""The operators the rule sets give results for, by their ``operator``-module names.

Binary operators are named as in Python's ``operator`` module without the
trailing underscore (``add``, ``truediv``, ``and``); in-place forms carry an
``i`` (``iadd``); unary ones are ``neg``, ``pos``, ``invert`` and ``abs``.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "ARITHMETIC",
    "BINARY",
    "BITWISE",
    "COMPARISON",
    "INPLACE",
    "INPLACE_OF",
    "OPERATORS",
    "SHIFT",
    "SYMBOL",
    "UNARY",
]

ARITHMETIC: Final = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "matmul")
BITWISE: Final = ("and", "or", "xor")
SHIFT: Final = ("lshift", "rshift")
COMPARISON: Final = ("lt", "le", "gt", "ge", "eq", "ne")
BINARY: Final = (*ARITHMETIC, *BITWISE, *SHIFT, *COMPARISON)
INPLACE_OF: Final = {f"i{op}": op for op in (*ARITHMETIC, *BITWISE, *SHIFT)}
"""Each in-place operator and the binary operator it performs."""
INPLACE: Final = tuple(INPLACE_OF)
UNARY: Final = ("neg", "pos", "invert", "abs")
OPERATORS: Final = (*BINARY, *INPLACE, *UNARY)
"""Every operator, in the order the truth files and tables list them."""

SYMBOL: Final = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<",
    "rshift": ">>", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!=",
    **{f"i{op}": f"{sym}=" for op, sym in (
        ("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("floordiv", "//"),
        ("mod", "%"), ("pow", "**"), ("matmul", "@"), ("and", "&"), ("or", "|"),
        ("xor", "^"), ("lshift", "<<"), ("rshift", ">>"),
    )},
    "neg": "-", "pos": "+", "invert": "~", "abs": "abs()",
}  # fmt: skip
"""How each operator is written in Python."""
