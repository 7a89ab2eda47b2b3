"""typing_pkg: dtype-precise static typing for array code.

Annotate arrays as ``Array[float32]``; mypy (with ``plugins = mypy_plugin``)
or pyright (through the generated stubs) infers the dtype of every result from
a promotion lattice, JAX's by default.  At run time the same rule sets answer
``promote_types`` and ``result_type``.

The dtype markers (``float32``, ``bfloat16``, ``weak_int``, the categories
``floating``, …) are importable from here, as are the runtime functions and
the typing module's ``Array``, ``ArrayLike``, ``DTypeLike``, ``ShapeLike`` and
``Shape`` (see ``typing_pkg.typing``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from typing_pkg.dtypes import (
    DType,
    bcomplex32,
    bfloat16,
    bool_,
    complex32,
    complex64,
    complex128,
    complexfloating,
    float4_e2m1fn,
    float6_e2m3fn,
    float6_e3m2fn,
    float8_e3m4,
    float8_e4m3,
    float8_e4m3b11fnuz,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float8_e8m0fnu,
    float16,
    float32,
    float64,
    floating,
    generic,
    inexact,
    int1,
    int2,
    int4,
    int8,
    int16,
    int32,
    int64,
    integer,
    key,
    number,
    signedinteger,
    uint1,
    uint2,
    uint4,
    uint8,
    uint16,
    uint32,
    uint64,
    unsignedinteger,
    weak_complex,
    weak_float,
    weak_int,
)
from typing_pkg.promotion import PromotionError, promote_types, result_type
from typing_pkg.typing import Array, ArrayLike, DTypeLike, Shape, ShapeLike

if TYPE_CHECKING:
    from typing_pkg.api import result_dtype

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    """Load ``result_dtype`` (and the JAX function table behind it) on first use."""
    if name == "result_dtype":
        from typing_pkg.api import result_dtype

        globals()["result_dtype"] = result_dtype
        return result_dtype
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Array",
    "ArrayLike",
    "DType",
    "DTypeLike",
    "PromotionError",
    "Shape",
    "ShapeLike",
    "bcomplex32",
    "bfloat16",
    "bool_",
    "complex32",
    "complex64",
    "complex128",
    "complexfloating",
    "float4_e2m1fn",
    "float6_e2m3fn",
    "float6_e3m2fn",
    "float8_e3m4",
    "float8_e4m3",
    "float8_e4m3b11fnuz",
    "float8_e4m3fn",
    "float8_e4m3fnuz",
    "float8_e5m2",
    "float8_e5m2fnuz",
    "float8_e8m0fnu",
    "float16",
    "float32",
    "float64",
    "floating",
    "generic",
    "inexact",
    "int1",
    "int2",
    "int4",
    "int8",
    "int16",
    "int32",
    "int64",
    "integer",
    "key",
    "number",
    "promote_types",
    "result_dtype",
    "result_type",
    "signedinteger",
    "uint1",
    "uint2",
    "uint4",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "unsignedinteger",
    "weak_complex",
    "weak_float",
    "weak_int",
]
