"""jaxtyping's dtype families, as the dtype markers they stand for.

Much annotated JAX code writes its arrays' dtypes with jaxtyping:
``Float32[Array, "b n"]`` is an array of ``float32``, ``Float[Array, "..."]``
one of some floating dtype, ``Int[Array, ""]`` one of some signed integer
dtype.  jaxtyping declares each family, for type checkers, as
``typing.Annotated`` (``Float32[Array, "b n"]`` is ``jax.Array`` to them);
the plugin reads the family written and gives ``Array[float32]``,
``Array[floating]``, ….

A family maps to the marker whose dtypes are the family's (a concrete
marker for a one-dtype family, an abstract one for a kind), or to ``None``
where no marker is that set of dtypes (``Real``: integers and floats, not
booleans or complexes; ``Shaped``: any dtype).  ``Key`` is a typed PRNG key
array: the ``key`` marker.  ``tests/api/test_jaxtyping_families.py`` checks each
against jaxtyping's own ``dtypes`` lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

__all__ = ["FAMILIES", "MODULE"]

MODULE: Final = "jaxtyping"
"""The package the families are imported from."""

FAMILIES: Final[Mapping[str, str | None]] = {
    "Bool": "bool_",
    "Int2": "int2",
    "Int4": "int4",
    "Int8": "int8",
    "Int16": "int16",
    "Int32": "int32",
    "Int64": "int64",
    "UInt2": "uint2",
    "UInt4": "uint4",
    "UInt8": "uint8",
    "UInt16": "uint16",
    "UInt32": "uint32",
    "UInt64": "uint64",
    "Float8e4m3b11fnuz": "float8_e4m3b11fnuz",
    "Float8e4m3fn": "float8_e4m3fn",
    "Float8e4m3fnuz": "float8_e4m3fnuz",
    "Float8e5m2": "float8_e5m2",
    "Float8e5m2fnuz": "float8_e5m2fnuz",
    "BFloat16": "bfloat16",
    "Float16": "float16",
    "Float32": "float32",
    "Float64": "float64",
    "Complex64": "complex64",
    "Complex128": "complex128",
    "Int": "signedinteger",
    "UInt": "unsignedinteger",
    "Integer": "integer",
    "Float": "floating",
    "Complex": "complexfloating",
    "Inexact": "inexact",
    "Num": "number",
    "Real": None,
    "Shaped": None,
    "Key": "key",
}
"""Each of jaxtyping's array families → the marker it stands for (``None``: no marker)."""
