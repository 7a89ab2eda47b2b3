"""Kinds of one dtype source: fixed, kept, reduced, created, filled, like an array, cast."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from typing_pkg.api.kinds.base import (
    DEFAULT_NAMES,
    NUMPY_DEFAULTS,
    Call,
    DtypeParam,
    Env,
    Kind,
    Listed,
    Outcome,
    Result,
    Unknown,
    accept,
    default_dtype,
    dtype_option,
    short,
    to_inexact,
)
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules.base import PY_SCALARS, REAL_OF_COMPLEX, Undefined
from typing_pkg.rules.jax import TO_NUMERIC


@dataclass(frozen=True, eq=False, repr=False)
class Fixed(Listed, Kind):
    """A fixed dtype whatever the arguments: ``"int"`` is the default int (indices)."""

    kind: ClassVar[str] = "fixed"
    summary: ClassVar[str] = (
        "a fixed dtype: the default int for indices (argmax, argsort, nonzero), "
        "or a named one (bitwise_count: uint8)"
    )
    dtype: str = "int"
    """A marker name, or a kind letter ``b i u f c`` for JAX's default dtype of that kind."""
    specs: tuple[str, ...] = ("a",)
    accepts: str = "biufc"
    promotes: bool = True
    """Whether the arguments must promote (``lexsort`` sorts keys of any dtypes)."""
    weak: bool = False
    """Weakly typed when the arguments are (``lax.top_k``'s indices)."""

    def compute(self, call: Call, env: Env) -> Result:
        """Check the arguments, then give the fixed dtype."""
        operands = self.operands(call)
        groups = [operands] if self.promotes else [[t] for t in operands]
        for group in groups if operands else []:
            joined = env.join(group)
            if isinstance(joined, Undefined):
                return joined
            checked = accept(call.function, joined, self.accepts)
            if isinstance(checked, Undefined):
                return checked
        found = default_dtype(self.dtype, env)
        if isinstance(found, Undefined):
            return found
        markers = [env.operand(t) for t in operands]
        if self.weak and operands and all(isinstance(t, str) and BY_NAME[t].weak for t in markers):
            weak_of = {v: k for k, v in env.weak.items()}
            if found not in weak_of:
                return Unknown(f"a weakly typed {found}, which no marker names")
            return weak_of[found]
        return found

    def describe(self) -> str:
        """Name the dtype too."""
        shown = DEFAULT_NAMES.get(self.dtype, self.dtype)
        return f"fixed {shown}({', '.join(self.specs)})"


@dataclass(frozen=True, eq=False, repr=False)
class Keep(Listed, Kind):
    """The input's dtype (``reshape``, ``sort``, ``round``, ``relu``)."""

    kind: ClassVar[str] = "keep"
    summary: ClassVar[str] = "the input's dtype (weak kept unless the function realises it)"
    specs: tuple[str, ...] = ("a",)
    weak: bool = True
    """Whether a weakly typed input gives a weakly typed result."""
    accepts: str = "biufc"
    each: bool = False
    """Several inputs give one array each, of its own dtype (``atleast_1d(x, y)``)."""
    ints: str | None = None
    """What bool and integer inputs give instead (``rint``: ``"f"``, the default float)."""
    check: tuple[str, ...] = ()
    """Further array parameters that must promote with the input (``setdiff1d``'s ``ar2``)."""
    strong_kinds: str = ""
    """Kinds of inputs the implementation realises (``nan_to_num``: inexact ones)."""
    python: str = "keep"
    """What a Python scalar gives: ``"keep"`` (its weak type), ``"int"`` (an int or bool
    is a count: the default int, as ``random.choice(key, 5)`` draws from ``arange(5)``;
    other scalars are refused) or ``"int-only"`` (the same, a bool refused too)."""

    def checks(self) -> frozenset[str]:
        """The ``check`` parameters and those of ``requires``."""
        return super().checks() | frozenset(self.check)

    def compute(self, call: Call, env: Env) -> Result:
        """The input, realised when the function drops the weak type."""
        operands = self.operands(call)
        if self.each and len(operands) > 1:
            found: list[Outcome] = []
            for t in operands:
                single = self._keep([t], call, env)
                if isinstance(single, Undefined):
                    return single
                found.append(single)
            return tuple(found)
        return self._keep(operands, call, env)

    def _keep(self, operands: list[str], call: Call, env: Env) -> Outcome:
        if self.python != "keep" and operands and all(t in PY_SCALARS for t in operands):
            counts = {
                "count": ("py_bool", "py_int", "py_float"),
                "int": ("py_int", "py_bool"),
            }.get(self.python, ("py_int",))
            if all(t in counts for t in operands):
                return env.default["i"]
            return Undefined(f"{short(call.function)} takes an integer or an array")
        joined = env.join(operands)
        if isinstance(joined, Undefined):
            return joined
        if self.check:
            checked_join = env.join([joined, *call.operands(self.check)])
            if isinstance(checked_join, Undefined):
                return checked_join
        checked = accept(call.function, joined, self.accepts)
        if isinstance(checked, Undefined):
            return checked
        if self.ints is not None and BY_NAME[checked].kind in "biu":
            return env.default[self.ints]
        if not self.weak or BY_NAME[checked].kind in self.strong_kinds:
            return env.strong(checked)
        return checked


_CONVERSIONS: Final = ("same", "numeric", "inexact", "bool", "real")


@dataclass(frozen=True, eq=False, repr=False)
class Reduce(Listed, Kind):
    """A reduction's result dtype: JAX's ``_reduction`` and ``_cumulative_reduction``.

    Without ``dtype=``: the input (realised: reductions are strongly typed)
    converted by ``convert`` (``numeric``: bool → int32; ``inexact``;
    ``bool``; ``real``: inexact then the real type, as ``var``), then, when
    ``widen`` holds (``promote_integers=True``, the default of ``sum`` and
    ``prod``; ``always`` for a cumulative sum of bools), integers narrower
    than the default int widened to it (unsigned ones to the default uint).
    With ``dtype=``: the requested dtype.
    """

    kind: ClassVar[str] = "reduce"
    summary: ClassVar[str] = (
        "a reduction: the input converted (numeric, inexact, bool or real) and, "
        "for sum/prod, small integers widened to the default int; dtype= wins"
    )
    specs: tuple[str, ...] = ("a",)
    convert: str = "same"
    widen: str | None = None
    """``None``: no widening; ``"promote_integers"``: the option of that name (default
    true); ``"always"``; ``"bool"``: only booleans (cumsum)."""
    dtype: str | None = "dtype"
    """The name of the ``dtype`` parameter (``None``: the function has none)."""
    accepts: str = "biufc"
    requested_accepts: str = "biufc"
    """The kinds of dtypes ``dtype=`` may ask for (std: inexact only)."""
    after: tuple[str, ...] = ()
    """Operands the implementation joins with the result dtype (``var``: a Python float)."""
    after_result: bool = True
    """Whether that join is the result (``var``), or only checked (``nanvar`` converts back)."""

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.convert not in _CONVERSIONS:
            raise ValueError(f"unknown conversion {self.convert!r}")

    @property
    def options(self) -> tuple[str, ...]:
        """``dtype`` and ``promote_integers`` where the function has them."""
        names = [self.dtype] if self.dtype else []
        if self.widen == "promote_integers":
            names.append("promote_integers")
        return tuple(names)

    def _widened(self, t: str, env: Env) -> str:
        marker = BY_NAME[t]
        if marker.kind == "b":
            return env.default["i"]
        if marker.kind in "iu":
            wide = BY_NAME[env.default[marker.kind]]
            if (marker.bits or 0) < (wide.bits or 0):
                return wide.name
        return t

    def compute(self, call: Call, env: Env) -> Result:
        """Apply the conversion and widening, or the requested dtype."""
        joined = env.join(self.operands(call))
        if isinstance(joined, Undefined):
            return joined
        checked = accept(call.function, joined, self.accepts)
        if isinstance(checked, Undefined):
            return checked
        requested = dtype_option(call, self.dtype, env, self.refuses)
        t = env.strong(joined)
        if requested is not None:
            if isinstance(requested, Undefined):
                return requested
            if self.convert == "real" and BY_NAME[t].kind == "c" and BY_NAME[requested].kind != "c":
                return Undefined(f"{short(call.function)} of complex values needs a complex dtype")
            checked = accept(call.function, requested, self.requested_accepts)
            if self.after and isinstance(checked, str):
                combined = env.join([checked, *self.after])  # var divides by a Python float
                if isinstance(combined, Undefined) or self.after_result:
                    return combined
            return checked
        if self.convert == "numeric":
            t = TO_NUMERIC.get(t, t)
        elif self.convert == "inexact":
            t = env.canonical(to_inexact(t))
        elif self.convert == "real":
            t = env.canonical(REAL_OF_COMPLEX.get(to_inexact(t), to_inexact(t)))
        elif self.convert == "bool":
            t = "bool_"
        widen = self.widen == "always" or (
            self.widen == "promote_integers" and call.options.get("promote_integers", True)
        )
        if widen or (self.widen == "bool" and t == "bool_"):
            t = self._widened(t, env)
        if self.after:
            combined = env.join([t, *self.after])
            if isinstance(combined, Undefined) or self.after_result:
                return combined
        return t


@dataclass(frozen=True, eq=False, repr=False)
class Create(Listed, DtypeParam, Kind):
    """A new array of the ``dtype`` argument, else of JAX's default dtype of a kind."""

    kind: ClassVar[str] = "create"
    summary: ClassVar[str] = (
        "the dtype= argument, else the default dtype of a kind (zeros, ones, eye: float)"
    )
    default: str = "f"
    """The default dtype: a kind letter (``f``: JAX's default float) or a marker name."""
    dtype: str = "dtype"
    accepts: str = "biufc"
    specs: tuple[str, ...] = ()
    """Array parameters whose dtype does not matter (``nn.one_hot``'s ``~x``)."""
    ints: str | None = None
    """What an integer request gives instead: a dtype, a kind letter, or ``"inexact"``
    (``fft.rfftfreq`` divides: ``to_inexact_dtype`` of the request)."""

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, or the default."""
        requested = dtype_option(call, self.dtype, env, self.refuses)
        if requested is None:
            return default_dtype(self.default, env)
        if isinstance(requested, Undefined):
            return requested
        checked = accept(call.function, requested, self.accepts)
        if self.ints is not None and isinstance(checked, str) and BY_NAME[checked].kind in "iu":
            if self.ints == "inexact":
                return env.canonical(to_inexact(checked))
            return default_dtype(self.ints, env)
        return checked

    def describe(self) -> str:
        """Name the default."""
        return f"create({self.dtype}=, default {DEFAULT_NAMES.get(self.default, self.default)})"


@dataclass(frozen=True, eq=False, repr=False)
class Fill(Listed, DtypeParam, Kind):
    """The dtype of a value argument, unless ``dtype=`` (``full``, ``array``, ``asarray``).

    A Python scalar or weakly typed value gives a weakly typed array; a
    sequence of values gives the (realised) join of its elements; with
    ``dtype=`` the requested dtype.
    """

    kind: ClassVar[str] = "fill"
    takes_values: ClassVar[bool] = True
    summary: ClassVar[str] = (
        "the value's dtype (weak for a Python scalar, realised for a list), or dtype="
    )
    specs: tuple[str, ...] = ("fill_value",)
    dtype: str = "dtype"
    inexact: bool = False
    """Make the value's dtype inexact (``linspace``)."""
    strong: bool = False
    """Realise the value's dtype (``arange``, ``linspace``: ``dtypes.result_type``)."""
    accepts: str = "biufc"
    requested_accepts: str = "biufc"

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, or the value's."""
        requested = dtype_option(call, self.dtype, env, self.refuses)
        operands = self.operands(call)
        if requested is not None:
            if isinstance(requested, Undefined):
                return requested
            for t in operands:  # the values are checked all the same (arange: no complex)
                found = env.operand(t)
                if isinstance(found, Undefined):
                    return found
                if BY_NAME[found].kind not in self.accepts and BY_NAME[found].kind != "b":
                    return Undefined(f"{short(call.function)} does not accept {found}")
            return accept(call.function, requested, self.requested_accepts)
        if not operands and any(call.args.get(p.name) == () for p in self.params):
            return env.canonical("float64")  # an empty list: NumPy's float64, canonicalised
        joined = env.join(operands)
        if isinstance(joined, Undefined):
            return joined
        if self.strong or any(isinstance(call.args.get(p.name), tuple) for p in self.params):
            joined = env.strong(joined)  # a list is not weakly typed
        found = env.canonical(to_inexact(joined)) if self.inexact else joined
        return accept(call.function, found, self.accepts)


@dataclass(frozen=True, eq=False, repr=False)
class Like(Listed, DtypeParam, Kind):
    """The prototype's dtype (weak kept), unless ``dtype=`` (``zeros_like``, ``full_like``)."""

    kind: ClassVar[str] = "like"
    summary: ClassVar[str] = "the prototype's dtype (weak kept), unless dtype="
    specs: tuple[str, ...] = ("a",)
    dtype: str = "dtype"

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, or the prototype's."""
        requested = dtype_option(call, self.dtype, env, self.refuses)
        if requested is not None:
            return requested
        return env.join(self.operands(call)[:1])


@dataclass(frozen=True, eq=False, repr=False)
class Cast(Listed, DtypeParam, Kind):
    """An explicit cast: the requested dtype, strongly typed (``astype``)."""

    kind: ClassVar[str] = "cast"
    summary: ClassVar[str] = "the requested dtype (astype, convert_element_type)"
    specs: tuple[str, ...] = ("x",)
    dtype: str = "dtype"
    keep_weak: bool = False
    """Without a dtype (``astype(x, None)``): keep the input, weak or not."""
    accepts: str = "biufc"
    """The kinds of dtypes the cast may ask for (``lax.argmax``'s ``index_dtype``: integers)."""
    canonicalise: bool = True
    """Whether a 64-bit request is canonicalised with x64 off (``lax.empty`` does not)."""
    bitcast: bool = False
    """``lax.bitcast_convert_type``: a bool or complex operand only to its own dtype."""
    same_keeps: bool = False
    """A request of the input's own dtype returns the input (``Array.view``: weak kept)."""

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype; without one, the input's."""
        operands = self.operands(call)
        joined = env.join(operands) if operands else None
        if isinstance(joined, Undefined):
            return joined
        raw = call.options.get(self.dtype)
        if not self.canonicalise and isinstance(raw, str):
            # passed to NumPy as it is (lax.empty): a Python type is NumPy's 64-bit default
            return NUMPY_DEFAULTS.get(raw, raw)
        requested = dtype_option(call, self.dtype, env, self.refuses)
        if requested is None:
            if joined is None:
                return Undefined(f"{short(call.function)} needs a dtype")
            return joined if self.keep_weak else env.strong(joined)
        if isinstance(requested, Undefined):
            return requested
        if self.same_keeps and joined is not None and requested == env.strong(joined):
            return joined  # x.view(x.dtype) is x itself
        if self.bitcast and joined is not None:
            source = env.strong(joined)
            kinds = BY_NAME[source].kind + BY_NAME[requested].kind
            if source != requested and ("b" in kinds or "c" in kinds):
                return Undefined(f"bitcast_convert_type of {source} to {requested}")
        return accept(call.function, requested, self.accepts)
