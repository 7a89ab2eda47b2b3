"""TensorFlow's rules: explicit casts, with Python scalars converted to the tensor's dtype.

TensorFlow promotes nothing implicitly.  In ``x + y`` (``tf.add(x, y)``) the
left operand is made a tensor first — a Python ``int`` becomes ``int32``, a
``float`` ``float32``, a ``complex`` ``complex128`` — and the right operand
must then have that dtype: a tensor of the same dtype, or a Python scalar
convertible to it (an ``int`` to any number type, a ``float`` to a floating or
complex type, a ``complex`` to a complex type).  The table is therefore not
symmetric: ``float32 + 1.0`` is ``float32`` but ``1.0 + float16`` is refused.

This is the table of JAX's design note (seed 001), which is what these rules
are checked against: TensorFlow is not installed in our CI, so the ``add``
table is the verified part.  The other operators follow the same conversion
and TensorFlow's documented kernels: no arithmetic on booleans, ``/``
converting 8- and 16-bit integers to ``float32`` and wider ones to
``float64``, ``//`` and ``%`` on real numbers only, bitwise operators on
booleans (logical) and integers, ordering comparisons on real numbers, ``==``
and ``!=`` on everything, ``abs`` of a complex number real.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME
from typing_pkg.lattice import PromotionTable
from typing_pkg.rules.base import REAL_OF_COMPLEX, Outcome, RuleSet, Undefined

__all__ = ["TensorflowRules"]

ARRAY_TYPES: Final = (
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip

# The dtype a Python scalar becomes as a left operand (tf.convert_to_tensor).
SCALAR_TENSOR: Final[Mapping[str, str]] = {
    "weak_int": "int32",
    "weak_float": "float32",
    "weak_complex": "complex128",
}
# The kinds a Python scalar converts to as a right operand.
SCALAR_CONVERTS_TO: Final[Mapping[str, str]] = {
    "weak_int": "iufc",
    "weak_float": "fc",
    "weak_complex": "c",
}

# The kinds each operator's kernels accept.
ACCEPTS: Final[Mapping[str, str]] = {
    "add": "iufc", "sub": "iufc", "mul": "iufc", "truediv": "iufc", "floordiv": "iuf",
    "mod": "iuf", "pow": "iufc", "matmul": "iufc", "and": "biu", "or": "biu", "xor": "biu",
    "lshift": "iu", "rshift": "iu", "lt": "iuf", "le": "iuf", "gt": "iuf", "ge": "iuf",
    "neg": "iufc", "invert": "biu", "abs": "iufc",
}  # fmt: skip
# tf.math.truediv's table: integers are divided in floating point.
TRUEDIV: Final[Mapping[str, str]] = {
    "int8": "float32", "int16": "float32", "uint8": "float32", "uint16": "float32",
    "int32": "float64", "int64": "float64", "uint32": "float64", "uint64": "float64",
}  # fmt: skip


def convert(x: str, y: str) -> str | None:
    """Return the dtype of ``tf.add(x, y)``'s operands: ``y`` converted to ``x``'s dtype."""
    x = SCALAR_TENSOR.get(x, x)
    if y in SCALAR_CONVERTS_TO:
        return x if BY_NAME[x].kind in SCALAR_CONVERTS_TO[y] else None
    return x if x == y else None


class TensorflowRules(RuleSet):
    """TensorFlow: no implicit promotion; Python scalars take the left tensor's dtype.

    In-place operators rebind the name to the binary result (tensors are immutable).
    """

    name: ClassVar[str] = "tensorflow"
    title: ClassVar[str] = "TensorFlow, explicit casts (the design note's table)"
    array_types: ClassVar[tuple[str, ...]] = ARRAY_TYPES
    accepts: ClassVar[Mapping[str, str]] = ACCEPTS
    conversions: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "truediv": TRUEDIV,
        "abs": REAL_OF_COMPLEX,
    }

    def __init__(self) -> None:
        super().__init__()
        self._table = PromotionTable.from_function(self.types, convert)

    @property
    def promotion(self) -> PromotionTable:
        """The asymmetric conversion table."""
        return self._table

    def join(self, a: str, b: str) -> Outcome:
        """Convert the right operand to the left one's dtype, if TensorFlow can."""
        common = convert(a, b)
        if common is None:
            return Undefined(f"{b} cannot be converted to {SCALAR_TENSOR.get(a, a)}")
        return common
