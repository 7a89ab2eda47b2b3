"""PyTorch's rules: tensor operators as ``torch`` 2.x computes their dtypes on CPU.

**Promotion of two tensors** (``torch.promote_types``) goes up the categories
bool < integral < floating < complex, and by width within a category:
``uint8`` and ``int8`` meet at ``int16``, every integer type meets a floating
type at that floating type, ``bfloat16`` and ``float16`` meet at ``float32``,
and a floating type meets a complex one at the complex type whose parts hold
both (``float64`` with ``complex64`` gives ``complex128``, ``bfloat16`` with
``complex32`` gives ``complex64``).  Two families stay outside that lattice:

* ``uint16``, ``uint32`` and ``uint64`` (PyTorch's "barebones" unsigned types)
  promote only with themselves and with the real floating types (the floating
  type wins); with booleans, other integers or complex numbers PyTorch refuses;
* the float8 types promote with nothing but themselves.

**Python scalars** (``torch.result_type``'s "wrapped numbers") never decide
the width.  A scalar matters only when its category is above the tensor's: the
result is then the default dtype of the scalar's category (``int64``,
``float32`` — PyTorch's default dtype, assumed unchanged — and ``complex64``),
except that a complex scalar with a floating tensor gives the complex type of
the tensor's precision (``float16 * 1j`` is ``complex32``, ``float64 * 1j`` is
``complex128``).  So ``int8 + 1.0`` is ``float32`` and ``float16 + 1.0`` stays
``float16``.  A Python ``bool`` is a bool in that sense, and also where an
operator tests for booleans (``x - True`` is refused like ``x - bool_tensor``).
Two Python scalars combine as Python combines them and stay a scalar (the weak
marker of the higher category), so ``(1 + 1) * int8_tensor`` is ``int8``;
``torch.result_type(1, 2.0)`` itself would make them the ``float32`` tensor it
needs.

**Operators** take that result type, then:

* ``/`` turns a boolean or integer result into the default float, ``float32``;
* ``-`` refuses a boolean operand, a tensor or a Python ``bool``;
* ``//`` and ``%`` refuse complex results, and have no boolean kernel;
* ``&``, ``|`` and ``^`` accept only booleans and integers, ``<<`` and ``>>``
  only integers;
* ``<``, ``<=``, ``>``, ``>=`` give ``bool_`` and refuse complex numbers, which
  have no order; ``==`` and ``!=`` give ``bool_`` for any promotable pair;
* ``@`` does not promote: both tensors must have the same dtype, and a Python
  scalar is no matrix;
* unary ``-`` and ``+`` refuse booleans, ``~`` accepts only booleans and
  integers, and ``abs`` of a complex tensor is its real counterpart
  (``complex32`` → ``float16``).

**In-place operators** (``x += y``) compute the same result type and write it
into ``x``, which must be able to hold it: PyTorch casts down within a category
(``float32 += float64`` is ``float32``) but refuses to cast to a lower category
(complex to real, floating to integer, anything to bool): ``int_tensor /= 2``
raises "result type Float can't be cast to the desired output type Long".

Operations PyTorch allows but has no CPU kernel for (most arithmetic on
``uint16``, ``uint32``, ``uint64`` and the float8 types, ``/`` and ``**`` on
``complex32``, ``**``, ``abs`` and ``@`` on booleans) are given the dtype the
promotion intends: the rules describe dtypes, not kernel coverage.  A float8
tensor with a complex scalar, which PyTorch rejects with an internal error
("Unknown Complex ScalarType"), is undefined: float8 has no complex type.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from typing_pkg.dtypes import WEAK_NAMES
from typing_pkg.lattice import Lattice, PromotionTable
from typing_pkg.ops import INPLACE_OF
from typing_pkg.rules.base import REAL_OF_COMPLEX, Outcome, RuleSet, Undefined

__all__ = ["TorchRules"]

_SIGNED: Final = ("int8", "int16", "int32", "int64")
_BAREBONES: Final = ("uint16", "uint32", "uint64")
_FLOAT8: Final = (
    "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu",
)  # fmt: skip
_FLOATS: Final = ("bfloat16", "float16", "float32", "float64")
_COMPLEX: Final = ("complex32", "complex64", "complex128")
_TENSOR_TYPES: Final = ("bool_", *_SIGNED, "uint8", *_BAREBONES, *_FLOAT8, *_FLOATS, *_COMPLEX)
_WEAK: Final = WEAK_NAMES

EDGES: Final[Mapping[str, tuple[str, ...]]] = {
    "bool_": ("uint8", "int8"),
    "uint8": ("int16",),
    "int8": ("int16",),
    "int16": ("int32",),
    "int32": ("int64",),
    "int64": ("bfloat16", "float16"),
    "bfloat16": ("float32",),
    "float16": ("float32", "complex32"),
    "float32": ("float64", "complex64"),
    "float64": ("complex128",),
    "complex32": ("complex64",),
    "complex64": ("complex128",),
    "complex128": (),
}
"""``torch.promote_types`` on the fully supported dtypes: each and the types just above it."""

CATEGORIES: Final = "bifc"
"""Bool, integral, floating, complex: the categories in promotion order."""
_CATEGORY: Final[Mapping[str, str]] = {
    "bool_": "b",
    **{t: "i" for t in ("uint8", *_SIGNED, *_BAREBONES)},
    **{t: "f" for t in (*_FLOAT8, *_FLOATS)},
    **{t: "c" for t in _COMPLEX},
    "weak_int": "i",
    "weak_float": "f",
    "weak_complex": "c",
}
SCALAR_DTYPE: Final[Mapping[str, str]] = {
    "py_bool": "bool_", "py_int": "int64", "py_float": "float32", "py_complex": "complex64",
    "weak_int": "int64", "weak_float": "float32", "weak_complex": "complex64",
}  # fmt: skip
"""The dtype a Python scalar takes when its category wins: torch's defaults."""
DEFAULT_FLOAT: Final = "float32"
"""What true division makes of booleans and integers (``torch.get_default_dtype()``)."""
COMPLEX_OF: Final[Mapping[str, str]] = {
    "bfloat16": "complex64", "float16": "complex32", "float32": "complex64",
    "float64": "complex128",
}  # fmt: skip
"""The complex type of each floating precision (a floating tensor with a complex scalar)."""

ACCEPTS: Final[Mapping[str, str]] = {
    "floordiv": "iuf", "mod": "iuf", "and": "biu", "or": "biu", "xor": "biu",
    "lshift": "iu", "rshift": "iu", "lt": "biuf", "le": "biuf", "gt": "biuf", "ge": "biuf",
    "neg": "iufc", "pos": "iufc", "invert": "biu",
}  # fmt: skip
"""The kinds of result an operator accepts (PyTorch's integral category is kinds i and u)."""
TRUEDIV: Final[Mapping[str, str]] = {
    **{t: DEFAULT_FLOAT for t in ("bool_", "uint8", *_SIGNED, *_BAREBONES)},
    "weak_int": "weak_float",  # 1 / 2 is a float
}
"""What true division makes of booleans and integers."""


def _rank(t: str) -> int:
    """The position of a dtype's category in bool < integral < floating < complex."""
    return CATEGORIES.index(_CATEGORY[t])


class TorchRules(RuleSet):
    """PyTorch 2.x tensor operators (CPU, default dtype ``float32``)."""

    name: ClassVar[str] = "torch"
    title: ClassVar[str] = "PyTorch >= 2 operators and torch.result_type"
    array_types: ClassVar[tuple[str, ...]] = _TENSOR_TYPES
    # "-" refuses a boolean operand, a tensor or a Python bool.
    operand_accepts: ClassVar[Mapping[str, str]] = {"sub": "iufc"}
    conversions: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "truediv": TRUEDIV,
        "abs": REAL_OF_COMPLEX,
    }
    accepts: ClassVar[Mapping[str, str]] = ACCEPTS

    def __init__(self) -> None:
        super().__init__()
        self._lattice = Lattice(EDGES)
        self._table = PromotionTable.from_function((*_TENSOR_TYPES, *_WEAK), self.result_type)

    @property
    def promotion(self) -> PromotionTable:
        """``torch.result_type`` of two tensors, a tensor and a scalar, or two scalars."""
        return self._table

    def promote_types(self, a: str, b: str) -> str | None:
        """``torch.promote_types`` of two tensor dtypes, or ``None`` where PyTorch refuses."""
        if a == b:
            return a
        if a in _FLOAT8 or b in _FLOAT8:
            return None
        if a in _BAREBONES or b in _BAREBONES:
            other = b if a in _BAREBONES else a
            return other if other in _FLOATS else None
        return self._lattice.join(a, b)

    def result_type(self, a: str, b: str) -> str | None:
        """``torch.result_type`` of tensor dtypes and scalars (``py_*`` or weak markers)."""
        if a in SCALAR_DTYPE and b in SCALAR_DTYPE:  # Python's own arithmetic: still a scalar
            return self.marker(max(a, b, key=lambda s: _rank(SCALAR_DTYPE[s])))
        if a in SCALAR_DTYPE:
            return self._with_scalar(b, a)
        if b in SCALAR_DTYPE:
            return self._with_scalar(a, b)
        return self.promote_types(a, b)

    @staticmethod
    def _with_scalar(tensor: str, scalar: str) -> str | None:
        """A scalar decides only if its category is higher than the tensor's."""
        dtype = SCALAR_DTYPE[scalar]
        if _rank(dtype) <= _rank(tensor):
            return tensor
        if _CATEGORY[dtype] == "c" and _CATEGORY[tensor] == "f":
            return COMPLEX_OF.get(tensor)  # None: the float8 types have no complex counterpart
        return dtype

    def join_operands(self, a: str, b: str) -> Outcome:
        """Promote as ``torch.result_type``: a Python scalar is a "wrapped number"."""
        joined = self.result_type(a, b)
        if joined is None:
            return Undefined(f"{_describe(a)} and {_describe(b)} do not promote")
        return joined

    def binary(self, op: str, a: str, b: str) -> Outcome:
        """Promote as ``torch.result_type``, then apply the operator's own rule."""
        return self._matmul(a, b) if op == "matmul" else super().binary(op, a, b)

    @staticmethod
    def _matmul(a: str, b: str) -> Outcome:
        """``@`` does not promote, and a Python scalar is no matrix."""
        if a in SCALAR_DTYPE or b in SCALAR_DTYPE:
            return Undefined("@ needs two tensors")
        if a != b:
            return Undefined("@ does not promote: both tensors need the same dtype")
        return a

    def inplace(self, op: str, a: str, b: str) -> Outcome:
        """The binary result, cast back into the left tensor: never to a lower category."""
        result = self.binary(INPLACE_OF[op], a, b)
        if isinstance(result, Undefined) or a in SCALAR_DTYPE:  # a scalar name is rebound
            return result
        if _rank(result) > _rank(a):
            return Undefined(f"the {result} result can't be cast to {a} in place")
        return a


def _describe(operand: str) -> str:
    """Name an operand in a reason: a dtype, or the kind of Python scalar."""
    return f"a Python {operand[3:]}" if operand.startswith("py_") else operand
