"""The result dtypes of ``jax.nn``, as data.

Most activations are compositions of ``jax.numpy`` functions with Python
constants (``relu(x)`` is ``jnp.maximum(x, 0)``, ``relu6`` also takes the
minimum with ``6.``, ``elu`` multiplies by ``alpha=1.0``): the constants are
written as parameters without a name (``"=py_float"``), so that they take
part in the promotion as they do in JAX (``relu6`` of an ``int8`` array is a
weakly typed float, as ``jnp.minimum(int8_array, 6.)`` is).  ``sigmoid``,
``silu`` and ``glu`` call ``lax.logistic``, which accepts only inexact dtypes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import Create, Join, Keep, Kind, LaxSame, NotAnArray, ToInexact
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import NARROW_INTS

__all__ = ["NAMESPACES", "NN"]

_LOGISTIC: Final = LaxSame(("x",), accepts="fc")
_INEXACT_FLOAT_CONSTANT: Final = ToInexact(("x", "=py_float"))
_NOT_BOOL: Final = (("x", "iufc"),)

NN: Final[Mapping[str, Kind]] = {
    "identity": Keep(("x",)),
    "relu": Join(("x", "=py_int")),
    "relu6": Join(("x", "=py_int", "=py_float")),
    "hard_tanh": Join(("x", "=py_int")),
    "leaky_relu": Join(("x", "negative_slope=py_float")),
    "sparse_plus": Join(("x", "=py_float")),
    "sparse_sigmoid": Join(("x", "=py_float"), accepts="biuf"),
    # logaddexp of complex values is strongly typed (lax.complex)
    "softplus": ToInexact(("x", "=py_int"), strong_kinds="c", python_weak=True),
    # soft_sign divides by abs(x) + 1: abs refuses int2 and int4.
    "soft_sign": ToInexact(
        ("x", "=py_int"),
        accepts="biufc",
        refuses=frozenset(NARROW_INTS),
        mixes="real",
    ),
    "mish": ToInexact(("x", "=py_int"), mixes="input", strong_kinds="c", python_weak=True),
    # squareplus squares first (bool → int32), then adds the float sqrt to x.
    "squareplus": ToInexact(("x",), mixes="input"),
    "log_sigmoid": ToInexact(
        ("x", "=py_int"), requires=_NOT_BOOL, strong_kinds="c", python_weak=True
    ),
    "log1mexp": ToInexact(("x",), requires=_NOT_BOOL, mixes="input"),
    "elu": ToInexact(("x", "alpha=py_float")),
    "celu": ToInexact(("x", "alpha=py_float")),
    "selu": _INEXACT_FLOAT_CONSTANT,
    "hard_sigmoid": _INEXACT_FLOAT_CONSTANT,
    "hard_silu": _INEXACT_FLOAT_CONSTANT,
    "hard_swish": _INEXACT_FLOAT_CONSTANT,
    # gelu multiplies by NumPy constants of x's dtype: strong.
    "gelu": ToInexact(("x",), strong=True),
    "tanh": ToInexact(("x",)),
    "sigmoid": _LOGISTIC,
    "silu": _LOGISTIC,
    "swish": _LOGISTIC,
    "glu": _LOGISTIC,
    # softmax subtracts the maximum from the input itself (bool refused), then sums
    # (a reduction: strong); log_softmax also subtracts the float log-sum from it.
    "softmax": ToInexact(("x",), strong=True, refuses=frozenset({"bool_"})),
    "log_softmax": ToInexact(("x",), strong=True, mixes="realised", refuses=frozenset({"bool_"})),
    "logsumexp": ToInexact(("a", "b?"), strong=True),
    "logmeanexp": ToInexact(("x",), strong=True),
    "standardize": ToInexact(("x",), strong=True, mixes="input", accepts="f"),
    "one_hot": Create("f", specs=("~x",)),
    # the logits are scaled by a float32 and softmax-ed: float32 must promote with the
    # inputs, and the result is strongly typed
    "dot_product_attention": LaxSame(("query", "key", "value"), after=("float32",), strong=True),
    "scaled_matmul": Create(
        "float32",
        dtype="preferred_element_type",
        specs=("~lhs", "~rhs", "~lhs_scales", "~rhs_scales"),
    ),
    "scaled_dot_general": Create("float32", dtype="preferred_element_type", specs=("~lhs", "~rhs")),
    "get_scaled_dot_general_config": NotAnArray("returns a BlockScaleConfig"),
    "initializers": NotAnArray("the jax.nn.initializers module"),
}
"""``jax.nn``: every public name."""


NAMESPACES: Final = (Namespace("jax.nn.", NN, "JAX", JAX_RULES, aliases=("nn.",)),)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
