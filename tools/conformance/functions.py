"""Observing the result dtypes of JAX's functions (the function truth).

:func:`observe_functions` calls every function of the table
(``typing_pkg.api.table()``; "unknown" and "not an array" entries are not
called) under one JAX configuration and records, per call, the result dtype
and weak flag of every array returned, or the error raised, as
:class:`~tools.conformance.truthfile.Cell` rows:

``op``
    the function's full name (``jax.numpy.mean``), with ``[i]`` for the i-th
    array of a returned tuple or list (``jax.numpy.frexp[1]``);
``left``
    the dtype of each array argument, by JAX's parameter name
    (``x1=int8 x2=py_float``; a sequence ``arrays=int8,float16``);
``right``
    the options passed: ``dtype=float32`` (the JAX scalar type
    ``jnp.float32``), ``dtype='float32'`` (the string), ``dtype=float`` (the
    Python type), ``promote_integers=False``; empty when none.

Which calls are made (the table's kinds say which parameters are arrays):

* a function of one array argument: every operand (:func:`operands`: each
  dtype JAX has under the configuration, the weakly typed ``weak_int``,
  ``weak_float``, ``weak_complex`` arrays and the Python scalars);
* a function whose result joins several arguments: all pairs over the first
  two of them (:data:`PAIR_DTYPES`: the dtypes of JAX's promotion table and
  a representative of each narrow family, the weak arrays, Python scalars
  on either side), further required arguments taking the first one's dtype;
  a ``lax`` primitive, which never promotes, over the pairs of one dtype
  and of a dtype with each Python scalar and weak array;
* a ``dtype=`` argument (and ``preferred_element_type``, ``new_dtype``,
  ``index_dtype``): absent for every operand, then every dtype requested as
  a JAX scalar type, as a string and the Python types ``bool``, ``int``,
  ``float``, ``complex``, for one representative operand of each kind
  (:data:`REPRESENTATIVES`); ``promote_integers=False`` for every operand.

Arrays are ``jax.ShapeDtypeStruct`` specs traced by ``jax.eval_shape`` (no
computation), ``weak_type=True`` for the weak ones; functions that need
concrete values (``arange``, ``trim_zeros``) get concrete arrays of ones
closed over.  :data:`RECIPES` holds what a function needs beyond that
(shapes, required non-array arguments, a special call).  Observe one
configuration per process (JAX's configuration is global):
:func:`observe_functions_in_subprocess`.  Importing this module imports no
array library.
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import os
import re
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from typing_pkg.api import RULES_OF_CONFIG, table
from typing_pkg.api.jax_lax import SHAPE_OPERATIONS
from typing_pkg.api.kinds import DTYPE_OPTIONS, Kind, Param, flags
from typing_pkg.dtypelike import marker_named
from typing_pkg.dtypes import BY_NAME, EXTENDED
from typing_pkg.rules.base import PY_TYPES as SCALAR_PY_TYPES
from typing_pkg.rules.base import WEAK_PY_TYPES

from .backend import (
    DTYPE_NAMES,
    ERROR_RULES,
    PY_SCALARS,
    WEAK_NAMES,
    ErrorRule,
    ResultNotArray,
    format_error,
    package_versions,
)
from .observe import run_observer
from .truthfile import Cell, format_truth

__all__ = [
    "DTYPE_OPTIONS",
    "FUNCTION_ERROR_RULES",
    "PAIR_DTYPES",
    "RECIPES",
    "REPRESENTATIVES",
    "Recipe",
    "config_of",
    "observe_functions",
    "observe_functions_in_subprocess",
]

PAIR_DTYPES: Final[tuple[str, ...]] = (
    "bool_", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "bfloat16", "float16", "float32", "float64", "complex64", "complex128",
    "int4", "float8_e4m3fn",
)  # fmt: skip
"""The dtypes paired for functions of several arrays: JAX's promotion table and one
narrow integer and one narrow float type (the other narrow types have the same lattice
edges: only weak types promote to them)."""
REPRESENTATIVES: Final[tuple[str, ...]] = ("bool_", "int8", "float16", "complex64", "weak_float")
"""The operands whose calls are repeated with every ``dtype=`` request."""
PY_TYPES: Final[Mapping[str, type]] = {t.__name__: t for t in SCALAR_PY_TYPES.values()}
"""The Python types a ``dtype=`` option may name, by name (``float``)."""

FUNCTION_ERROR_RULES: Final[tuple[ErrorRule, ...]] = (
    # lax primitives: "lax.add requires arguments to have the same dtypes, got int8, float32."
    ErrorRule("TypeError", r"requires arguments to have the same dtypes", "dtype"),
    ErrorRule("TypeError", r"must have the same dtype", "dtype"),
    ErrorRule("TypeError", r"^\w+ does not accept dtypes? ", "dtype"),
    # random samplers: "dtype argument to `normal` must be a float or complex dtype, got int8"
    ErrorRule("ValueError", r"^dtype argument to `?\w+`? must be", "dtype"),
    ErrorRule("TypeError", r"^dtype argument to `?\w+`? must be", "dtype"),
    ErrorRule("ValueError", r"^dtype argument to jnp.\w+ must be inexact", "dtype"),
    # jnp functions refusing a kind: "integer argument required; got dtype=float32"
    ErrorRule("ValueError", r"^integer argument required", "dtype"),
    ErrorRule("ValueError", r"[Aa]rguments to jax.numpy.\w+ must be integers", "dtype"),
    ErrorRule("ValueError", r"does not support complex", "dtype"),
    ErrorRule("TypeError", r"does not support complex", "dtype"),
    ErrorRule("ValueError", r"not supported for complex", "dtype"),
    ErrorRule("TypeError", r"^JAX only supports number, bool, and string dtypes", "dtype"),
    ErrorRule("TypeError", r"^JAX only supports number and bool dtypes", "dtype"),
    ErrorRule("ValueError", r"^RFFT input must be float32 or float64", "dtype"),
    ErrorRule("ValueError", r"^only real valued inputs supported for rfft", "dtype"),
    ErrorRule("ValueError", r"^Clip received a complex value", "dtype"),
    ErrorRule("TypeError", r"^only int indices permitted", "dtype"),
    ErrorRule("TypeError", r"argument to bincount must have an integer type", "dtype"),
    ErrorRule("TypeError", r"^uniform only accepts 8-, 16-, 32-, or 64-bit dtypes", "dtype"),
    ErrorRule("TypeError", r"^JAX encountered invalid PRNG key data", "dtype"),
    ErrorRule("NotImplementedError", r"for complex dtype is not implemented", "dtype"),
    ErrorRule("ValueError", r"must be integer", "dtype"),
    ErrorRule("TypeError", r"^index_dtype must be an integer type", "dtype"),
    ErrorRule("TypeError", r"^lax.bitcast_convert_type does not support bool or complex", "dtype"),
    ErrorRule("TypeError", r"^logical reduction requires operand dtype bool or int", "dtype"),
    ErrorRule("TypeError", r"argument type error", "dtype"),
    ErrorRule("ValueError", r"dtype should be \w+, but got", "dtype"),
    ErrorRule("TypeError", r"^Input type is incompatible with .preferred_element_type", "dtype"),
    ErrorRule("TypeError", r"^select .which. must be boolean or integer", "dtype"),
    ErrorRule("ValueError", r"not inexact$", "dtype"),
    ErrorRule("ValueError", r"complex x values not supported", "dtype"),
    ErrorRule("ValueError", r"^Passing complex start/stop/step to jnp.arange", "dtype"),
    ErrorRule("TypeError", r"^Expected an input array of unsigned byte data type", "dtype"),
    ErrorRule("TypePromotionError", r"cannot safely cast argument", "dtype"),
    ErrorRule("ValueError", r"not well defined for complex types", "dtype"),
    ErrorRule("ValueError", r"dtype must be a subclass of float or complex", "dtype"),
    ErrorRule("ValueError", r"^Attempting to convert array of shape", "shape"),
    ErrorRule(
        "ValueError", r"^When changing to a larger dtype, its size must be a divisor", "shape"
    ),
    *ERROR_RULES["jax"],
)
"""How the functions' errors are sorted into kinds: these first, then the operators' rules."""


def config_of(rules: str) -> tuple[bool, bool]:
    """Return the JAX configuration ``(x64, strict)`` the rule set ``rules`` reproduces."""
    for config, name in RULES_OF_CONFIG.items():
        if name == rules:
            return config
    raise ValueError(
        f"{rules!r} is not a JAX configuration's rule set; expected one of "
        f"{', '.join(RULES_OF_CONFIG.values())}"
    )


# ------------------------------------------------------------------ recipes


def _value(jax: Any, text: str) -> Any:
    """Build a named helper value (keys, index arrays) inside the observing process."""
    jnp = jax.numpy
    values: dict[str, Callable[[], Any]] = {
        "key": lambda: jax.random.key(0),
        "raw_key": lambda: jax.random.PRNGKey(0),
        "bools": lambda: jnp.ones((2, 2), bool),
        "bools1": lambda: jnp.ones((2,), bool),
        "ints": lambda: jnp.zeros((2, 2), "int32"),
        "ints1": lambda: jnp.zeros((2,), "int32"),
        "int_scalar": lambda: jnp.zeros((), "int32"),
        "floats": lambda: jnp.ones((2, 2), "float32"),
        "floats1": lambda: jnp.ones((2,), "float32"),
        "floats3": lambda: jnp.ones((3, 2, 2), "float32"),
        "scale": lambda: jnp.ones((3, 2, 1), "float32"),
    }
    return values[text]()


@dataclass(frozen=True)
class Recipe:
    """What a function needs to be called, beyond its array arguments' dtypes."""

    shape: tuple[int, ...] = (2, 2)
    """The shape of every array argument."""
    extra: Mapping[str, Any] = field(default_factory=dict[str, Any])
    """Non-array arguments by name; a string ``"@name"`` is a helper value (:func:`_value`)."""
    concrete: bool = False
    """Pass concrete arrays (NumPy arrays, weak JAX arrays; closed over) instead of specs."""
    eager: bool = False
    """Run outside any trace (the function needs concrete values throughout); only over
    the dtypes XLA computes with on the CPU (no narrow floats)."""
    call: Callable[..., Any] | None = None
    """A custom invocation ``call(function_or_array, *arrays, **options)``."""
    shapes: Mapping[str, tuple[int, ...]] = field(default_factory=dict[str, tuple[int, ...]])
    """Per-parameter shapes overriding ``shape``."""
    scalars: bool = True
    """Whether to call the function with Python scalars (not for sequences of arrays,
    whose shapes would differ)."""
    fixed: Mapping[str, str] = field(default_factory=dict[str, str])
    """Arguments of one dtype in every call, recorded with the others (``at[].set``'s
    ``values``: a Python int)."""


_1D: Final = Recipe(shape=(4,))
_ARRAYS: Final = Recipe(scalars=False)


def _where(fn: Any, *arrays: Any, condition: Any = None) -> Any:
    return fn(condition, *arrays) if arrays else fn(condition, size=2)


_SIZE: Final = Recipe(extra={"size": 2})
_SIZE_1D: Final = Recipe(shape=(4,), extra={"size": 2})
_SQUARE: Final = Recipe(shape=(2, 2))


def _in_kernel(fn: Any, *arrays: Any, **options: Any) -> Any:
    """Call a Pallas primitive inside a kernel (interpreted) on grid axis 0, and return an
    array of the dtype and weak type it gave there (a kernel's values cannot leave it)."""
    import importlib

    jax: Any = importlib.import_module("jax")
    convert: Any = importlib.import_module("jax._src.lax.lax")._convert_element_type
    pallas: Any = importlib.import_module("jax.experimental.pallas")

    seen: list[Any] = []

    def kernel(out: Any) -> None:
        seen.append(jax.typeof(fn(0, *arrays, **options)))
        out[...] = jax.numpy.zeros(out.shape, out.dtype)

    shape = jax.ShapeDtypeStruct((1,), "float32")
    pallas.pallas_call(kernel, out_shape=shape, grid=(1,), interpret=True)()
    return convert(0, seen[0].dtype, weak_type=seen[0].weak_type)


def _at(method: str) -> Callable[..., Any]:
    def call(fn: Any, x: Any, values: Any = 1, **options: Any) -> Any:
        update = getattr(x.at[0], method)
        return update(values, **options) if method != "get" else update(**options)

    return call


def _attribute(name: str) -> Callable[..., Any]:
    def call(fn: Any, x: Any) -> Any:
        return getattr(x, name)

    return call


RECIPES: Final[Mapping[str, Recipe]] = {
    # jax.numpy: required non-array arguments and shapes
    "jax.numpy.zeros": Recipe(extra={"shape": (2,)}),
    "jax.numpy.ones": Recipe(extra={"shape": (2,)}),
    "jax.numpy.empty": Recipe(extra={"shape": (2,)}),
    "jax.numpy.full": Recipe(shape=(), extra={"shape": (2,)}),
    "jax.numpy.eye": Recipe(extra={"N": 2}),
    "jax.numpy.identity": Recipe(extra={"n": 2}),
    "jax.numpy.tri": Recipe(extra={"N": 2}),
    "jax.numpy.indices": Recipe(extra={"dimensions": (2,)}),
    "jax.numpy.frombuffer": Recipe(extra={"buffer": b"\x00" * 16}),
    "jax.numpy.fromstring": Recipe(extra={"string": "1 2", "sep": " "}),
    "jax.numpy.arange": Recipe(shape=(), concrete=True),
    "jax.numpy.linspace": Recipe(shape=()),
    "jax.numpy.logspace": Recipe(shape=()),
    "jax.numpy.geomspace": Recipe(shape=()),
    "jax.numpy.full_like": Recipe(extra={"fill_value": 0}),
    "jax.numpy.array": Recipe(),
    "jax.numpy.asarray": Recipe(),
    "jax.numpy.take": Recipe(extra={"indices": "@ints1"}),
    "jax.numpy.take_along_axis": Recipe(extra={"indices": "@ints", "axis": 0}),
    "jax.numpy.put": Recipe(extra={"ind": "@ints1", "inplace": False}, fixed={"v": "py_int"}),
    "jax.numpy.put_along_axis": Recipe(
        extra={"indices": "@ints", "axis": 0, "inplace": False}, fixed={"values": "py_int"}
    ),
    "jax.numpy.place": Recipe(extra={"mask": "@bools", "inplace": False}, fixed={"vals": "py_int"}),
    "jax.numpy.fill_diagonal": Recipe(extra={"inplace": False}, fixed={"val": "py_int"}),
    "jax.numpy.insert": Recipe(extra={"obj": 0}, fixed={"values": "py_int"}),
    "jax.numpy.delete": Recipe(extra={"obj": 0}),
    "jax.numpy.reshape": Recipe(extra={"shape": (4,)}),
    "jax.numpy.resize": Recipe(extra={"new_shape": (4,)}),
    "jax.numpy.repeat": Recipe(extra={"repeats": 2}),
    "jax.numpy.roll": Recipe(extra={"shift": 1}),
    "jax.numpy.rollaxis": Recipe(extra={"axis": 1}),
    "jax.numpy.moveaxis": Recipe(extra={"source": 0, "destination": 1}),
    "jax.numpy.swapaxes": Recipe(extra={"axis1": 0, "axis2": 1}),
    "jax.numpy.expand_dims": Recipe(extra={"axis": 0}),
    "jax.numpy.permute_dims": Recipe(extra={"axes": (1, 0)}),
    "jax.numpy.broadcast_to": Recipe(extra={"shape": (2, 2)}),
    "jax.numpy.tile": Recipe(extra={"reps": 2}),
    "jax.numpy.pad": Recipe(extra={"pad_width": 1}),
    "jax.numpy.partition": Recipe(extra={"kth": 1}),
    "jax.numpy.argpartition": Recipe(extra={"kth": 1}),
    "jax.numpy.split": Recipe(extra={"indices_or_sections": 2}),
    "jax.numpy.array_split": Recipe(extra={"indices_or_sections": 2}),
    "jax.numpy.hsplit": Recipe(extra={"indices_or_sections": 2}),
    "jax.numpy.vsplit": Recipe(extra={"indices_or_sections": 2}),
    "jax.numpy.dsplit": Recipe(shape=(2, 2, 2), extra={"indices_or_sections": 2}),
    "jax.numpy.compress": Recipe(extra={"condition": "@bools1", "size": 2, "axis": 0}),
    "jax.numpy.extract": Recipe(extra={"condition": "@bools", "size": 2}),
    "jax.numpy.nonzero": _SIZE,
    "jax.numpy.flatnonzero": _SIZE,
    "jax.numpy.argwhere": _SIZE,
    "jax.numpy.unique": _SIZE,
    "jax.numpy.unique_values": _SIZE,
    "jax.numpy.unique_all": _SIZE,
    "jax.numpy.unique_counts": _SIZE,
    "jax.numpy.unique_inverse": _SIZE,
    "jax.numpy.intersect1d": _SIZE,
    "jax.numpy.union1d": _SIZE,
    "jax.numpy.setxor1d": _SIZE,
    "jax.numpy.trim_zeros": Recipe(shape=(4,), concrete=True, eager=True),
    "jax.numpy.where": Recipe(extra={"condition": "@bools"}, call=_where),
    "jax.numpy.select": Recipe(extra={"condlist": ["@bools", "@bools"]}, scalars=False),
    "jax.numpy.choose": Recipe(extra={"a": "@ints", "mode": "clip"}),
    "jax.numpy.piecewise": Recipe(extra={"condlist": ["@bools"], "funclist": [0, 1]}),
    "jax.numpy.searchsorted": _1D,
    "jax.numpy.digitize": _1D,
    "jax.numpy.lexsort": Recipe(),
    "jax.numpy.bincount": Recipe(shape=(4,), extra={"x": "@ints1", "length": 3}),
    "jax.numpy.ravel_multi_index": Recipe(shape=(2,), extra={"dims": (2, 2), "mode": "clip"}),
    "jax.numpy.unravel_index": Recipe(shape=(2,), extra={"shape": (3, 3)}),
    "jax.numpy.diag_indices": Recipe(extra={"n": 2}),
    "jax.numpy.tril_indices": Recipe(extra={"n": 2}),
    "jax.numpy.triu_indices": Recipe(extra={"n": 2}),
    "jax.numpy.mask_indices": Recipe(extra={"n": 2, "mask_func": "@triu", "size": 3}),
    "jax.numpy.cross": Recipe(shape=(2, 3)),
    "jax.numpy.ediff1d": _1D,
    "jax.numpy.convolve": _1D,
    "jax.numpy.correlate": _1D,
    "jax.numpy.polyadd": _1D,
    "jax.numpy.polysub": _1D,
    "jax.numpy.polymul": _1D,
    "jax.numpy.polyval": _1D,
    "jax.numpy.polyder": _1D,
    "jax.numpy.polyint": _1D,
    "jax.numpy.polydiv": _1D,
    "jax.numpy.poly": _1D,
    "jax.numpy.roots": Recipe(shape=(4,), extra={"strip_zeros": False}),
    "jax.numpy.polyfit": Recipe(shape=(4,), extra={"deg": 1}),
    "jax.numpy.vander": _1D,
    "jax.numpy.ix_": _1D,
    "jax.numpy.histogram": Recipe(shape=(4,), extra={"bins": 3, "range": (0.0, 1.0)}),
    "jax.numpy.histogram_bin_edges": Recipe(shape=(4,), extra={"bins": 3, "range": (0.0, 1.0)}),
    "jax.numpy.histogram2d": Recipe(shape=(4,), extra={"bins": 3, "range": [(0, 1), (0, 1)]}),
    "jax.numpy.packbits": Recipe(shape=(8,)),
    "jax.numpy.unpackbits": Recipe(shape=(2,)),
    "jax.numpy.kaiser": Recipe(extra={"M": 3, "beta": 1.0}),
    "jax.numpy.bartlett": Recipe(extra={"M": 3}),
    "jax.numpy.blackman": Recipe(extra={"M": 3}),
    "jax.numpy.hamming": Recipe(extra={"M": 3}),
    "jax.numpy.hanning": Recipe(extra={"M": 3}),
    "jax.numpy.astype": Recipe(),
    "jax.numpy.ldexp": Recipe(extra={"y": "@ints"}),
    **{
        f"jax.numpy.{n}": Recipe(extra={"q": 0.5})
        for n in (
            "quantile",
            "nanquantile",
            "percentile",
            "nanpercentile",
        )
    },
    "jax.numpy.cumulative_sum": Recipe(extra={"axis": 0}),
    "jax.numpy.cumulative_prod": Recipe(extra={"axis": 0}),
    **{
        f"jax.numpy.{n}": _ARRAYS
        for n in (
            "concatenate",
            "concat",
            "stack",
            "hstack",
            "vstack",
            "dstack",
            "column_stack",
            "block",
            "array_equal",
        )
    },
    "jax.numpy.linalg.outer": _1D,
    "jax.numpy.interp": Recipe(shape=(2,), fixed={"x": "float32", "xp": "float32"}),
    "jax.numpy.setdiff1d": Recipe(extra={"size": 2}, fixed={"ar2": "bool_"}),
    "jax.numpy.array_equiv": Recipe(fixed={"a1": "int32", "a2": "int32"}),
    "jax.numpy.average": Recipe(scalars=False),
    "jax.numpy.linalg.multi_dot": _ARRAYS,
    "jax.numpy.einsum": Recipe(call=lambda f, ops, **k: f("ij,jk->ik", *ops, **k), scalars=False),
    "jax.numpy.tensordot": Recipe(extra={"axes": 1}),
    "jax.numpy.matvec": Recipe(shapes={"x2": (2,)}),
    "jax.numpy.vecmat": Recipe(shapes={"x1": (2,)}),
    "jax.numpy.gradient": Recipe(shape=(3, 3)),
    "jax.numpy.apply_along_axis": Recipe(),
    # jax.numpy.linalg / fft
    "jax.numpy.linalg.tensorinv": Recipe(shape=(2, 2), extra={"ind": 1}),
    "jax.numpy.linalg.tensorsolve": Recipe(shapes={"b": (2,)}),
    "jax.numpy.linalg.matrix_power": Recipe(extra={"n": 2}),
    "jax.numpy.linalg.solve": Recipe(shapes={"b": (2,)}),
    "jax.numpy.linalg.lstsq": Recipe(shapes={"b": (2,)}),
    "jax.numpy.linalg.cross": Recipe(shape=(2, 3)),
    "jax.numpy.linalg.tensordot": Recipe(extra={"axes": 1}),
    "jax.numpy.fft.fftfreq": Recipe(extra={"n": 4}),
    "jax.numpy.fft.rfftfreq": Recipe(extra={"n": 4}),
    # jax.scipy.stats: Dirichlet's alpha is one-dimensional
    "jax.scipy.stats.dirichlet.logpdf": Recipe(shape=(2,), scalars=False),
    "jax.scipy.stats.dirichlet.pdf": Recipe(shape=(2,), scalars=False),
    # jax.scipy.linalg: vectors, sizes
    "jax.scipy.linalg.circulant": _1D,
    "jax.scipy.linalg.companion": Recipe(shape=(3,)),
    "jax.scipy.linalg.convolution_matrix": Recipe(shape=(3,), extra={"n": 3}),
    "jax.scipy.linalg.fiedler": _1D,
    "jax.scipy.linalg.fiedler_companion": Recipe(shape=(3,)),
    "jax.scipy.linalg.hankel": _1D,
    "jax.scipy.linalg.toeplitz": _1D,
    "jax.scipy.linalg.leslie": Recipe(shapes={"f": (3,), "s": (2,)}),
    "jax.scipy.linalg.solve": Recipe(shapes={"b": (2,)}),
    "jax.scipy.linalg.solve_triangular": Recipe(shapes={"b": (2,)}),
    **{
        f"jax.scipy.linalg.{n}": Recipe(extra={"n": 3})
        for n in ("helmert", "hilbert", "invhilbert", "pascal", "invpascal")
    },
    # jax.Array
    "jax.Array.T": Recipe(call=_attribute("T")),
    "jax.Array.mT": Recipe(call=_attribute("mT")),
    "jax.Array.real": Recipe(call=_attribute("real")),
    "jax.Array.imag": Recipe(call=_attribute("imag")),
    "jax.Array.nonzero": Recipe(extra={"size": 2}),
    "jax.Array.argpartition": Recipe(extra={"kth": 1}),
    "jax.Array.reshape": Recipe(call=lambda f, x, **k: x.reshape(4, **k)),
    "jax.Array.repeat": Recipe(extra={"repeats": 2}),
    "jax.Array.swapaxes": Recipe(extra={"axis1": 0, "axis2": 1}),
    "jax.Array.take": Recipe(extra={"indices": "@ints1"}),
    "jax.Array.compress": Recipe(extra={"condition": "@bools1", "size": 2, "axis": 0}),
    "jax.Array.choose": Recipe(
        extra={"self": "@ints"}, call=lambda f, c, self: self.choose(c, mode="clip")
    ),
    "jax.Array.searchsorted": _1D,
    "jax.Array.addressable_data": Recipe(concrete=True, eager=True, extra={"index": 0}),
    "jax.Array.to_device": Recipe(concrete=True, eager=True, extra={"device": "@device"}),
    "jax.Array.view": Recipe(shape=(2, 16), call=lambda f, x, dtype=None: x.view(dtype)),
    **{
        f"jax.Array.at.{m}": Recipe(call=_at(m), fixed={"values": "py_int"})
        for m in (
            "set",
            "add",
            "subtract",
            "mul",
            "multiply",
            "divide",
            "power",
            "min",
            "max",
        )
    },
    "jax.Array.at.get": Recipe(call=_at("get")),
    "jax.Array.at.apply": Recipe(call=lambda f, x: x.at[0].apply(lambda v: v)),
    # jax.random
    # jax.experimental.pallas: inside a kernel
    "jax.experimental.pallas.program_id": Recipe(call=_in_kernel),
    "jax.random.randint": Recipe(extra={"shape": (2,), "minval": 0, "maxval": 3}),
    "jax.random.choice": Recipe(extra={"key": "@key"}),
    "jax.random.permutation": Recipe(extra={"key": "@key"}),
    "jax.random.categorical": Recipe(extra={"logits": "@floats"}),
    "jax.random.orthogonal": Recipe(extra={"n": 2}),
    "jax.random.ball": Recipe(extra={"d": 2}),
    "jax.random.generalized_normal": Recipe(extra={"p": 2.0}),
    "jax.random.multivariate_normal": Recipe(
        extra={"key": "@key"}, shapes={"mean": (2,), "cov": (2, 2)}
    ),
    "jax.random.binomial": Recipe(extra={"n": 3.0, "p": 0.5}),
    "jax.random.multinomial": Recipe(extra={"n": 3.0, "p": "@floats1"}),
    "jax.random.dirichlet": Recipe(extra={"alpha": "@floats1"}),
    "jax.random.triangular": Recipe(extra={"left": 0.0, "mode": 0.5, "right": 1.0}),
    "jax.random.truncated_normal": Recipe(extra={"lower": -1.0, "upper": 1.0}),
    "jax.random.weibull_min": Recipe(extra={"scale": 1.0, "concentration": 1.0}),
    "jax.random.double_sided_maxwell": Recipe(extra={"loc": 0.0, "scale": 1.0}),
    "jax.random.f": Recipe(extra={"dfnum": 1.0, "dfden": 1.0}),
    "jax.random.beta": Recipe(extra={"a": 1.0, "b": 1.0}),
    "jax.random.PRNGKey": Recipe(extra={"seed": 0}),
    "jax.random.key": Recipe(extra={"seed": 0}),
    "jax.random.gamma": Recipe(extra={"a": 1.0}),
    "jax.random.loggamma": Recipe(extra={"a": 1.0}),
    "jax.random.pareto": Recipe(extra={"b": 1.0}),
    "jax.random.t": Recipe(extra={"df": 1.0}),
    "jax.random.chisquare": Recipe(extra={"df": 1.0}),
    "jax.random.rayleigh": Recipe(extra={"scale": 1.0}),
    "jax.random.wald": Recipe(extra={"mean": 1.0}),
    "jax.random.poisson": Recipe(extra={"lam": 1.0}),
    "jax.random.geometric": Recipe(extra={"p": 0.5}),
    "jax.random.key_data": Recipe(extra={"keys": "@key"}),
    "jax.random.split": Recipe(shape=(2,)),
    "jax.random.fold_in": Recipe(shape=(2,), extra={"data": 1}),
    "jax.random.clone": Recipe(shape=(2,)),
    # jax.nn
    "jax.nn.one_hot": Recipe(extra={"x": "@ints1", "num_classes": 3}),
    "jax.nn.dot_product_attention": Recipe(shape=(1, 2, 1, 4)),
    "jax.nn.scaled_matmul": Recipe(
        extra={"lhs": "@floats3", "rhs": "@floats3", "lhs_scales": "@scale", "rhs_scales": "@scale"}
    ),
    "jax.nn.scaled_dot_general": Recipe(
        extra={"lhs": "@floats", "rhs": "@floats", "dimension_numbers": (((1,), (0,)), ((), ()))}
    ),
    # jax.lax
    "jax.lax.argmax": Recipe(extra={"axis": 0}),
    "jax.lax.argmin": Recipe(extra={"axis": 0}),
    "jax.lax.dot_general": Recipe(extra={"dimension_numbers": (((1,), (0,)), ((), ()))}),
    "jax.lax.batch_matmul": Recipe(shape=(2, 2, 2)),
    "jax.lax.full": Recipe(shape=(), extra={"shape": (2,)}),
    "jax.lax.select": Recipe(extra={"pred": "@bools"}),
    "jax.lax.select_n": Recipe(extra={"which": "@bools"}),
    "jax.lax.full_like": Recipe(extra={"fill_value": 0}),
    "jax.lax.iota": Recipe(extra={"size": 3}),
    "jax.lax.broadcasted_iota": Recipe(extra={"shape": (2,), "dimension": 0}),
    "jax.lax.empty": Recipe(extra={"shape": (2,)}),
    "jax.lax.concatenate": Recipe(extra={"dimension": 0}),
    "jax.lax.pad": Recipe(shapes={"padding_value": ()}, extra={"padding_config": [(1, 1, 0)] * 2}),
    "jax.lax.reshape": Recipe(extra={"new_sizes": (4,)}),
    "jax.lax.transpose": Recipe(extra={"permutation": (1, 0)}),
    "jax.lax.broadcast": Recipe(extra={"sizes": (3,)}),
    "jax.lax.broadcast_in_dim": Recipe(extra={"shape": (2, 2), "broadcast_dimensions": (0, 1)}),
    "jax.lax.rev": Recipe(extra={"dimensions": (0,)}),
    "jax.lax.slice": Recipe(extra={"start_indices": (0, 0), "limit_indices": (1, 1)}),
    "jax.lax.slice_in_dim": Recipe(extra={"start_index": 0, "limit_index": 1}),
    "jax.lax.dynamic_slice": Recipe(extra={"start_indices": (0, 0), "slice_sizes": (1, 1)}),
    "jax.lax.dynamic_slice_in_dim": Recipe(extra={"start_index": 0, "slice_size": 1}),
    "jax.lax.index_in_dim": Recipe(extra={"index": 0}),
    "jax.lax.dynamic_index_in_dim": Recipe(extra={"index": 0}),
    "jax.lax.dynamic_update_slice": Recipe(extra={"start_indices": (0, 0)}),
    "jax.lax.dynamic_update_slice_in_dim": Recipe(extra={"start_index": 0, "axis": 0}),
    "jax.lax.dynamic_update_index_in_dim": Recipe(
        shapes={"update": (1, 2)}, extra={"index": 0, "axis": 0}
    ),
    "jax.lax.collapse": Recipe(extra={"start_dimension": 0}),
    "jax.lax.tile": Recipe(extra={"reps": (2, 1)}),
    "jax.lax.squeeze": Recipe(shape=(1, 2), extra={"dimensions": (0,)}),
    "jax.lax.expand_dims": Recipe(extra={"dimensions": (0,)}),
    "jax.lax.split": Recipe(extra={"sizes": (1, 1)}),
    "jax.lax.index_take": Recipe(extra={"idxs": ("@ints1",), "axes": (0,)}),
    "jax.lax.top_k": Recipe(extra={"k": 1}),
    "jax.lax.reduce_sum": Recipe(extra={"axes": (0,)}),
    "jax.lax.reduce_prod": Recipe(extra={"axes": (0,)}),
    "jax.lax.reduce_max": Recipe(extra={"axes": (0,)}),
    "jax.lax.reduce_min": Recipe(extra={"axes": (0,)}),
    "jax.lax.reduce_and": Recipe(extra={"axes": (0,)}),
    "jax.lax.reduce_or": Recipe(extra={"axes": (0,)}),
    "jax.lax.reduce_xor": Recipe(extra={"axes": (0,)}),
    "jax.lax.reduce_precision": Recipe(extra={"exponent_bits": 5, "mantissa_bits": 2}),
    "jax.lax.integer_pow": Recipe(extra={"y": 2}),
}
"""Per function: what its call needs beyond the array arguments (default: ``Recipe()``)."""

NEEDS_DIMENSIONS: Final = frozenset(
    {
        f"jax.numpy.{name}"
        for name in (
            "moveaxis",
            "permute_dims",
            "reshape",
            "rollaxis",
            "sort",
            "swapaxes",
            "fill_diagonal",
            "put",
            "rot90",
            "fliplr",
            "flipud",
            "flip",
            "tril",
            "triu",
            "matrix_transpose",
            "unstack",
            "compress",
            "extract",
            "place",
            "put_along_axis",
            "take_along_axis",
            "split",
            "array_split",
            "dsplit",
            "hsplit",
            "vsplit",
            "sort_complex",
            "cumulative_sum",
            "cumulative_prod",
            "trace",
            "argsort",
            "nonzero",
            "flatnonzero",
            "argwhere",
            "diag_indices_from",
            "tril_indices_from",
            "triu_indices_from",
            "diag",
            "diagonal",
            "diagflat",
            "argpartition",
            "partition",
            "take",
            "repeat",
            "roll",
            "tile",
            "pad",
            "delete",
            "insert",
            "resize",
            "searchsorted",
            "digitize",
            "unique",
            "unique_values",
            "unique_all",
            "unique_counts",
            "unique_inverse",
            "trim_zeros",
            "packbits",
            "unpackbits",
            "histogram",
            "histogram_bin_edges",
            "histogram2d",
            "ravel_multi_index",
            "unravel_index",
            "ix_",
            "gradient",
            "cumsum",
            "cumprod",
            "nancumsum",
            "nancumprod",
            "apply_along_axis",
            "cov",
            "corrcoef",
        )
    }
    | {
        f"jax.lax.{name}"
        for name in (
            *SHAPE_OPERATIONS,
            "gather",
            "squeeze",
            "expand_dims",
            "unstack",
            "index_take",
            "sort_key_val",
            "top_k",
            "scatter",
            "scatter_add",
            "scatter_sub",
            "scatter_mul",
            "scatter_min",
            "scatter_max",
            "argmax",
            "argmin",
            "cumsum",
            "cumprod",
            "cummax",
            "cummin",
            "cumlogsumexp",
            "reduce_sum",
            "reduce_prod",
            "reduce_max",
            "reduce_min",
            "reduce_and",
            "reduce_or",
            "reduce_xor",
            "concatenate",
            "stack",
            "pad",
            "dynamic_update_slice",
            "dynamic_update_slice_in_dim",
            "dynamic_update_index_in_dim",
            "dot",
            "dot_general",
            "batch_matmul",
            "clamp",
            "select",
            "select_n",
        )
    }
    | {
        "jax.nn.softmax",
        "jax.nn.log_softmax",
        "jax.nn.glu",
        "jax.nn.dot_product_attention",
        "jax.nn.standardize",
        "jax.nn.logsumexp",
        "jax.nn.logmeanexp",
    }
    | {"jax.numpy.linalg.", "jax.numpy.fft."}
)
"""Functions (or prefixes) that need arrays of one or two dimensions: not called with
Python scalars."""

# Values for required parameters no recipe names, by parameter name.
_BY_NAME: Final[Mapping[str, Any]] = {
    "key": "@key",
    "shape": (2,),
    "axis": 0,
    "indices": "@ints1",
}


# ------------------------------------------------------------------ operands


def _cases(kind: Kind, arrays: Sequence[str], scalars: Sequence[str]) -> list[dict[str, Any]]:
    """Return the array-argument combinations observed for one function."""
    if kind.branches():
        found = [case for branch in kind.branches() for case in _cases(branch, arrays, scalars)]
        unique = {tuple(case.items()): case for case in found}  # a flag's cases share them
        return list(unique.values())
    params = [p for p in kind.params if not p.constant and not p.ignored and p.default is None]
    if not params:
        return [{}]
    first = params[0]
    cases: list[dict[str, Any]] = []
    if len(params) == 1 or params[1].optional:
        if first.sequence:
            cases += [{first.name: (a, b)} for a, b in _pairs(kind, arrays, scalars)]
        elif not first.optional:
            cases += [{first.name: t} for t in (*arrays, *scalars)]
        if len(params) == 1 or not kind.joins_operands:
            return cases
    second = params[1]
    for a, b in _pairs(kind, arrays, scalars):
        case: dict[str, Any] = {first.name: (a,) if first.sequence else a}
        case[second.name] = (b,) if second.sequence else b
        for p in params[2:]:
            if not p.optional:
                case[p.name] = (a,) if p.sequence else a
        cases.append(case)
    return cases


_HELPER_SHAPES: Final[Mapping[str, tuple[int, ...]]] = {
    "@ints": (2, 2),
    "@ints1": (2,),
    "@int_scalar": (),
}
"""The shapes of the index helpers (:func:`_value`), for index arrays of other dtypes."""


def _required_cases(
    kind: Kind, recipe: Recipe, arrays: Sequence[str]
) -> tuple[list[dict[str, Any]], dict[str, tuple[int, ...]]]:
    """Calls giving each parameter of ``kind.requires`` (an index the recipe otherwise
    fixes) every dtype, the others one float32 array; and the shapes those indices take.

    ``take_along_axis(float32 array, indices of each dtype)``: JAX refuses the float
    indices.  A recipe's index is an array helper (``"@ints"``), a number (one scalar
    index: Python scalars are tried too) or a tuple of numbers (a sequence of scalars).
    """
    base: dict[str, Any] = {
        p.name: ("float32",) if p.sequence else "float32"
        for p in kind.params
        if not p.ignored and not p.constant and not p.optional
    }
    cases: list[dict[str, Any]] = []
    shapes: dict[str, tuple[int, ...]] = {}
    for name, _ in kind.requires:
        param = next((p for p in kind.params if p.name == name), None)
        default = recipe.extra.get(name)
        if param is None or not param.ignored or default is None:
            continue
        if isinstance(default, str):
            if default not in _HELPER_SHAPES:
                continue
            shapes[name] = _HELPER_SHAPES[default]
            dtypes: tuple[str, ...] = tuple(arrays)
        else:
            shapes[name] = ()
            dtypes = (*arrays, *PY_SCALARS)
        for t in dtypes:
            value = (t,) * len(default) if isinstance(default, tuple) else t
            cases.append({**base, name: value})
    return cases, shapes


def _pairs(kind: Kind, arrays: Sequence[str], scalars: Sequence[str]) -> Iterator[tuple[str, str]]:
    paired = [t for t in arrays if t in PAIR_DTYPES or t in WEAK_NAMES]
    if kind.one_dtype:
        for t in paired:
            yield t, t
        for t in paired:
            for s in (*scalars, *WEAK_NAMES):
                if s != t:
                    yield t, s
                    yield s, t
        return
    for a in paired:
        for b in (*paired, *scalars):
            yield a, b
    for s in scalars:
        for b in paired:
            yield s, b


def _left(case: Mapping[str, Any]) -> str:
    return " ".join(
        f"{name}={','.join(v) if isinstance(v, tuple) else v}" for name, v in case.items()
    )


def _option_cases(kind: Kind) -> list[dict[str, str]]:
    """Return the ``dtype=`` requests: every dtype as a JAX type and a string, the Python types."""
    found: list[dict[str, str]] = []
    for option in kind.options:
        if option not in DTYPE_OPTIONS:
            continue
        for t in DTYPE_NAMES:
            found.append({option: t})
            found.append({option: f"'{t}'"})
        found.extend({option: py} for py in PY_TYPES)
    return found


def _flag_cases(kind: Kind) -> list[dict[str, str]]:
    """Every combination of the flags' values other than all the defaults (``compute_uv=False``;
    ``mode='r' pivoting=True``), as the options of a call."""
    values = flags(kind)
    found: list[dict[str, str]] = []
    for combination in itertools.product(*values.values()):
        options = {
            flag: repr(value)
            for (flag, listed), value in zip(values.items(), combination, strict=True)
            if value != listed[0]
        }
        if options:
            found.append(options)
    return found


# ------------------------------------------------------------------ observing


class _Observer:
    """Calls the functions under the JAX configuration of one rule set."""

    def __init__(self, rules: str) -> None:
        import importlib

        from jax._src import dtypes as jax_dtypes

        jax: Any = importlib.import_module("jax")
        for module in ("jax.numpy.fft", "jax.numpy.linalg"):
            importlib.import_module(module)
        x64, strict = config_of(rules)
        jax.config.update("jax_enable_x64", x64)
        jax.config.update("jax_numpy_dtype_promotion", "strict" if strict else "standard")
        self.jax = jax
        self.rules = rules
        self.x64, self.strict = x64, strict
        self.dtypes: dict[str, Any] = {}
        self.skipped: list[str] = []
        for dtype in jax_dtypes._jax_types:  # pyright: ignore[reportPrivateUsage]
            name = "bool_" if str(dtype) == "bool" else str(dtype)
            if name not in DTYPE_NAMES:
                continue
            if jax.dtypes.canonicalize_dtype(dtype) != dtype:
                self.skipped.append(f"{name}: canonicalised with jax_enable_x64={x64}")
                continue
            self.dtypes[name] = dtype
        self.arrays = [t for t in DTYPE_NAMES if t in self.dtypes] + list(WEAK_NAMES)
        self._built: dict[int, dict[str, Any]] = {}
        self.weak = {weak: jax.dtypes.canonicalize_dtype(py) for weak, py in WEAK_PY_TYPES.items()}

    # -- values --------------------------------------------------------------------

    def _extra(self, value: Any) -> Any:
        if isinstance(value, str) and value.startswith("@"):
            if value == "@triu":
                return self.jax.numpy.triu
            if value == "@device":
                return self.jax.devices()[0]
            return _value(self.jax, value[1:])
        if isinstance(value, list):
            return [self._extra(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._extra(v) for v in value)
        return value

    def _spec(self, t: str, shape: tuple[int, ...]) -> Any:
        jax = self.jax
        if t in self.weak:
            return jax.ShapeDtypeStruct(shape, self.weak[t], weak_type=True)
        return jax.ShapeDtypeStruct(shape, self.dtypes[t])

    def _concrete(self, t: str, shape: tuple[int, ...], eager: bool = False) -> Any:
        import numpy as np

        jnp = self.jax.numpy
        if t in self.weak:
            return jnp.full(shape, WEAK_PY_TYPES[t](1))
        return np.ones(shape, self.dtypes[t]) if not eager else jnp.ones(shape, self.dtypes[t])

    def _option(self, text: str) -> Any:
        jnp = self.jax.numpy
        if text in PY_TYPES:
            return PY_TYPES[text]
        if text.startswith("'"):
            name = text.strip("'")
            return "bool" if name == "bool_" else name
        if text in ("True", "False"):
            return text == "True"
        found = getattr(jnp, text, None)
        return found if found is not None else BY_NAME[text]  # our marker (complex32 …)

    def _by_name(self, name: str) -> Any:
        """A value for a required parameter no recipe names (built once)."""
        key = -hash(name)
        found = self._built.get(key)
        if found is None:
            found = {name: self._extra(_BY_NAME[name])}
            self._built[key] = found
        return found[name]

    def _extras(self, recipe: Recipe) -> dict[str, Any]:
        """The recipe's non-array arguments, built once per recipe (some run JAX eagerly)."""
        key = id(recipe)
        found = self._built.get(key)
        if found is None:
            found = {k: self._extra(v) for k, v in recipe.extra.items()}
            self._built[key] = found
        return found

    # -- calling -------------------------------------------------------------------

    def function(self, name: str) -> Callable[..., Any]:
        """Return the callable behind a full name (methods take the array first)."""
        module, _, attribute = name.rpartition(".")
        if name.startswith("jax.Array."):
            method = name.removeprefix("jax.Array.")

            def call(x: Any, *args: Any, **kwargs: Any) -> Any:
                return getattr(x, method)(*args, **kwargs)

            member = getattr(self.jax.Array, method, None) if "." not in method else None
            call.__signature__ = (  # type: ignore[attr-defined]
                inspect.signature(member) if callable(member) else inspect.Signature()
            )
            return call
        import importlib

        found: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
        return found

    def observe(self, name: str, kind: Kind) -> list[Cell]:
        """Call one function over its cases and return the cells."""
        recipe = RECIPES.get(name, Recipe())
        fn = self.function(name)
        try:
            signature: inspect.Signature | None = inspect.signature(fn)
        except (TypeError, ValueError):
            signature = None
        scalars = list(PY_SCALARS) if recipe.scalars and kind.scalars is True else []
        if name in NEEDS_DIMENSIONS or any(
            name.startswith(p) for p in NEEDS_DIMENSIONS if p.endswith(".")
        ):
            scalars = []
        if name.startswith("jax.Array."):
            scalars = []  # a method's array is an array
        arrays = self.arrays
        if recipe.eager:
            arrays = [t for t in arrays if t in PAIR_DTYPES or t in WEAK_NAMES]
        cases = [{**case, **recipe.fixed} for case in _cases(kind, arrays, scalars)]
        required_cases, index_shapes = _required_cases(kind, recipe, arrays)
        if index_shapes:
            recipe = replace(recipe, shapes={**index_shapes, **recipe.shapes})
        required = _required_options(kind, signature)
        calls: list[tuple[Mapping[str, Any], Mapping[str, str]]] = []
        if not required:
            calls += [(case, {}) for case in cases]
        option_cases = _option_cases(kind)
        if option_cases:
            reps = [c for c in cases if _is_representative(c)] or cases[:1]
            calls += [(case, options) for case in reps for options in option_cases]
            if required:
                calls += [(case, {required[0]: "float32"}) for case in cases]
        if "promote_integers" in kind.options:
            calls += [(case, {"promote_integers": "False"}) for case in cases]
        calls += [(case, flags) for flags in _flag_cases(kind) for case in cases]
        calls += [({**case, **recipe.fixed}, {}) for case in required_cases]
        prepared: list[tuple[Any, Callable[[Any], Any]]] = []
        failed: dict[int, BaseException] = {}
        for i, (case, options) in enumerate(calls):
            try:
                prepared.append(self._prepare(fn, signature, recipe, case, options, kind))
            except Exception as exc:  # an argument JAX cannot even be given
                failed[i] = exc
        if recipe.eager:
            outcomes = [self._run_eagerly(run, specs) for specs, run in prepared]
        else:
            outcomes = self._run_traced(prepared)
        ran = iter(outcomes)
        cells: list[Cell] = []
        for i, (case, options) in enumerate(calls):
            cells += _cells(name, case, options, failed[i] if i in failed else next(ran))
        return cells

    def _run_eagerly(
        self, run: Callable[[Any], Any], specs: Any
    ) -> list[tuple[str, bool]] | BaseException:
        try:
            return self._leaves(run(specs))
        except Exception as exc:  # every failure is recorded
            return exc

    def _run_traced(
        self, prepared: list[tuple[Any, Callable[[Any], Any]]]
    ) -> list[list[tuple[str, bool]] | BaseException]:
        if not prepared:
            return []
        """Trace every call of one function in a single ``jax.eval_shape`` (one trace).

        Each call is traced on its own inside the one trace and its failure caught,
        so that the (costly) set-up of a trace is paid once per function.
        """
        jax = self.jax
        errors: dict[int, BaseException] = {}

        def batch(all_specs: list[Any]) -> list[list[Any]]:
            outs: list[list[Any]] = []
            for i, ((_, run), specs) in enumerate(zip(prepared, all_specs, strict=True)):
                try:
                    leaves = jax.tree_util.tree_leaves(run(specs))
                    if not leaves or not all(isinstance(x, jax.Array) for x in leaves):
                        raise ResultNotArray(leaves[0] if leaves else None)
                    outs.append(leaves)
                except Exception as exc:  # every failure is recorded
                    errors[i] = exc
                    outs.append([])
            return outs

        try:
            shapes = jax.eval_shape(batch, [specs for specs, _ in prepared])
        except Exception:  # the batch itself failed: trace each call on its own
            return [self._run_alone(specs, run) for specs, run in prepared]
        return [
            errors[i] if i in errors else [self._leaf(x) for x in out]
            for i, out in enumerate(shapes)
        ]

    def _run_alone(
        self, specs: Any, run: Callable[[Any], Any]
    ) -> list[tuple[str, bool]] | BaseException:
        try:
            return self._leaves(self.jax.eval_shape(run, specs))
        except Exception as exc:  # every failure is recorded
            return exc

    def _leaf(self, leaf: Any) -> tuple[str, bool]:
        dtype = str(leaf.dtype)
        extended = marker_named(dtype)  # key<fry>: a typed key array, of any implementation
        if extended in EXTENDED:
            dtype = extended.name
        return ("bool_" if dtype == "bool" else dtype, bool(leaf.weak_type))

    def _leaves(self, out: Any) -> list[tuple[str, bool]]:
        jax = self.jax
        leaves = jax.tree_util.tree_leaves(out)
        if not leaves:
            raise ResultNotArray(out)
        for leaf in leaves:
            if not isinstance(leaf, jax.ShapeDtypeStruct | jax.Array):
                raise ResultNotArray(leaf)
        return [self._leaf(leaf) for leaf in leaves]

    def _prepare(
        self,
        fn: Callable[..., Any],
        signature: inspect.Signature | None,
        recipe: Recipe,
        case: Mapping[str, Any],
        options: Mapping[str, str],
        kind: Kind,
    ) -> tuple[dict[str, Any], Callable[[dict[str, Any]], Any]]:
        """Return the array specs of one call and the function that makes it from them."""
        specs: dict[str, Any] = {}
        constants: dict[str, Any] = {}

        def make(t: str, shape: tuple[int, ...]) -> Any:
            if recipe.concrete:
                return self._concrete(t, shape, recipe.eager)
            return self._spec(t, shape)

        for param, value in case.items():
            shape = recipe.shapes.get(param, recipe.shape)
            items = value if isinstance(value, tuple) else (value,)
            built = [PY_SCALARS[t] if t in PY_SCALARS else make(t, shape) for t in items]
            target = constants if recipe.concrete or all(t in PY_SCALARS for t in items) else specs
            if any(t in PY_SCALARS for t in items) and not all(t in PY_SCALARS for t in items):
                target = constants  # a sequence mixing Python scalars and arrays
                built = [
                    PY_SCALARS[t] if t in PY_SCALARS else self._concrete(t, shape) for t in items
                ]
            target[param] = list(built) if isinstance(value, tuple) else built[0]
        extra = {k: v for k, v in self._extras(recipe).items() if k not in case}
        opts = {k: self._option(v) for k, v in options.items()}

        def run(arrays: dict[str, Any]) -> Any:
            values = {**constants, **arrays}
            if recipe.call is not None:
                return recipe.call(fn, *[values[p] for p in case], **extra, **opts)
            # array parameters (the ignored ones from the recipe) go in the kind's order
            order = [p.name for p in _array_params(kind) if p.name in values or p.name in extra]
            values.update({p: extra[p] for p in order if p in extra})
            keywords = {k: v for k, v in extra.items() if k not in order}
            args, kwargs = _bind(signature, order, values, {**keywords, **opts})
            for p in _missing(signature, {*kwargs, *_positional_names(signature, len(args))}):
                kwargs[p] = self._by_name(p)
            return fn(*args, **kwargs)

        return specs, run

    @contextlib.contextmanager
    def quiet(self) -> Iterator[None]:
        """Silence warnings and turn off traceback filtering (it makes errors ~10x slower)."""
        config: Any = self.jax.config
        old = config.jax_traceback_filtering
        config.update("jax_traceback_filtering", "off")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                yield
        finally:
            config.update("jax_traceback_filtering", old)


def _cells(
    name: str,
    case: Mapping[str, Any],
    options: Mapping[str, str],
    outcome: list[tuple[str, bool]] | BaseException,
) -> list[Cell]:
    """Return the cells of one call: one per array returned, or the error."""
    left = _left(case)
    right = " ".join(f"{k}={v}" for k, v in options.items())
    if isinstance(outcome, BaseException):
        return [Cell(name, left, right, None, None, _classify(outcome), format_error(outcome))]
    if len(outcome) == 1:
        return [Cell(name, left, right, outcome[0][0], outcome[0][1], None, None)]
    return [
        Cell(f"{name}[{i}]", left, right, dtype, weak, None, None)
        for i, (dtype, weak) in enumerate(outcome)
    ]


def _array_params(kind: Kind) -> list[Param]:
    """The kind's named array parameters (a choice's: those of its given kind, all of them)."""
    return [p for p in kind.params if not p.constant]


def _is_representative(case: Mapping[str, Any]) -> bool:
    values = list(case.values())
    return (
        len(values) >= 1
        and all(v in REPRESENTATIVES for v in values[:1])
        and (len(values) < 2 or values[1] == values[0])
    )


def _required_options(kind: Kind, signature: inspect.Signature | None) -> list[str]:
    if signature is None:
        return []
    return [
        o
        for o in kind.options
        if o in signature.parameters
        and signature.parameters[o].default is inspect.Parameter.empty
        and o in DTYPE_OPTIONS
    ]


def _positional_names(signature: inspect.Signature | None, count: int) -> list[str]:
    if signature is None:
        return []
    return [
        p.name
        for p in list(signature.parameters.values())[:count]
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]


def _missing(signature: inspect.Signature | None, given: set[str]) -> list[str]:
    """Return required parameters not given (filled from ``_BY_NAME``)."""
    if signature is None:
        return []
    return [
        p.name
        for p in signature.parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name not in given
        and p.name != "self"
        and p.name in _BY_NAME
    ]


def _bind(
    signature: inspect.Signature | None,
    order: list[str],
    values: Mapping[str, Any],
    keywords: Mapping[str, Any],
) -> tuple[list[Any], dict[str, Any]]:
    """Return the positional and keyword arguments for a call of ``signature``."""
    params = {} if signature is None else dict(signature.parameters)
    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    # parameters before a variadic one must be passed by position
    variadic = [
        i for i, n in enumerate(order) if n in params and params[n].kind is params[n].VAR_POSITIONAL
    ]
    for i, name in enumerate(order):
        p = params.get(name)
        value = values[name]
        if p is not None and p.kind is p.VAR_POSITIONAL:
            args.extend(value)
        elif (
            p is None
            or p.kind is p.POSITIONAL_ONLY
            or name == "self"
            or (variadic and i < variadic[0])
        ):
            args.append(value)
        else:
            kwargs[name] = value
    for name, value in keywords.items():
        p = params.get(name)
        if p is not None and p.kind is p.POSITIONAL_ONLY:
            positional = [q for q in params.values() if q.kind is q.POSITIONAL_ONLY]
            while len(args) < positional.index(p):  # pragma: no cover - not needed so far
                args.append(None)
            args.append(value)
        else:
            kwargs[name] = value
    return args, kwargs


def _classify(exc: BaseException) -> str:
    if isinstance(exc, ResultNotArray):
        return "bug"
    names = {cls.__name__ for cls in type(exc).__mro__}
    text = format_error(exc).partition(": ")[2]
    for rule in FUNCTION_ERROR_RULES:
        if rule.exception in names and re.search(rule.pattern, text):
            return rule.kind
    return "bug"


def header(
    rules: str, versions: Sequence[str], arrays: Sequence[str], skipped: Sequence[str]
) -> list[str]:
    """Return the truth file's comment lines."""
    x64, strict = config_of(rules)
    return [
        "Generated by tools/make_function_truth.py: do not edit.",
        f"Regenerate with: python tools/make_function_truth.py --rules {rules}",
        f"rules: {rules}: jax_enable_x64={x64}, "
        f"jax_numpy_dtype_promotion={'strict' if strict else 'standard'!r}",
        "versions: " + ", ".join(versions),
        "calls: jax.eval_shape on ShapeDtypeStruct arrays (weak_* with weak_type=True);"
        " Python scalars closed over; see tools/conformance/functions.py (RECIPES)",
        "array operands: " + " ".join(arrays),
        "scalar operands: " + " ".join(f"{k}={v!r}" for k, v in PY_SCALARS.items()),
        "one array argument: every operand; several joined arguments: all pairs over "
        + " ".join(PAIR_DTYPES)
        + " and the weak arrays, Python scalars on either side (lax: pairs of one dtype,"
        " and of a dtype with each Python scalar and weak array)",
        "dtype= requests: every dtype as a jnp type (dtype=float32) and a string"
        " (dtype='float32'), the Python types (dtype=float), for the operands "
        + " ".join(REPRESENTATIVES)
        + "; promote_integers=False for every operand",
        *(f"skipped: {line}" for line in skipped),
        "error_kind: FUNCTION_ERROR_RULES in tools/conformance/functions.py"
        " (unmatched errors are 'bug')",
    ]


def observed(entries: Mapping[str, Kind]) -> dict[str, Kind]:
    """Return the entries that are called: not "unknown", not "not an array"."""
    return {name: kind for name, kind in entries.items() if kind.modelled}


def _chosen(name: str, only: Sequence[str]) -> bool:
    return any(name == o or (o.endswith(".") and name.startswith(o)) for o in only)


def observe_functions(
    rules: str, only: Sequence[str] | None = None
) -> tuple[list[str], list[Cell]]:
    """Observe every function (or those of ``only``: full names, or prefixes ending in
    ``.``) under one rule set's JAX configuration."""
    observer = _Observer(rules)
    entries = observed(table())
    names = [n for n in entries if only is None or _chosen(n, only)]
    cells: list[Cell] = []
    timing = os.environ.get("TYPING_PKG_TIMING")  # a file to append per-function times to
    with observer.quiet():
        for name in names:
            start = time.perf_counter()
            found = observer.observe(name, entries[name])
            if timing:
                took = time.perf_counter() - start
                with open(timing, "a", encoding="utf-8") as out:
                    out.write(f"{took:7.2f}s {len(found):6d} {name}\n")
            cells += found
    versions = package_versions("jax", "jaxlib", "numpy", "ml_dtypes")
    return header(rules, versions, observer.arrays, observer.skipped), cells


_CHILD_CODE: Final = (
    "import sys\n"
    "from tools.conformance.functions import child_main\n"
    "sys.exit(child_main(sys.argv[1], sys.argv[2], sys.argv[3:]))\n"
)


def child_main(rules: str, out_path: str, only: Sequence[str]) -> int:
    """Observe and write the truth file (the subprocess entry point)."""
    meta, cells = observe_functions(rules, list(only) or None)
    Path(out_path).write_text(format_truth(meta, cells), encoding="utf-8")
    return 0


def observe_functions_in_subprocess(
    rules: str, only: Sequence[str] | None = None
) -> tuple[list[str], list[Cell]]:
    """Observe in a fresh interpreter (one JAX configuration per process)."""
    return run_observer(_CHILD_CODE, rules, *(only or ()))
