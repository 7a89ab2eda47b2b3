"""Every fullname and operator method name the plugin looks for, in one place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.ops import ARITHMETIC, BINARY, BITWISE, INPLACE, SHIFT, UNARY

__all__ = [
    "ARRAY",
    "ASTYPE",
    "BINARY_METHODS",
    "BINARY_UFUNC_CALL",
    "BUILTIN_ABS",
    "BUILTIN_ISINSTANCE",
    "BUILTIN_SCALARS",
    "CONTROL_FLOW",
    "CUSTOM_DERIVATIVE_CALLS",
    "DTYPES_MODULE",
    "DTYPE_META",
    "DTYPE_ROOT",
    "FINFO_CLASSES",
    "FUNCTOOLS_PARTIAL",
    "INDEX_UPDATE_REF",
    "INFERRED_ARRAY",
    "INFERRED_SCALARS",
    "INPLACE_METHODS",
    "JAX_ARRAY",
    "JAX_NUMPY",
    "JIT_WRAPPED",
    "NUMPY_DTYPE",
    "NUMPY_GENERIC",
    "NUMPY_NDARRAY",
    "PROMOTE_TYPES",
    "REFLECTED_METHODS",
    "RESULT_TYPE",
    "RULES_ARGUMENT",
    "TABLE_ARRAY_PREFIX",
    "TRANSFORMS",
    "TREE_LEAVES",
    "TREE_MAP",
    "TYPING_MODULE",
    "UFUNC_CALLS",
    "UNARY_METHODS",
]

TYPING_MODULE: Final = "typing_pkg.typing"
ARRAY: Final = "typing_pkg.typing.Array"
INFERRED_ARRAY: Final = "typing_pkg.typing.InferredArray"
INFERRED_SCALARS: Final[Mapping[str, str]] = {
    marker: f"typing_pkg.typing.Inferred{cls}"
    for marker, cls in (
        ("float16", "Float16"),
        ("float32", "Float32"),
        ("float64", "Float64"),
        ("complex64", "Complex64"),
        ("complex128", "Complex128"),
    )
}
"""The NumPy scalars the plugin infers where NumPy's stubs say ``Any`` (``numpy_scalars``:
inexact ones), by marker: classes of ``typing_pkg/typing.py`` (``tests/plugin`` checks both
lists agree)."""
FINFO_CLASSES: Final = frozenset({"numpy._core.getlimits.finfo", "ml_dtypes._finfo.finfo"})
"""``finfo``'s classes: NumPy's (generic, its stubs type its limits when they know the dtype)
and ``jnp.finfo``'s, ml_dtypes's subclass (whose limits are ``floating[Any]``)."""
CUSTOM_DERIVATIVE_CALLS: Final = frozenset(
    f"jax._src.custom_derivatives.{wrapper}.__call__" for wrapper in ("custom_jvp", "custom_vjp")
)
"""Calls of a function JAX wraps for its derivative (``jax.scipy.special``'s)."""
UFUNC_CALLS: Final = frozenset(f"numpy._typing._ufunc._UFunc_Nin{n}_Nout1.__call__" for n in (1, 2))
"""NumPy's ufuncs of one output, called."""
"""The array class; its subclasses are dispatched to the same hooks."""
DTYPES_MODULE: Final = "typing_pkg.dtypes"
DTYPE_META: Final = DTYPES_MODULE + ".DTypeMeta"
"""The metaclass of the dtype markers (their class objects are ``jnp.float32``'s type)."""
"""The module that defines every dtype marker."""
DTYPE_ROOT: Final = "typing_pkg.dtypes.DType"
"""The root marker: ``Array[DType]`` is an array of unknown dtype."""
ASTYPE: Final = "astype"

PROMOTE_TYPES: Final = frozenset({"typing_pkg.promotion.promote_types", "typing_pkg.promote_types"})
RESULT_TYPE: Final = frozenset({"typing_pkg.promotion.result_type", "typing_pkg.result_type"})
RULES_ARGUMENT: Final = "rules"
"""The keyword argument of ``promote_types``/``result_type`` naming the rule set."""
BUILTIN_ABS: Final = "builtins.abs"
BUILTIN_ISINSTANCE: Final = "builtins.isinstance"

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

# ----------------------------------------------------------------------- JAX

JAX_ARRAY: Final = "jax._src.basearray.Array"
"""``jax.Array``: analysed as ``Array[Any]`` wherever a type names it."""
JAX_NUMPY: Final = "jax.numpy"
"""The module whose ``float32: Any``, … name dtypes (``mypy_plugin.dtype_names`` reads them)."""
TABLE_ARRAY_PREFIX: Final = "jax.Array."
"""How the function table names ``jax.Array``'s members (``jax.Array.sum``, ``….at.set``)."""
BINARY_UFUNC_CALL: Final = "jax.numpy.BinaryUfunc.__call__"
"""``jnp.add(x, y)``: ``add`` is an instance of this protocol in JAX's stubs."""
INDEX_UPDATE_REF: Final = frozenset(
    {"typing_pkg.typing._IndexUpdateRef", "jax._src.basearray._IndexUpdateRef"}
)
"""``x.at[i]`` (ours, declared by ``Array``; JAX's, on its own class): its methods (``set``,
``add``, …) are the table's ``jax.Array.at.*``."""
JIT_WRAPPED: Final = "jax._src.pjit.JitWrapped"
"""What ``jax.jit`` returns: the attributes (``lower``, ``trace``, …) of a jitted function."""
FUNCTOOLS_PARTIAL: Final = "functools.partial"
TRANSFORMS: Final = {
    "jax._src.api.jit": "jit",
    "jax._src.pjit.pjit": "jit",
    "jax._src.api.vmap": "vmap",
    "jax._src.pmap.pmap": "pmap",
    "jax._src.ad_checkpoint.checkpoint": "checkpoint",
    "jax._src.ad_checkpoint.remat": "checkpoint",
    "jax._src.api.grad": "grad",
    "jax._src.api.hessian": "hessian",
    "jax._src.api.value_and_grad": "value_and_grad",
}
"""JAX's function transformations, by the fullname of their definition."""
CONTROL_FLOW: Final = {
    "jax._src.lax.control_flow.loops.scan": "scan",
    "jax._src.lax.control_flow.loops.fori_loop": "fori_loop",
    "jax._src.lax.control_flow.loops.while_loop": "while_loop",
    "jax._src.lax.control_flow.conditionals.cond": "cond",
}
"""``lax``'s loops and conditionals, by the fullname of their definition."""
TREE_MAP: Final = frozenset({"jax._src.tree.map", "jax._src.tree_util.tree_map"})
"""``jax.tree.map`` and ``jax.tree_util.tree_map``."""
TREE_LEAVES: Final = frozenset({"jax._src.tree.leaves", "jax._src.tree_util.tree_leaves"})
"""``jax.tree.leaves`` and ``jax.tree_util.tree_leaves``."""
