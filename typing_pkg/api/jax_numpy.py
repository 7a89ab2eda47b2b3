"""The result dtypes of ``jax.numpy``, ``jax.numpy.linalg`` and ``jax.numpy.fft``, as data.

Each name maps to a rule kind of :mod:`typing_pkg.api.kinds`, written from
what the function does in JAX's sources (``jax/_src/numpy/*.py``):
``promote_args_inexact`` is :class:`ToInexact`, ``promote_args`` followed by
a ``lax`` primitive is :class:`Join` with the kinds the primitive accepts,
``_reduction`` is :class:`Reduce`, and so on.  Parameter names are JAX's own
(``jax/numpy/__init__.pyi``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from typing_pkg.api.jax_config import JAX_RULES
from typing_pkg.api.kinds import (
    Angle,
    Choose,
    Convolution,
    Create,
    Fill,
    Fixed,
    Flag,
    InexactApart,
    Join,
    Keep,
    Kind,
    Like,
    NotAnArray,
    Operator,
    Outputs,
    Predicate,
    RealiseFirst,
    Reduce,
    ToComplex,
    ToInexact,
    ToNumeric,
    ToReal,
    UnknownDtype,
)
from typing_pkg.api.kinds import Cast as Cast
from typing_pkg.api.namespace import Namespace
from typing_pkg.dtypes import ABSTRACT, CONCRETE, NARROW_FLOATS, DType
from typing_pkg.rules.jax import JaxX64Rules

__all__ = ["FFT", "LINALG", "NAMESPACES", "NUMPY"]

# Shared entries: kinds are immutable, one object serves many names.
_INEXACT: Final = ToInexact()
_REAL_INEXACT: Final = ToInexact(accepts="f")
_KEEP_A: Final = Keep()
_INDEX_A: Final = Fixed("i")
_PREDICATE_X: Final = Predicate()
# mean and var divide (lax.div) in the requested dtype: not in bool.
_MEAN: Final = Reduce(convert="inexact", requested_accepts="iufc")
_VAR: Final = Reduce(convert="real", after=("py_float",), requested_accepts="iufc")
_STD: Final = Reduce(convert="real", requested_accepts="fc", after=("py_float",))
_SUM: Final = Reduce(convert="numeric", widen="promote_integers")
_NANSUM: Final = Reduce(convert="numeric", widen="always")
_MAX: Final = Reduce(dtype=None)
_ANY: Final = Reduce(convert="bool", dtype=None)
_CUMSUM: Final = Reduce(widen="bool")
_CUMULATIVE: Final = Reduce(specs=("x",), widen="always")
_QUANTILE: Final = ToInexact(("a",), accepts="f", strong=True)
# The types to_inexact_dtype leaves as they are and that do not promote with a Python
# float: a function computing with a float constant refuses them.
_NO_FLOAT: Final = frozenset({"int1", "int2", "uint1", "uint2"})
_NARROW_FLOATS: Final = frozenset(NARROW_FLOATS)
_ZEROS: Final = Create("f")
_LIKE: Final = Like()
_STACK: Final = Join(("tup[]",), dtype="dtype")
_SPLIT: Final = Keep(("ary",))
_EACH: Final = Keep(("*arys",), each=True)
_DOT: Final = Join(("a", "b"), dtype="preferred_element_type", scalars=False)
_VECDOT: Final = Join(("x1", "x2"), dtype="preferred_element_type", scalars=False)
_SET: Final = Join(("ar1", "ar2"), strong=True)
_INDICES: Final = Fixed("i", specs=())
_WINDOW: Final = Fixed("f", specs=())
_FLOOR: Final = Keep(("x",), accepts="biuf")
# finfo(dtype) of the computation dtype: the integers to_inexact_dtype keeps fail.
_SPACE: Final = Fill(
    ("start", "stop"),
    inexact=True,
    strong=True,
    refuses=frozenset({"int1", "int2", "uint1", "uint2"}),
)


def _op(op: str, specs: tuple[str, ...] = ("x", "y")) -> Operator:
    return Operator(op, specs)


def _not(reason: str) -> NotAnArray:
    return NotAnArray(reason)


_DTYPE: Final = _not("a scalar type (dtype) object")
_CATEGORY: Final = _not("an abstract dtype category")
_CONSTANT: Final = _not("a Python float constant")

# jax.numpy's scalar types: one per dtype JAX has, and NumPy's aliases of them.
_SCALAR_TYPES: Final = sorted(
    {m.name for m in CONCRETE}.intersection(JaxX64Rules.array_types).union(
        ("bool", "cdouble", "complex_", "csingle", "double", "float_", "int_", "single", "uint")
    )
)
# Its abstract dtype categories: ours (but the root) and NumPy's non-numeric ones.
_CATEGORIES: Final = sorted(
    {m.name for m in ABSTRACT if m is not DType}.union(("character", "flexible", "object_"))
)

NUMPY: Final[Mapping[str, Kind]] = {
    # -- the Python operators' functions --------------------------------------------------
    "abs": _op("abs", ("x",)),
    "absolute": _op("abs", ("x",)),
    "add": _op("add", ("x", "y")),
    "bitwise_and": _op("and", ("x", "y")),
    "bitwise_or": _op("or", ("x", "y")),
    "bitwise_xor": _op("xor", ("x", "y")),
    "bitwise_invert": _op("invert", ("x",)),
    "bitwise_not": _op("invert", ("x",)),
    "invert": _op("invert", ("x",)),
    "bitwise_left_shift": _op("lshift", ("x", "y")),
    "left_shift": _op("lshift", ("x", "y")),
    "bitwise_right_shift": _op("rshift"),
    "right_shift": _op("rshift"),
    "divide": _op("truediv"),
    "true_divide": _op("truediv"),
    "floor_divide": _op("floordiv"),
    "remainder": _op("mod"),
    "mod": _op("mod"),
    "multiply": _op("mul", ("x", "y")),
    "subtract": _op("sub", ("x", "y")),
    "power": _op("pow"),
    "pow": _op("pow"),
    "negative": _op("neg", ("x",)),
    "positive": _op("pos", ("x",)),
    "matmul": Operator("matmul", ("a", "b"), dtype="preferred_element_type", scalars=False),
    "equal": _op("eq", ("x", "y")),
    "not_equal": _op("ne", ("x", "y")),
    "greater": _op("gt", ("x", "y")),
    "greater_equal": _op("ge", ("x", "y")),
    "less": _op("lt", ("x", "y")),
    "less_equal": _op("le", ("x", "y")),
    "divmod": Outputs((_op("floordiv"), _op("mod"))),
    # -- elementwise, made inexact (promote_args_inexact) ---------------------------------
    **dict.fromkeys(
        (
            "acos",
            "acosh",
            "arccos",
            "arccosh",
            "arcsin",
            "arcsinh",
            "arctan",
            "arctanh",
            "asin",
            "asinh",
            "atan",
            "atanh",
            "cos",
            "cosh",
            "sin",
            "sinh",
            "tan",
            "tanh",
            "exp",
            "exp2",
            "expm1",
            "log",
            "log1p",
            "sqrt",
            "reciprocal",
        ),
        _INEXACT,
    ),
    # sinc selects against its Maclaurin term (strong)
    "sinc": ToInexact(strong=True, python_weak=True),
    # These multiply by a constant made with _constant_like (a NumPy scalar: strong).
    **dict.fromkeys(("log10", "log2"), ToInexact(strong=True)),
    **dict.fromkeys(
        ("deg2rad", "degrees", "rad2deg", "radians"),
        ToInexact(strong=True, accepts="biufc", python_weak=True),
    ),
    "cbrt": _REAL_INEXACT,
    # fabs is lax.abs of the inexact input: int1 (kept by to_inexact) is computed in int8
    "fabs": ToInexact(
        accepts="fi", results=(("int1", "int8"),), refuses=frozenset({"int2", "uint1", "uint2"})
    ),
    "spacing": ToInexact(accepts="f", strong=True),
    "i0": _REAL_INEXACT,
    "arctan2": ToInexact(("x", "y")),
    "atan2": ToInexact(("x", "y")),
    "copysign": ToInexact(("x", "y"), accepts="f"),
    # hypot and heaviside select between the input and constants of its dtype
    # (_lax_const: NumPy scalars, strongly typed), so their results are strong.
    "hypot": ToInexact(("x", "y"), accepts="f", strong=True),
    "nextafter": ToInexact(("x", "y"), accepts="f"),
    "heaviside": ToInexact(("x", "y"), accepts="f", strong=True, python_weak=True),
    # lax_other.logaddexp computes complex values through lax.complex (strong);
    # logaddexp2 multiplies by a NumPy constant (strong).
    "logaddexp": ToInexact(("x", "y"), strong_kinds="c"),
    "logaddexp2": ToInexact(("x", "y"), strong=True),
    "float_power": ToInexact(("x", "y")),
    # ldexp rebuilds the result from frexp's parts: strongly typed
    "ldexp": ToInexact(("x", "~y"), accepts="f", strong=True, requires=(("y", "biu"),)),
    "frexp": Outputs((ToInexact(accepts="f", strong=True), Fixed("int32", ("x",), accepts="biuf"))),
    # modf: to_inexact, then floor/ceil, which return integers (int1 …) as they are
    "modf": Outputs((ToInexact(accepts="biuf"), ToInexact(accepts="biuf"))),
    # -- elementwise, joined ---------------------------------------------------------------
    "maximum": Join(("x", "y")),
    "minimum": Join(("x", "y")),
    "fmax": Join(("x", "y")),
    "fmin": Join(("x", "y")),
    # gcd and lcm loop on abs() of the promoted arrays: strong results, and abs
    # refuses the narrow signed integers.
    "gcd": Join(("x1", "x2"), accepts="iu", strong=True, refuses=frozenset({"int2", "int4"})),
    "lcm": Join(("x1", "x2"), accepts="iu", strong=True, refuses=frozenset({"int2", "int4"})),
    "fmod": ToNumeric(("x", "y"), accepts="iuf"),
    "square": ToNumeric(("x",)),
    "sign": Join(("x",), accepts="iufc"),
    "conj": Keep(("x",)),
    "conjugate": Keep(("x",)),
    "real": ToReal(("x",)),
    "imag": ToReal(("x",)),
    # angle: integer (and 0-d float) inputs are converted to the default float
    "angle": Angle(("z",), inexact=True, ints=True),
    "floor": _FLOOR,
    "ceil": _FLOOR,
    "trunc": _FLOOR,
    "rint": Keep(("x",), ints="f"),
    # round takes finfo() of non-integer dtypes: bool is refused
    "round": Keep(accepts="iufc"),
    "around": Keep(accepts="iufc"),
    # nan_to_num selects the input's inexact values against constants (strong).
    "nan_to_num": Keep(("x",), strong_kinds="fc"),
    "clip": Join(("x", "min?", "max?"), accepts="biuf"),
    "where": Choose("x", Join(("~condition", "x?", "y?")), Fixed("i", ("~condition",))),
    "select": Join(("~condlist[]", "choicelist[]", "default=py_int")),
    # choose indexes jnp.array(choices): a list, so strongly typed.
    "choose": Join(("~a", "choices[]"), strong=True, requires=(("a", "iu"),)),
    "piecewise": Keep(("x",), weak=False),
    "bitwise_count": Fixed("uint8", ("x",), accepts="biu", refuses=frozenset({"int2", "int4"})),
    # -- predicates ------------------------------------------------------------------------
    **dict.fromkeys(("isfinite", "isinf", "isnan"), _PREDICATE_X),
    **dict.fromkeys(("isneginf", "isposinf"), Predicate(("x",), accepts="biuf")),
    "iscomplex": _PREDICATE_X,
    "isreal": _PREDICATE_X,
    "signbit": Predicate(("x",), accepts="biuf"),
    "logical_not": _PREDICATE_X,
    "logical_and": Predicate(("x", "y")),
    "logical_or": Predicate(("x", "y")),
    "logical_xor": Predicate(("x", "y")),
    "isclose": Predicate(("a", "b")),
    "allclose": Predicate(("a", "b")),
    "array_equal": Predicate(("a1", "a2")),
    # array_equiv catches the promotion error (a ValueError) and returns False.
    "array_equiv": Fixed("bool_", specs=("~a1", "~a2")),
    "isin": Predicate(("element", "test_elements")),
    # -- reductions ------------------------------------------------------------------------
    "sum": _SUM,
    "prod": _SUM,
    "nansum": _NANSUM,
    "nanprod": _NANSUM,
    "mean": _MEAN,
    "nanmean": _MEAN,
    "var": _VAR,
    # nanvar converts its result to the requested dtype (var divides by a Python float)
    "nanvar": Reduce(
        convert="real", requested_accepts="iufc", after=("py_float",), after_result=False
    ),
    "std": _STD,
    "nanstd": _STD,
    "max": _MAX,
    "min": _MAX,
    "amax": _MAX,
    "amin": _MAX,
    "nanmax": _MAX,
    "nanmin": _MAX,
    "ptp": Reduce(dtype=None, accepts="iufc"),
    "all": _ANY,
    "any": _ANY,
    "cumsum": _CUMSUM,
    "cumprod": _CUMSUM,
    "nancumsum": _CUMSUM,
    "nancumprod": _CUMSUM,
    "cumulative_sum": _CUMULATIVE,
    # cumulative_sum promotes integers (_cumsum_with_promotion); cumulative_prod only bool
    "cumulative_prod": Reduce(specs=("x",), widen="bool"),
    "trace": Reduce(convert="numeric", widen="always"),
    "average": ToInexact(("a", "weights?"), strong=True, accepts="biufc"),
    "median": _QUANTILE,
    "nanmedian": _QUANTILE,
    "quantile": _QUANTILE,
    "nanquantile": _QUANTILE,
    "percentile": _QUANTILE,
    "nanpercentile": _QUANTILE,
    "count_nonzero": _INDEX_A,
    # -- indices ---------------------------------------------------------------------------
    "argmax": _INDEX_A,
    "argmin": _INDEX_A,
    "nanargmax": _INDEX_A,
    "nanargmin": _INDEX_A,
    "argsort": _INDEX_A,
    "argwhere": _INDEX_A,
    "flatnonzero": _INDEX_A,
    "nonzero": _INDEX_A,
    # int_dtype_for_dim: int32 for arrays of fewer than 2**31 elements, whatever x64.
    "searchsorted": Fixed("int32", ("a", "v"), scalars=("a",)),
    "digitize": Fixed("int32", ("x", "bins"), scalars=("bins",)),
    "lexsort": Fixed("i", ("keys[]",), promotes=False, scalars=False),
    "diag_indices": _INDICES,
    "diag_indices_from": Fixed("i", ("arr",)),
    "tril_indices": _INDICES,
    "triu_indices": _INDICES,
    "tril_indices_from": Fixed("i", ("arr",)),
    "triu_indices_from": Fixed("i", ("arr",)),
    "mask_indices": _INDICES,
    "indices": Create("i", accepts="iufc"),
    # dtype=result_type(int, *multi_index): the realised join with a Python int.
    "ravel_multi_index": Join(
        ("multi_index[]", "=py_int"),
        strong=True,
        accepts="iu",
        dtype="dtype",
        requires=(("multi_index", "iu"),),
    ),
    "unravel_index": Keep(("indices",), accepts="iuf", unknown_for=frozenset({"bool_"})),
    # -- keep the input's dtype ------------------------------------------------------------
    # These select through masks, gathers or a sort with an iota: strongly typed.
    "diagonal": Keep(weak=False),
    # partition sorts through lax.top_k: weak integers stay weak, the rest is strong
    "partition": Keep(accepts="iuf"),
    **dict.fromkeys(("diag", "diagflat"), Keep(("v",), weak=False)),
    # argpartition takes lax.top_k's int32 indices (weak for a weak input)
    "argpartition": Fixed("int32", accepts="iuf", weak=True),
    **dict.fromkeys(
        (
            "copy",
            "expand_dims",
            "moveaxis",
            "permute_dims",
            "ravel",
            "repeat",
            "reshape",
            "resize",
            "roll",
            "rollaxis",
            "sort",
            "squeeze",
            "swapaxes",
            "transpose",
            "fill_diagonal",
            "put",
        ),
        _KEEP_A,
    ),
    "rot90": Keep(("m",)),
    "permute_dims": Keep(("x",)),
    "delete": Keep(("arr",)),
    # insert casts the values to the array's dtype without a promotion check
    "insert": Keep(("arr", "~obj", "~values")),
    "unique": Keep(("ar",), strong_kinds="c"),
    "unique_values": Keep(("x",), strong_kinds="c"),
    "flip": Keep(("m",)),
    "fliplr": Keep(("m",)),
    "flipud": Keep(("m",)),
    "tril": Keep(("m",)),
    "triu": Keep(("m",)),
    "tile": Keep(("A",)),
    "pad": Keep(("array",)),
    "broadcast_to": Keep(("array",)),
    "matrix_transpose": Keep(("x",)),
    "unstack": Keep(("x",)),
    "compress": Keep(("~condition", "a"), weak=False),
    "extract": Keep(("~condition", "arr"), weak=False),
    # the values are cast to the array's dtype (they must promote with it)
    "place": Keep(("arr", "~mask", "~vals"), check=("vals",)),
    "put_along_axis": Keep(
        ("arr", "~indices", "~values"), check=("values",), requires=(("indices", "biu"),)
    ),
    "put": Keep(("a", "~ind", "~v"), check=("v",)),
    "fill_diagonal": Keep(("a", "~val"), check=("val",)),
    # indices must be integers (take: or booleans); JAX raises for others
    "take_along_axis": Keep(("arr", "~indices"), requires=(("indices", "iu"),)),
    "take": Keep(("a", "~indices"), requires=(("indices", "biu"),), adds=(("indices", "py_int"),)),
    "trim_zeros": Keep(("filt",)),
    "split": _SPLIT,
    "array_split": _SPLIT,
    "dsplit": _SPLIT,
    "hsplit": _SPLIT,
    "vsplit": _SPLIT,
    "atleast_1d": _EACH,
    "atleast_2d": _EACH,
    "atleast_3d": _EACH,
    "broadcast_arrays": Keep(("*args",), each=True),
    "meshgrid": Keep(("*xi",), each=True),
    "ix_": Keep(("*args",), each=True),
    "unique_all": Outputs(
        (Keep(("x",), strong_kinds="c"), Fixed("i", ("x",)), Fixed("i", ("x",)), Fixed("i", ("x",)))
    ),
    "unique_counts": Outputs((Keep(("x",), strong_kinds="c"), Fixed("i", ("x",)))),
    "unique_inverse": Outputs((Keep(("x",), strong_kinds="c"), Fixed("i", ("x",)))),
    # -- joins of several arrays -----------------------------------------------------------
    "concatenate": Join(("arrays[]",), dtype="dtype", scalars=False),
    "concat": Join(("arrays[]",)),
    "stack": Join(("arrays[]",), dtype="dtype"),
    "hstack": _STACK,
    "vstack": _STACK,
    "dstack": _STACK,
    "column_stack": Join(("tup[]",)),
    "block": Join(("arrays[]",)),
    "append": Join(("arr", "values")),
    "diff": Join(("a", "prepend?", "append?"), scalars=("a",)),
    "ediff1d": Keep(("ary",), accepts="iufc"),
    # cross of 3-vectors builds jnp.array([...]) (strong); both paths subtract.
    "cross": Join(("a", "b"), accepts="iufc", strong=True, scalars=False),
    "kron": Join(("a", "b"), accepts="iufc"),
    "outer": Join(("a", "b")),
    "dot": _DOT,
    "vdot": _DOT,
    "inner": _DOT,
    "tensordot": _DOT,
    "vecdot": _VECDOT,
    "matvec": Join(("x1", "x2"), scalars=False),
    "vecmat": Join(("x1", "x2"), scalars=False),
    "einsum": Join(("*operands",), dtype="preferred_element_type"),
    # Without preferred_element_type: promote_dtypes_inexact; with it: promote_dtypes,
    # and lax.conv_general_dilated wants it of the inputs' kind.
    "convolve": Convolution(("a", "v"), dtype="preferred_element_type", scalars=False),
    "correlate": Convolution(("a", "v"), dtype="preferred_element_type", scalars=False),
    "intersect1d": _SET,
    "setxor1d": _SET,
    # unique() sorts complex numbers through lax.complex: strong complex results.
    "union1d": Join(("ar1", "ar2"), strong_kinds="c"),
    "setdiff1d": Keep(("ar1", "~ar2"), check=("ar2",), strong_kinds="c"),
    # polyadd and polysub scatter-add (.at[].add), which refuses bool.
    "polyadd": Join(("a1", "a2"), accepts="iufc", scalars=False),
    "polysub": Join(("a1", "a2"), accepts="iufc", scalars=False),
    "polymul": ToInexact(("a1", "a2"), accepts="biufc", scalars=False),
    # polyval scans from lax.full_like(x, 0, dtype=x.dtype): strong.
    "polyval": Join(("p", "x"), strong=True, scalars=("p",)),
    "polyder": ToInexact(("p",), strong=True, accepts="biufc", scalars=False),
    "polyint": ToInexact(("p", "k=py_int"), strong=True, accepts="biufc", scalars=False),
    "polydiv": Outputs(
        (
            ToInexact(("u", "v"), strong=True, accepts="biufc"),
            ToInexact(("u", "v"), accepts="biufc"),
        ),
        scalars=False,
    ),
    # polyfit takes finfo(x.dtype) before promoting: x must be inexact.
    "polyfit": RealiseFirst(
        ("x", "y"), strong=True, realise=("x",), scalars=False, requires=(("x", "fc"),)
    ),
    "poly": ToInexact(("seq_of_zeros",), strong=True, accepts="biufc"),
    "roots": ToComplex(("p",), strong=True, scalars=False, refuses=_NO_FLOAT),
    # vander raises x to lax.iota(x.dtype) powers: iota refuses bool; power is strong.
    "vander": Keep(("x",), weak=False, accepts="iufc", scalars=False),
    # interp's result has fp's inexact dtype (x and xp are promoted separately).
    "interp": InexactApart(
        ("x", "xp", "fp"), strong=True, accepts="biufc", apart=("fp",), scalars=("xp", "fp")
    ),
    "trapezoid": Choose(
        "x",
        ToInexact(("y", "x?"), strong=True, scalars=False),
        ToInexact(("y",), strong=True, accepts="biufc", after=("py_float",), scalars=False),
    ),
    "gradient": ToInexact(("f",), scalars=False),
    # unwrap promotes with period=2*pi (a Python float) and concatenates with a cumsum.
    "unwrap": Join(("p", "period=py_float"), strong=True, accepts="biuf", scalars=("p",)),
    "sort_complex": ToComplex(("a",), strong=True),
    # corrcoef takes sqrt of the diagonal (refusing what to_inexact keeps integer).
    "corrcoef": ToInexact(("x", "y?"), dtype="dtype", strong=True, dtype_accepts="fc"),
    "cov": ToInexact(("m", "y?"), dtype="dtype", accepts="biufc", strong=True, dtype_accepts="fc"),
    "bincount": Choose(
        "weights", Join(("~x", "weights?")), Fixed("i", ("x",), accepts="biu"), scalars=False
    ),
    "histogram": Outputs((ToInexact(("a",), strong=True), ToInexact(("a",), strong=True))),
    "histogram_bin_edges": ToInexact(("a",), strong=True),
    # histogramdd counts with bincount (the default int) unless weights or density.
    "histogram2d": Outputs(
        (
            Fixed("i", ("x", "y")),
            ToInexact(("x", "y"), strong=True),
            ToInexact(("x", "y"), strong=True),
        )
    ),
    "histogramdd": UnknownDtype("a tuple of the histogram and a list of edge arrays", pending=True),
    "packbits": Fixed("uint8", ("a",), accepts="biu"),
    "unpackbits": Fixed(
        "uint8",
        ("a",),
        accepts="u",
        refuses=frozenset({"uint1", "uint2", "uint4", "uint16", "uint32", "uint64"}),
    ),
    # -- creation --------------------------------------------------------------------------
    "zeros": _ZEROS,
    "ones": _ZEROS,
    "empty": _ZEROS,
    "eye": _ZEROS,
    "identity": _ZEROS,
    "tri": Create("float32"),
    "frombuffer": _ZEROS,
    "fromstring": _ZEROS,
    "zeros_like": _LIKE,
    "ones_like": _LIKE,
    "empty_like": Like(("prototype",)),
    "full_like": Like(("a", "~fill_value")),
    "full": Fill(("fill_value",)),
    "array": Fill(("object",)),
    "asarray": Fill(("a",)),
    "astype": Cast(("a",)),
    # arange builds lax.iota, which refuses bool; complex bounds are refused.
    "arange": Fill(
        ("start", "stop?", "step?"), strong=True, accepts="iuf", requested_accepts="iufc"
    ),
    "linspace": _SPACE,
    "logspace": _SPACE,
    "geomspace": _SPACE,
    "bartlett": _WINDOW,
    "blackman": _WINDOW,
    "hamming": _WINDOW,
    "hanning": _WINDOW,
    "kaiser": _WINDOW,
    # -- the dtype is not a function of the argument dtypes ---------------------------------
    "apply_along_axis": UnknownDtype("whatever func1d returns"),
    "apply_over_axes": UnknownDtype("whatever func returns"),
    "fromfunction": UnknownDtype("whatever function returns (its dtype= is passed to it)"),
    "from_dlpack": UnknownDtype("the dtype of the external (DLPack) array"),
    "load": UnknownDtype("the dtype stored in the file"),
    "fromfile": UnknownDtype("not implemented by JAX (raises NotImplementedError)"),
    "fromiter": UnknownDtype("not implemented by JAX (raises NotImplementedError)"),
    # -- not functions returning arrays ----------------------------------------------------
    **dict.fromkeys(_SCALAR_TYPES, _DTYPE),
    **dict.fromkeys(_CATEGORIES, _CATEGORY),
    **dict.fromkeys(("e", "euler_gamma", "inf", "nan", "pi"), _CONSTANT),
    "dtype": _not("the dtype class"),
    "finfo": _not("machine limits of a float type (a class)"),
    "iinfo": _not("machine limits of an integer type (a class)"),
    "ndarray": _not("the array class (jax.Array)"),
    "ufunc": _not("the ufunc class"),
    "ComplexWarning": _not("a warning class"),
    "promote_types": _not("returns a dtype"),
    "result_type": _not("returns a dtype"),
    "can_cast": _not("returns a Python bool"),
    "isdtype": _not("returns a Python bool"),
    "issubdtype": _not("returns a Python bool"),
    "iscomplexobj": _not("returns a Python bool"),
    "isrealobj": _not("returns a Python bool"),
    "isscalar": _not("returns a Python bool"),
    "iterable": _not("returns a Python bool"),
    "ndim": _not("returns a Python int"),
    "size": _not("returns a Python int"),
    "shape": _not("returns a tuple of ints"),
    "broadcast_shapes": _not("returns a tuple of ints"),
    "einsum_path": _not("returns a contraction path"),
    "array_repr": _not("returns a string"),
    "array_str": _not("returns a string"),
    "get_printoptions": _not("returns a dict"),
    "printoptions": _not("a context manager"),
    "set_printoptions": _not("returns None"),
    "save": _not("writes a file"),
    "savez": _not("writes a file"),
    "vectorize": _not("a function transformation"),
    "frompyfunc": _not("returns a ufunc"),
    "c_": _not("an index-trick object (c_[...] concatenates like concatenate)"),
    "r_": _not("an index-trick object (r_[...] concatenates like concatenate)"),
    "s_": _not("an index-expression helper"),
    "index_exp": _not("an index-expression helper"),
    "mgrid": _not("an index-trick object (mgrid[...]: int or float by the slice values)"),
    "ogrid": _not("an index-trick object (ogrid[...]: int or float by the slice values)"),
    "newaxis": _not("None, for indexing"),
    "linalg": _not("the jax.numpy.linalg module"),
    "fft": _not("the jax.numpy.fft module"),
}
"""``jax.numpy``: every public name, by its name in the module."""

_LINALG_INEXACT: Final = ToInexact(("a",), scalars=False)
_LINALG_REAL: Final = ToReal(("a",), inexact=True, accepts="f", scalars=False)
_LINALG_STRONG: Final = ToInexact(("a",), strong=True, scalars=False)
_NORM: Final = ToReal(("x",), inexact=True, strong=True, scalars=False)

LINALG: Final[Mapping[str, Kind]] = {
    "cholesky": _LINALG_INEXACT,
    "inv": _LINALG_STRONG,
    "pinv": _LINALG_STRONG,
    "matrix_power": Keep(("a",)),
    "det": ToInexact(("a",), accepts="biufc", scalars=False),
    "slogdet": Outputs((_LINALG_INEXACT, _LINALG_REAL), unknown_for=frozenset({"int1"})),
    "eig": Outputs((ToComplex(("a",), refuses=_NO_FLOAT), ToComplex(("a",), refuses=_NO_FLOAT))),
    "eigvals": ToComplex(("a",), scalars=False, refuses=_NO_FLOAT),
    "eigh": Outputs((_LINALG_REAL, _LINALG_INEXACT)),
    "eigvalsh": _LINALG_REAL,
    "svd": Flag(
        "compute_uv",
        True,
        ((True, Outputs((_LINALG_INEXACT, _LINALG_REAL, _LINALG_INEXACT))), (False, _LINALG_REAL)),
    ),
    "svdvals": ToReal(("x",), inexact=True, accepts="f", scalars=False),
    # mode="raw" gives (h, tau), both of the inexact dtype, as "reduced" and "complete" do
    "qr": Flag(
        "mode",
        "reduced",
        (
            *(
                (m, Outputs((_LINALG_INEXACT, _LINALG_INEXACT)))
                for m in ("reduced", "complete", "raw")
            ),
            ("r", _LINALG_INEXACT),
        ),
    ),
    "solve": ToInexact(("a", "b"), scalars=False),
    "lstsq": Outputs(
        (
            ToInexact(("a", "b"), strong=True),
            ToReal(("a", "b"), inexact=True, strong=True),
            Fixed("i", ("a", "b")),
            ToReal(("a", "b"), inexact=True),
        ),
        scalars=False,
    ),
    "tensorinv": _LINALG_STRONG,
    "tensorsolve": ToInexact(("a", "b"), scalars=False),
    "norm": _NORM,
    "matrix_norm": _NORM,
    # vector_norm computes integers in the default float
    "vector_norm": ToReal(("x",), inexact=True, ints=True, strong=True, scalars=False),
    "cond": ToReal(("x",), inexact=True, accepts="f", scalars=False),
    "matrix_rank": Fixed("i", ("M",), scalars=False, refuses=_NO_FLOAT),
    "multi_dot": Join(("arrays[]",), scalars=False),
    "matmul": Join(("x1", "x2"), dtype="preferred_element_type", scalars=False),
    "tensordot": Join(("x1", "x2"), dtype="preferred_element_type", scalars=False),
    "vecdot": Join(("x1", "x2"), dtype="preferred_element_type", scalars=False),
    "outer": Join(("x1", "x2"), scalars=False),
    "cross": Join(("x1", "x2"), accepts="iufc", strong=True, scalars=False),
    "diagonal": Keep(("x",), weak=False, scalars=False),
    "trace": Reduce(("x",), convert="numeric", widen="always", scalars=False),
    "matrix_transpose": Keep(("x",), scalars=False),
}
"""``jax.numpy.linalg``."""

# lax.fft converts the input (convert_element_type: strong) to to_complex_dtype, or
# for a real transform to to_inexact_dtype, which must then be float32 or float64.
_FFT: Final = ToComplex(("a",), strong=True)
_RFFT: Final = ToComplex(
    ("a",),
    strong=True,
    refuses=frozenset(
        {
            *_NARROW_FLOATS,
            *_NO_FLOAT,
            "float16",
            "bfloat16",
            "complex64",
            "complex128",
            "weak_complex",
        }
    ),
)
_IRFFT: Final = ToReal(("a",), via_complex=True, strong=True)

FFT: Final[Mapping[str, Kind]] = {
    **dict.fromkeys(("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn"), _FFT),
    **dict.fromkeys(("rfft", "rfft2", "rfftn", "ihfft"), _RFFT),
    **dict.fromkeys(("irfft", "irfft2", "irfftn", "hfft"), _IRFFT),
    "fftfreq": Create("f", refuses=_NO_FLOAT),
    # rfftfreq divides integer frequencies: an integer dtype gives its inexact dtype
    "rfftfreq": Create("f", accepts="iufc", ints="inexact", refuses=_NO_FLOAT),
    "fftshift": Keep(("x",)),
    "ifftshift": Keep(("x",)),
}
"""``jax.numpy.fft``."""


NAMESPACES: Final = (
    Namespace("jax.numpy.", NUMPY, "JAX", JAX_RULES, aliases=("jnp.", "")),
    Namespace("jax.numpy.linalg.", LINALG, "JAX", JAX_RULES, aliases=("jnp.linalg.", "linalg.")),
    Namespace("jax.numpy.fft.", FFT, "JAX", JAX_RULES, aliases=("jnp.fft.", "fft.")),
)
"""The namespaces this module holds (``typing_pkg.api`` finds them)."""
