"""The result dtypes of the dtype-relevant part of ``jax.lax``, as data.

``lax`` does not promote: the operands of an elementwise primitive must have
one dtype (a Python scalar counts as JAX's default dtype of its kind, so
``lax.add(int32_array, 1)`` works with x64 off and fails with it on), and
each primitive accepts some kinds of dtypes only (``jax/_src/lax/lax.py``:
``exp`` floats and complex numbers, ``rem`` no complex numbers, ``abs``
signed integers, floats and complex numbers, ``is_finite`` floats, …).

Covered: the elementwise primitives and their wrappers (listed in
``ELEMENTWISE`` below), ``convert_element_type``, ``bitcast_convert_type``,
``reduce_precision``, ``dot``, ``dot_general``, ``batch_matmul``,
``select``, ``select_n``, ``clamp``, the ``reduce_*`` reductions,
``argmax``/``argmin``, the cumulative reductions, ``full``, ``full_like``,
``iota``, ``broadcasted_iota``, ``empty``, ``concatenate``, ``stack``,
``pad`` and the shape operations (``reshape``, ``transpose``, ``broadcast``,
``slice``, ``dynamic_slice``, ``squeeze``, ``expand_dims``, ``rev``,
``sort``, ``top_k``, …).  Control flow, collectives, convolutions, gathers
and scatters (which need dimension numbers), ``cumlogsumexp`` and the
primitives themselves (``*_p``) are not covered.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import Cast, Fill, Fixed, Keep, Kind, LaxDot, LaxSame, Like, Outputs
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import NARROW_FLOATS, SUB_BYTE_INTEGERS

__all__ = ["ELEMENTWISE", "LAX", "NAMESPACES", "SHAPE_OPERATIONS"]

_FC: Final = LaxSame(("x",), accepts="fc")
_F: Final = LaxSame(("x",), accepts="f")
_NUM: Final = LaxSame(("x",), accepts="iufc")
_BINARY_NUM: Final = LaxSame(("x", "y"), accepts="iufc")
_BINARY_ANY: Final = LaxSame(("x", "y"))
_BINARY_INT: Final = LaxSame(("x", "y"), accepts="iu")
_BINARY_BOOL_INT: Final = LaxSame(("x", "y"), accepts="biu")
_COMPARE_ANY: Final = LaxSame(("x", "y"), to="bool")
_COMPARE_ORDERED: Final = LaxSame(("x", "y"), accepts="biuf", to="bool")
_OPERAND: Final = Keep(("operand",))

SHAPE_OPERATIONS: Final[tuple[str, ...]] = (
    "reshape",
    "transpose",
    "broadcast",
    "broadcast_in_dim",
    "rev",
    "slice",
    "slice_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "index_in_dim",
    "dynamic_index_in_dim",
    "collapse",
    "tile",
    "sort",
    "split",
)
"""The functions that rearrange or select from their ``operand``, its dtype kept."""

_REDUCE: Final = LaxSame(("operand",), accepts="iufc")
# The logical reductions refuse the integers narrower than a byte.
_REDUCE_BOOL_INT: Final = LaxSame(
    ("operand",),
    accepts="biu",
    refuses=frozenset(SUB_BYTE_INTEGERS),
    strong=True,
)
# (name, maxexp, nmant, bits) of each float type: jax.dtypes.finfo's values.
FLOAT_PROPERTIES: Final = (
    ("float4_e2m1fn", 3, 1, 4), ("float6_e2m3fn", 3, 3, 6), ("float6_e3m2fn", 5, 2, 6),
    ("float8_e3m4", 4, 4, 8), ("float8_e4m3", 8, 3, 8), ("float8_e4m3b11fnuz", 5, 3, 8),
    ("float8_e4m3fn", 9, 3, 8), ("float8_e4m3fnuz", 8, 3, 8), ("float8_e5m2", 16, 2, 8),
    ("float8_e5m2fnuz", 16, 2, 8), ("float8_e8m0fnu", 128, 0, 8), ("bfloat16", 128, 7, 16),
    ("float16", 16, 10, 16), ("float32", 128, 23, 32), ("float64", 1024, 52, 64),
)  # fmt: skip
_DOT: Final = LaxDot(floats=FLOAT_PROPERTIES)
_NARROW_FLOATS: Final = frozenset(NARROW_FLOATS)

ELEMENTWISE: Final[Mapping[str, Kind]] = {
    **dict.fromkeys(
        (
            "exp",
            "exp2",
            "log",
            "expm1",
            "log1p",
            "tanh",
            "logistic",
            "sin",
            "cos",
            "tan",
            "asin",
            "acos",
            "atan",
            "sinh",
            "cosh",
            "asinh",
            "acosh",
            "atanh",
            "sqrt",
            "rsqrt",
            "reciprocal",
        ),
        _FC,
    ),
    **dict.fromkeys(
        (
            "floor",
            "ceil",
            "round",
            "cbrt",
            "lgamma",
            "digamma",
            "erf",
            "erfc",
            "erf_inv",
            "bessel_i0e",
            "bessel_i1e",
        ),
        _F,
    ),
    "is_finite": LaxSame(("x",), accepts="f", to="bool"),
    "neg": _NUM,
    "sign": _NUM,
    "square": _NUM,
    "abs": LaxSame(("x",), accepts="ifc", to="abs"),
    "real": LaxSame(("x",), accepts="c", to="real"),
    "imag": LaxSame(("x",), accepts="c", to="real"),
    "conj": LaxSame(
        ("x",), accepts="fc", to="complex", refuses=_NARROW_FLOATS | {"float16", "bfloat16"}
    ),
    "complex": LaxSame(
        ("x", "y"), accepts="f", to="complex", refuses=_NARROW_FLOATS | {"float16", "bfloat16"}
    ),
    "integer_pow": _NUM,
    "pow": LaxSame(("x",), accepts="fc", int_or_same="y"),
    "bitwise_not": LaxSame(("x",), accepts="biu"),
    "population_count": LaxSame(("x",), accepts="iu"),
    "clz": LaxSame(("x",), accepts="iu"),
    "add": _BINARY_NUM,
    "sub": _BINARY_NUM,
    "mul": _BINARY_NUM,
    "div": _BINARY_NUM,
    "rem": LaxSame(("x", "y"), accepts="iuf"),
    "max": _BINARY_ANY,
    "min": _BINARY_ANY,
    "atan2": LaxSame(("x", "y"), accepts="fc"),
    "nextafter": LaxSame(("x1", "x2"), accepts="f"),
    "igamma": LaxSame(("a", "x"), accepts="f"),
    "igammac": LaxSame(("a", "x"), accepts="f"),
    "polygamma": LaxSame(("m", "x"), accepts="f"),
    "zeta": LaxSame(("x", "q"), accepts="f"),
    "betainc": LaxSame(("a", "b", "x"), accepts="f"),
    "bitwise_and": _BINARY_BOOL_INT,
    "bitwise_or": _BINARY_BOOL_INT,
    "bitwise_xor": _BINARY_BOOL_INT,
    "shift_left": _BINARY_INT,
    "shift_right_arithmetic": _BINARY_INT,
    "shift_right_logical": _BINARY_INT,
    "mulhi": _BINARY_INT,
    "eq": _COMPARE_ANY,
    "ne": _COMPARE_ANY,
    "lt": _COMPARE_ORDERED,
    "le": _COMPARE_ORDERED,
    "gt": _COMPARE_ORDERED,
    "ge": _COMPARE_ORDERED,
    "clamp": LaxSame(("min", "x", "max")),
    "select": LaxSame(("~pred", "on_true", "on_false")),
    "select_n": LaxSame(("~which", "*cases")),
}
"""The elementwise primitives and their wrappers."""

LAX: Final[Mapping[str, Kind]] = {
    **ELEMENTWISE,
    "convert_element_type": Cast(("operand",), dtype="new_dtype"),
    "bitcast_convert_type": Cast(("operand",), dtype="new_dtype", bitcast=True),
    "reduce_precision": LaxSame(("operand",), accepts="f"),
    "stop_gradient": Keep(("x",)),
    "dot": _DOT,
    "dot_general": _DOT,
    "batch_matmul": LaxDot(dtype=None, floats=FLOAT_PROPERTIES),
    "reduce_sum": _REDUCE,
    "reduce_prod": _REDUCE,
    "reduce_max": LaxSame(("operand",)),
    "reduce_min": LaxSame(("operand",)),
    "reduce_and": _REDUCE_BOOL_INT,
    "reduce_or": _REDUCE_BOOL_INT,
    "reduce_xor": _REDUCE_BOOL_INT,
    "argmax": Cast(("operand",), dtype="index_dtype", accepts="iu"),
    "argmin": Cast(("operand",), dtype="index_dtype", accepts="iu"),
    "cumsum": _REDUCE,
    "cumprod": _REDUCE,
    "cummax": LaxSame(("operand",), accepts="iufc"),
    "cummin": LaxSame(("operand",), accepts="iufc"),
    "full": Fill(("fill_value",)),
    "full_like": Like(("x", "~fill_value")),
    "iota": Cast((), dtype="dtype", accepts="iufc"),
    "broadcasted_iota": Cast((), dtype="dtype", accepts="iufc"),
    # lax.empty passes the dtype through uncanonicalised (int64 with x64 off).
    "empty": Cast((), dtype="dtype", canonicalise=False),
    "concatenate": LaxSame(("operands[]",)),
    "stack": LaxSame(("operands[]",)),
    "pad": LaxSame(("operand", "padding_value")),
    **dict.fromkeys(SHAPE_OPERATIONS, _OPERAND),
    # The dynamic index arguments must be integers (of one dtype, which is not modelled).
    "dynamic_slice": Keep(("operand", "~start_indices[]"), requires=(("start_indices", "iu"),)),
    "dynamic_slice_in_dim": Keep(("operand", "~start_index"), requires=(("start_index", "iu"),)),
    "dynamic_index_in_dim": Keep(("operand", "~index"), requires=(("index", "iu"),)),
    "dynamic_update_slice": LaxSame(
        ("operand", "update", "~start_indices[]"),
        strong=True,
        requires=(("start_indices", "iu"),),
    ),
    "dynamic_update_slice_in_dim": LaxSame(
        ("operand", "update", "~start_index"), strong=True, requires=(("start_index", "iu"),)
    ),
    "dynamic_update_index_in_dim": LaxSame(
        ("operand", "update", "~index"), strong=True, requires=(("index", "iu"),)
    ),
    "squeeze": Keep(("array",)),
    "expand_dims": Keep(("array",)),
    "unstack": Keep(("x",)),
    "index_take": Keep(("src",)),
    "sort_key_val": Outputs((Keep(("keys", "~values")), Keep(("~keys", "values")))),
    "top_k": Outputs((_OPERAND, Fixed("int32", ("operand",), weak=True))),
}
"""``jax.lax``: the covered names (see the module docs)."""


NAMESPACES: Final = (Namespace("jax.lax.", LAX, "JAX", JAX_RULES, aliases=("lax.",)),)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
