"""Dtype markers: the classes used as the type argument of ``Array``.

A marker is a class, never instantiated, that names one dtype (``float32``),
a category of dtypes (``floating``) or a weakly typed Python scalar
(``weak_float``).  Concrete markers subclass their categories, so with a
covariant ``Array`` an ``Array[float32]`` is accepted where an
``Array[floating]`` is expected::

    DType
    └── generic
        ├── bool_
        └── number
            ├── integer
            │   ├── signedinteger     int1 … int64
            │   ├── unsignedinteger   uint1 … uint64
            │   └── weak_int          (Python int, JAX's ``i*``)
            └── inexact
                ├── floating          float4_e2m1fn … float64, weak_float
                └── complexfloating   complex32 … complex128, weak_complex

Every marker carries ``name``, ``kind`` (``"b"``, ``"i"``, ``"u"``, ``"f"``,
``"c"``; empty for categories), ``bits`` (``None`` for categories and weak
markers), ``weak`` and ``code`` (the short label of JAX's promotion table:
``"f4"``, ``"i*"``, …).  ``numpy.dtype(float32)`` works: a concrete marker's
``dtype`` attribute is its NumPy dtype, looked up lazily (the ml_dtypes types
such as ``bfloat16`` come from ``ml_dtypes``; a weak marker gives the default
dtype of its kind with JAX's x64 on: int64, float64, complex128).

Beyond them, ``key`` is the dtype of JAX's typed PRNG key arrays
(``jax.random.key(0).dtype`` is ``key<fry>``): an extended dtype, outside every
promotion lattice and without a NumPy dtype, so a subclass of ``DType`` only.

Beyond the markers the specification names, the set holds the other dtypes
that the supported libraries define: ``int1``, ``uint1``, ``float6_e2m3fn``
and ``float6_e3m2fn`` (JAX, ml_dtypes), ``complex32`` (PyTorch, ml_dtypes) and
``bcomplex32`` (ml_dtypes).  NumPy's ``longdouble``/``clongdouble``, strings,
datetimes and objects are not markers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Final

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "ABSTRACT",
    "BY_NAME",
    "CONCRETE",
    "EXTENDED",
    "EXTENDED_KIND",
    "EXTENDED_NAMES",
    "ML_DTYPES",
    "NARROW_FLOATS",
    "NARROW_INTS",
    "NARROW_UINTS",
    "SUB_BYTE_FLOATS",
    "SUB_BYTE_INTEGERS",
    "WEAK",
    "WEAK_NAMES",
    "DType",
    "DTypeMeta",
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

ML_DTYPES: Final = frozenset(
    {
        "int1", "int2", "int4", "uint1", "uint2", "uint4",
        "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn",
        "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
        "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
        "bfloat16", "complex32", "bcomplex32",
    }
)  # fmt: skip
"""The markers whose NumPy dtype comes from ml_dtypes (NumPy lacks them)."""
_WEAK_DEFAULT: Final = {"i": "int64", "f": "float64", "c": "complex128"}
EXTENDED_KIND: Final = "V"
"""The ``kind`` of an extended dtype: no kind letter of NumPy's numbers (``"biufc"``)."""


class DTypeMeta(type):
    """Metaclass of the markers: a readable repr and a lazy NumPy ``dtype``."""

    name: str
    kind: str
    abstract: bool
    weak: bool

    def __repr__(cls) -> str:
        return f"typing_pkg.{cls.name}"

    @property
    def dtype(cls) -> np.dtype[Any]:
        """The NumPy dtype of a concrete or weak marker (``numpy.dtype(m)`` reads it)."""
        if cls.abstract:
            raise TypeError(f"{cls.name} is a category of dtypes and has no single NumPy dtype")
        if cls.kind == EXTENDED_KIND:
            raise TypeError(f"{cls.name} is an extended dtype of JAX and has no NumPy dtype")
        import numpy as np

        name = _WEAK_DEFAULT[cls.kind] if cls.weak else cls.name
        if name in ML_DTYPES:
            import ml_dtypes

            found: np.dtype[Any] = np.dtype(getattr(ml_dtypes, name))
            return found
        return np.dtype(name.rstrip("_"))


class DType(metaclass=DTypeMeta):
    """The root of all markers: ``Array[DType]`` is an array of unknown dtype."""

    name: ClassVar[str] = "DType"
    kind: ClassVar[str] = ""
    bits: ClassVar[int | None] = None
    weak: ClassVar[bool] = False
    abstract: ClassVar[bool] = True
    code: ClassVar[str] = "DType"

    def __new__(cls, *args: object, **kwargs: object) -> DType:
        raise TypeError(
            f"{cls.name} is a dtype marker, a type and not a value: use it as "
            f"Array[{cls.name}] or as a dtype argument"
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "abstract" not in cls.__dict__:
            cls.abstract = False
        if "weak" not in cls.__dict__:
            cls.weak = False


# ---------------------------------------------------------------- categories


class generic(DType):
    """Any dtype marker (NumPy's ``generic``)."""

    name = "generic"
    code = "generic"
    abstract = True


class number(generic):
    """Any numeric dtype."""

    name = "number"
    code = "number"
    abstract = True


class integer(number):
    """Any integer dtype, signed, unsigned or weak."""

    name = "integer"
    code = "integer"
    abstract = True


class signedinteger(integer):
    """Any signed integer dtype."""

    name = "signedinteger"
    code = "signedinteger"
    abstract = True


class unsignedinteger(integer):
    """Any unsigned integer dtype."""

    name = "unsignedinteger"
    code = "unsignedinteger"
    abstract = True


class inexact(number):
    """Any floating-point or complex dtype."""

    name = "inexact"
    code = "inexact"
    abstract = True


class floating(inexact):
    """Any real floating-point dtype."""

    name = "floating"
    code = "floating"
    abstract = True


class complexfloating(inexact):
    """Any complex dtype."""

    name = "complexfloating"
    code = "complexfloating"
    abstract = True


# ------------------------------------------------------------------ concrete


class bool_(generic):
    """Booleans."""

    name, kind, bits, code = "bool_", "b", 8, "b1"


class int1(signedinteger):
    """1-bit signed integers (ml_dtypes)."""

    name, kind, bits, code = "int1", "i", 1, "i1b"


class int2(signedinteger):
    """2-bit signed integers (ml_dtypes)."""

    name, kind, bits, code = "int2", "i", 2, "i2b"


class int4(signedinteger):
    """4-bit signed integers (ml_dtypes)."""

    name, kind, bits, code = "int4", "i", 4, "i4b"


class int8(signedinteger):
    """8-bit signed integers."""

    name, kind, bits, code = "int8", "i", 8, "i1"


class int16(signedinteger):
    """16-bit signed integers."""

    name, kind, bits, code = "int16", "i", 16, "i2"


class int32(signedinteger):
    """32-bit signed integers."""

    name, kind, bits, code = "int32", "i", 32, "i4"


class int64(signedinteger):
    """64-bit signed integers."""

    name, kind, bits, code = "int64", "i", 64, "i8"


class uint1(unsignedinteger):
    """1-bit unsigned integers (ml_dtypes)."""

    name, kind, bits, code = "uint1", "u", 1, "u1b"


class uint2(unsignedinteger):
    """2-bit unsigned integers (ml_dtypes)."""

    name, kind, bits, code = "uint2", "u", 2, "u2b"


class uint4(unsignedinteger):
    """4-bit unsigned integers (ml_dtypes)."""

    name, kind, bits, code = "uint4", "u", 4, "u4b"


class uint8(unsignedinteger):
    """8-bit unsigned integers."""

    name, kind, bits, code = "uint8", "u", 8, "u1"


class uint16(unsignedinteger):
    """16-bit unsigned integers."""

    name, kind, bits, code = "uint16", "u", 16, "u2"


class uint32(unsignedinteger):
    """32-bit unsigned integers."""

    name, kind, bits, code = "uint32", "u", 32, "u4"


class uint64(unsignedinteger):
    """64-bit unsigned integers."""

    name, kind, bits, code = "uint64", "u", 64, "u8"


class float4_e2m1fn(floating):
    """4-bit floats, 2 exponent and 1 mantissa bits, finite (ml_dtypes)."""

    name, kind, bits, code = "float4_e2m1fn", "f", 4, "e2m1fn"


class float6_e2m3fn(floating):
    """6-bit floats, 2 exponent and 3 mantissa bits, finite (ml_dtypes)."""

    name, kind, bits, code = "float6_e2m3fn", "f", 6, "e2m3fn"


class float6_e3m2fn(floating):
    """6-bit floats, 3 exponent and 2 mantissa bits, finite (ml_dtypes)."""

    name, kind, bits, code = "float6_e3m2fn", "f", 6, "e3m2fn"


class float8_e3m4(floating):
    """8-bit floats, 3 exponent and 4 mantissa bits, IEEE-like (ml_dtypes)."""

    name, kind, bits, code = "float8_e3m4", "f", 8, "e3m4"


class float8_e4m3(floating):
    """8-bit floats, 4 exponent and 3 mantissa bits, IEEE-like (ml_dtypes)."""

    name, kind, bits, code = "float8_e4m3", "f", 8, "e4m3"


class float8_e4m3b11fnuz(floating):
    """8-bit floats, 4 exponent bits with bias 11, finite, unsigned zero (ml_dtypes)."""

    name, kind, bits, code = "float8_e4m3b11fnuz", "f", 8, "e4m3b11"


class float8_e4m3fn(floating):
    """8-bit floats, 4 exponent and 3 mantissa bits, finite (ml_dtypes)."""

    name, kind, bits, code = "float8_e4m3fn", "f", 8, "e4m3fn"


class float8_e4m3fnuz(floating):
    """8-bit floats, 4 exponent and 3 mantissa bits, finite, unsigned zero (ml_dtypes)."""

    name, kind, bits, code = "float8_e4m3fnuz", "f", 8, "e4m3fnuz"


class float8_e5m2(floating):
    """8-bit floats, 5 exponent and 2 mantissa bits, IEEE-like (ml_dtypes)."""

    name, kind, bits, code = "float8_e5m2", "f", 8, "e5m2"


class float8_e5m2fnuz(floating):
    """8-bit floats, 5 exponent and 2 mantissa bits, finite, unsigned zero (ml_dtypes)."""

    name, kind, bits, code = "float8_e5m2fnuz", "f", 8, "e5m2fnuz"


class float8_e8m0fnu(floating):
    """8-bit powers of two, 8 exponent bits, finite, unsigned (ml_dtypes)."""

    name, kind, bits, code = "float8_e8m0fnu", "f", 8, "e8m0fnu"


class bfloat16(floating):
    """16-bit brain floats: float32's exponent, 7 mantissa bits (ml_dtypes)."""

    name, kind, bits, code = "bfloat16", "f", 16, "bf"


class float16(floating):
    """IEEE 754 half precision."""

    name, kind, bits, code = "float16", "f", 16, "f2"


class float32(floating):
    """IEEE 754 single precision."""

    name, kind, bits, code = "float32", "f", 32, "f4"


class float64(floating):
    """IEEE 754 double precision."""

    name, kind, bits, code = "float64", "f", 64, "f8"


class complex32(complexfloating):
    """Complex numbers of two float16 (PyTorch's ``chalf``, ml_dtypes)."""

    name, kind, bits, code = "complex32", "c", 32, "c4"


class bcomplex32(complexfloating):
    """Complex numbers of two bfloat16 (ml_dtypes)."""

    name, kind, bits, code = "bcomplex32", "c", 32, "bc4"


class complex64(complexfloating):
    """Complex numbers of two float32."""

    name, kind, bits, code = "complex64", "c", 64, "c8"


class complex128(complexfloating):
    """Complex numbers of two float64."""

    name, kind, bits, code = "complex128", "c", 128, "c16"


# ---------------------------------------------------------------------- weak


class weak_int(integer):
    """A Python ``int`` or a weakly typed integer array (JAX's ``i*``)."""

    name, kind, code, weak = "weak_int", "i", "i*", True


class weak_float(floating):
    """A Python ``float`` or a weakly typed float array (JAX's ``f*``)."""

    name, kind, code, weak = "weak_float", "f", "f*", True


class weak_complex(complexfloating):
    """A Python ``complex`` or a weakly typed complex array (JAX's ``c*``)."""

    name, kind, code, weak = "weak_complex", "c", "c*", True


# ------------------------------------------------------------------ extended


class key(DType):
    """A typed PRNG key array's dtype (JAX's ``key<impl>``, from ``jax.random.key``).

    JAX's random functions take it (or raw ``uint32`` key data); arithmetic does
    not: keys compare with ``==`` and ``!=`` only, and promote with nothing.
    """

    name, kind, code = "key", EXTENDED_KIND, "key"


ABSTRACT: Final[tuple[type[DType], ...]] = (
    DType, generic, number, integer, signedinteger, unsignedinteger,
    inexact, floating, complexfloating,
)  # fmt: skip
"""The categories, from the root down."""

CONCRETE: Final[tuple[type[DType], ...]] = (
    bool_,
    int1, int2, int4, int8, int16, int32, int64,
    uint1, uint2, uint4, uint8, uint16, uint32, uint64,
    float4_e2m1fn, float6_e2m3fn, float6_e3m2fn,
    float8_e3m4, float8_e4m3, float8_e4m3b11fnuz, float8_e4m3fn,
    float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, float8_e8m0fnu,
    bfloat16, float16, float32, float64,
    complex32, bcomplex32, complex64, complex128,
)  # fmt: skip
"""Every concrete marker, in the order tables list them."""

WEAK: Final[tuple[type[DType], ...]] = (weak_int, weak_float, weak_complex)
"""The weak markers: Python scalars and JAX's weakly typed arrays."""

EXTENDED: Final[tuple[type[DType], ...]] = (key,)
"""JAX's extended dtypes: no promotion lattice and no NumPy dtype has them."""
EXTENDED_NAMES: Final[frozenset[str]] = frozenset(m.name for m in EXTENDED)
"""Their names (``key``)."""

BY_NAME: Final[dict[str, type[DType]]] = {
    m.name: m for m in (*ABSTRACT, *CONCRETE, *WEAK, *EXTENDED)
}
"""Every marker by its ``name``."""

# ------------------------------------------------------------------ families

NARROW_INTS: Final[tuple[str, ...]] = tuple(
    m.name for m in CONCRETE if m.kind == "i" and (m.bits or 0) < 8
)
"""The signed integers narrower than a byte: ``int1``, ``int2``, ``int4``."""
NARROW_UINTS: Final[tuple[str, ...]] = tuple(
    m.name for m in CONCRETE if m.kind == "u" and (m.bits or 0) < 8
)
"""The unsigned integers narrower than a byte: ``uint1``, ``uint2``, ``uint4``."""
NARROW_FLOATS: Final[tuple[str, ...]] = tuple(
    m.name for m in CONCRETE if m.kind == "f" and (m.bits or 0) < 16
)
"""The floats narrower than 16 bits: the float4, float6 and float8 types."""
SUB_BYTE_FLOATS: Final[tuple[str, ...]] = tuple(
    m.name for m in CONCRETE if m.kind == "f" and (m.bits or 0) < 8
)
"""The floats narrower than a byte: the float4 and float6 types."""
SUB_BYTE_INTEGERS: Final[tuple[str, ...]] = NARROW_INTS + NARROW_UINTS
"""The integers narrower than a byte, signed and unsigned."""
WEAK_NAMES: Final[tuple[str, ...]] = tuple(m.name for m in WEAK)
"""The weak markers' names: ``weak_int``, ``weak_float``, ``weak_complex``."""
