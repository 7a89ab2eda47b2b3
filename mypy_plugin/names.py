"""Every fullname and operator method name the plugin looks for, in one place."""

from __future__ import annotations

from typing import Final

from typing_pkg.ops import ARITHMETIC, BINARY, BITWISE, INPLACE, SHIFT, UNARY

__all__ = [
    "ARRAY",
    "ASTYPE",
    "BINARY_METHODS",
    "BUILTIN_ABS",
    "BUILTIN_SCALARS",
    "DTYPES_MODULE",
    "DTYPE_ROOT",
    "INPLACE_METHODS",
    "NUMPY_DTYPE",
    "NUMPY_GENERIC",
    "NUMPY_NDARRAY",
    "PROMOTE_TYPES",
    "REFLECTED_METHODS",
    "RESULT_TYPE",
    "RULES_ARGUMENT",
    "UNARY_METHODS",
]

ARRAY: Final = "typing_pkg.typing.Array"
"""The array class; its subclasses are dispatched to the same hooks."""
DTYPES_MODULE: Final = "typing_pkg.dtypes"
"""The module that defines every dtype marker."""
DTYPE_ROOT: Final = "typing_pkg.dtypes.DType"
"""The root marker: ``Array[DType]`` is an array of unknown dtype."""
ASTYPE: Final = "astype"

PROMOTE_TYPES: Final = frozenset({"typing_pkg.promotion.promote_types", "typing_pkg.promote_types"})
RESULT_TYPE: Final = frozenset({"typing_pkg.promotion.result_type", "typing_pkg.result_type"})
RULES_ARGUMENT: Final = "rules"
"""The keyword argument of ``promote_types``/``result_type`` naming the rule set."""
BUILTIN_ABS: Final = "builtins.abs"

BUILTIN_SCALARS: Final = {
    "builtins.bool": "py_bool",
    "builtins.int": "py_int",
    "builtins.float": "py_float",
    "builtins.complex": "py_complex",
}
"""Python scalar classes and the operand kind the rule sets call them, most derived first."""

NUMPY_NDARRAY: Final = "numpy.ndarray"
NUMPY_DTYPE: Final = "numpy.dtype"
NUMPY_GENERIC: Final = "numpy.generic"

BINARY_METHODS: Final = {f"__{op}__": op for op in BINARY}
"""``__add__`` → ``add``, …, ``__lt__`` → ``lt``: the forward binary operators and comparisons."""
REFLECTED_METHODS: Final = {f"__r{op}__": op for op in (*ARITHMETIC, *BITWISE, *SHIFT)}
"""``__radd__`` → ``add``: the reflected forms (comparisons reflect into each other instead)."""
INPLACE_METHODS: Final = {f"__{op}__": op for op in INPLACE}
"""``__iadd__`` → ``iadd``."""
UNARY_METHODS: Final = {f"__{op}__": op for op in UNARY}
"""``__neg__`` → ``neg``, ``__pos__``, ``__invert__``, ``__abs__``."""
