"""Kinds that join their operands' dtypes: the operators, ``Join`` and its variants."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from typing_pkg.api.kinds.base import (
    Call,
    DtypeOption,
    Env,
    Kind,
    Listed,
    Outcome,
    Result,
    accept,
    dtype_option,
    fits,
    short,
    to_complex,
    to_inexact,
    unless_requested,
)
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules.base import PY_SCALARS, REAL_OF_COMPLEX, Undefined
from typing_pkg.rules.jax import TO_NUMERIC


@dataclass(frozen=True, eq=False, repr=False)
class Operator(Listed, DtypeOption, Kind):
    """Exactly a Python operator (``jnp.add`` is ``+``): the rule set's operator result."""

    kind: ClassVar[str] = "operator"
    summary: ClassVar[str] = "the result of the Python operator the function implements"
    op: str = "add"
    specs: tuple[str, ...] = ("x", "y")
    dtype: str | None = None
    """An option that sets the result dtype (``matmul``'s ``preferred_element_type``)."""

    def compute(self, call: Call, env: Env) -> Result:
        """Ask the rule set for the operator's result (Python scalars passed as they are)."""
        return unless_requested(self._operator(call, env), call, self.dtype, env, self.refuses)

    def _operator(self, call: Call, env: Env) -> Outcome:
        operands: list[str] = []
        for t in self.operands(call):
            if t in PY_SCALARS:
                operands.append(t)
                continue
            found = env.operand(t)
            if isinstance(found, Undefined):
                return found
            operands.append(found)
        return env.rules.result(self.op, *operands)


@dataclass(frozen=True, eq=False, repr=False)
class Join(Listed, DtypeOption, Kind):
    """The join of the array arguments (weak when all are weak), then a dtype check."""

    kind: ClassVar[str] = "join"
    summary: ClassVar[str] = "the promotion of the array arguments"
    joins_operands: ClassVar[bool] = True
    specs: tuple[str, ...] = ("x",)
    accepts: str = "biufc"
    """The kinds of dtypes (``b i u f c``) the function accepts after conversion."""
    strong: bool = False
    """Realise a weak result (``dtypes.result_type`` instead of ``lattice_result_type``)."""
    dtype: str | None = None
    """An option that sets the result dtype (``concatenate``'s ``dtype``, ``dot``'s
    ``preferred_element_type``)."""
    after: tuple[str, ...] = ()
    """Operands the implementation joins with the converted result (``var`` divides by a
    Python float: the narrow types that do not promote with one are refused)."""
    strong_kinds: str = ""
    """Kinds of results the implementation realises (``logaddexp``: complex ones)."""
    python_weak: bool = False
    """A Python scalar first operand keeps the weak type the realisation would drop
    (``_lax_const`` makes Python constants for it, NumPy ones for an array)."""
    weak_scalars: tuple[str, ...] = ()
    """Parameters of which one Python scalar keeps the weak type the realisation would
    drop (``stats.multivariate_normal``: a 0-d ``mean`` or ``cov`` takes a path that
    realises nothing)."""
    computes_in: frozenset[str] = frozenset()
    """The only dtypes the implementation computes in, if not all: a converted join of
    another dtype is refused (``stats.norm.cdf`` calls ``special.ndtr``: float32 and
    float64; unlike ``refuses``, a ``bfloat16`` argument joined with a ``float32`` one
    is accepted)."""
    dtype_accepts: str = "biufc"
    """The kinds of dtypes the ``dtype`` option may ask for (``cov``: inexact ones)."""
    results: tuple[tuple[str, str], ...] = ()
    """Dtypes the implementation computes in instead (``fabs`` of int1: int8)."""
    check: tuple[str, ...] = ()
    """Further array parameters that must promote with the others (``x.at[i].divide(y)``)."""
    mixes: str = ""
    """The implementation combines two things that must promote: the input and the
    converted result, the input ``"input"`` as given (``nn.standardize``) or
    ``"realised"`` (``nn.log_softmax`` subtracts a float from the input's maximum, a
    strongly typed array); or ``"real"``, the converted result and its real part
    (``nn.soft_sign`` divides by ``abs(x) + 1``)."""

    def convert(self, t: str, env: Env) -> str:
        """Convert the join (the identity here; subclasses make it inexact, numeric, …)."""
        return t

    def checks(self) -> frozenset[str]:
        """The ``check`` parameters and those of ``requires``."""
        return super().checks() | frozenset(self.check)

    def _to_join(self, call: Call, env: Env) -> list[str] | Undefined:
        """The operands to join (the call's here; ``RealiseFirst`` realises some first)."""
        return self.operands(call)

    def _requested(self, requested: str, joined: str, call: Call, env: Env) -> Outcome:
        """The result for a dtype request, of the accepted kinds (the request itself here;
        ``Convolution`` checks it against the join)."""
        return requested

    def _of_python_scalars(self, converted: str, operands: list[str], env: Env) -> str:
        """The result when every operand is a Python scalar (the converted join here;
        ``Angle`` realises a Python float's)."""
        return converted

    def _mixed(self, unrealised: str, converted: str, env: Env) -> list[str]:
        """The two dtypes ``mixes`` combines."""
        if self.mixes == "real":
            return [converted, REAL_OF_COMPLEX.get(converted, converted)]
        base = unrealised if self.mixes == "input" else env.strong(unrealised)
        return [base, env.canonical(self.convert(unrealised, env))]

    def compute(self, call: Call, env: Env) -> Result:
        """Join, convert, check."""
        operands = self._to_join(call, env)
        if isinstance(operands, Undefined):
            return operands
        joined = env.join(operands)
        if isinstance(joined, Undefined):
            return joined
        if self.check:
            checked_join = env.join([joined, *call.operands(self.check)])
            if isinstance(checked_join, Undefined):
                return checked_join
        requested = dtype_option(call, self.dtype, env, self.refuses)
        if requested is not None:
            if isinstance(requested, Undefined):
                return requested
            checked_request = accept(call.function, requested, self.dtype_accepts)
            if isinstance(checked_request, Undefined):
                return checked_request
            return self._requested(requested, joined, call, env)
        python = bool(operands) and all(t in PY_SCALARS for t in operands)
        keep_weak = self._keeps_weak(call, operands)
        unrealised = joined
        if self.strong and not keep_weak:
            joined = env.strong(joined)
        converted = env.canonical(self.convert(joined, env))
        if self.mixes:
            mixed = env.join(self._mixed(unrealised, converted, env))
            if isinstance(mixed, Undefined):
                return mixed
        if self.after:
            combined = env.join([converted, *self.after])
            if isinstance(combined, Undefined):
                return combined
            converted = env.strong(combined) if self.strong and not keep_weak else combined
        if BY_NAME[converted].kind in self.strong_kinds and not keep_weak:
            converted = env.strong(converted)
        if python:
            converted = self._of_python_scalars(converted, operands, env)
        converted = dict(self.results).get(converted, converted)
        if self.computes_in and env.strong(converted) not in self.computes_in:
            return Undefined(f"{short(call.function)} does not accept dtype {converted}")
        return accept(call.function, converted, self.accepts)

    def _keeps_weak(self, call: Call, operands: list[str]) -> bool:
        """Whether a Python scalar argument keeps the weak type (``python_weak``,
        ``weak_scalars``)."""
        if self.python_weak and bool(operands) and operands[0] in PY_SCALARS:
            return True
        return any(t in PY_SCALARS for t in call.operands(self.weak_scalars))


@dataclass(frozen=True, eq=False, repr=False)
class ToInexact(Join):
    """The join made inexact (``promote_args_inexact``): integers and bools → float."""

    kind: ClassVar[str] = "to-inexact"
    summary: ClassVar[str] = (
        "the promotion made inexact: bool and integers of up to 32 bits → float32, "
        "64-bit integers → float64 (canonicalised), a weak int → a weak float"
    )
    accepts: str = "fc"

    def convert(self, t: str, env: Env) -> str:
        """JAX's ``to_inexact_dtype``."""
        return to_inexact(t)


@dataclass(frozen=True, eq=False, repr=False)
class InexactApart(ToInexact):
    """Two groups of parameters each promoted and made inexact on its own, the two results
    joined after (``interp``: ``x`` and ``xp`` together, ``fp`` alone)."""

    apart: tuple[str, ...] = ()
    """The second group; the first is the other parameters not ignored."""

    def compute(self, call: Call, env: Env) -> Result:
        """Convert the joins of the two groups, then join the results."""
        apart = set(self.apart)
        groups = [
            [n for n in (p.name for p in self.params if not p.ignored) if n not in apart],
            list(self.apart),
        ]
        converted: list[str] = []
        for names in groups:
            operands = call.operands(tuple(names))
            if not operands:
                continue
            joined = env.join(operands)
            if isinstance(joined, Undefined):
                return joined
            converted.append(env.canonical(self.convert(joined, env)))
        result = env.join(converted)
        if isinstance(result, Undefined):
            return result
        result = env.strong(result) if self.strong else result
        return accept(call.function, result, self.accepts)


@dataclass(frozen=True, eq=False, repr=False)
class RealiseFirst(ToInexact):
    """The join made inexact, some parameters realised before the join (``polyfit`` takes
    ``finfo(x.dtype)`` first: a Python scalar ``x`` is its default dtype)."""

    realise: tuple[str, ...] = ()
    """The parameters realised."""

    def _to_join(self, call: Call, env: Env) -> list[str] | Undefined:
        """The operands, those of ``realise`` strongly typed."""
        operands = self.operands(call)
        for t in call.operands(self.realise):
            found = env.operand(t)
            if isinstance(found, Undefined):
                return found
            operands = [env.strong(found) if o == t else o for o in operands]
        return operands


@dataclass(frozen=True, eq=False, repr=False)
class Convolution(ToInexact):
    """The join made inexact, or the ``dtype`` option (``preferred_element_type``) if it
    fits the promotion as XLA's convolution wants (``convolve``, ``correlate``): integers
    of the same signedness or floats for integers, floats not narrower for floats."""

    def _requested(self, requested: str, joined: str, call: Call, env: Env) -> Outcome:
        """The request if it fits; the join itself if it is the join's own dtype."""
        if not fits(env.strong(joined), requested):
            return Undefined(
                f"{short(call.function)}: {self.dtype}={requested} does not fit {joined}"
            )
        if requested == env.strong(joined):
            return joined  # the weak inputs' own dtype: no conversion, still weak
        return requested


@dataclass(frozen=True, eq=False, repr=False)
class RequestJoined(ToInexact):
    """The join made inexact, promoted with the ``dtype`` option's dtype when one is given
    (``random.multivariate_normal`` adds ``mean`` to samples drawn in ``dtype``)."""

    def _requested(self, requested: str, joined: str, call: Call, env: Env) -> Outcome:
        """The request promoted with the converted join (a weak one stays weak: a Python
        float ``mean`` takes the request's dtype; a complex one makes it complex)."""
        return env.join([env.canonical(self.convert(joined, env)), requested])


@dataclass(frozen=True, eq=False, repr=False)
class ToNumeric(Join):
    """The join made numeric (``promote_args_numeric``): bool → int32."""

    kind: ClassVar[str] = "to-numeric"
    summary: ClassVar[str] = "the promotion made numeric: bool → int32"

    def convert(self, t: str, env: Env) -> str:
        """JAX's ``to_numeric_dtype``."""
        return TO_NUMERIC.get(t, t)


@dataclass(frozen=True, eq=False, repr=False)
class ToComplex(Join):
    """The join made complex (``promote_args_complex``)."""

    kind: ClassVar[str] = "to-complex"
    summary: ClassVar[str] = "the promotion made complex: complex128 from 64-bit types"
    accepts: str = "c"

    def convert(self, t: str, env: Env) -> str:
        """JAX's ``to_complex_dtype``."""
        return to_complex(t, env)


@dataclass(frozen=True, eq=False, repr=False)
class ToReal(Join):
    """The real counterpart of the join (``real``, ``abs`` of complex, ``angle``)."""

    kind: ClassVar[str] = "to-real"
    summary: ClassVar[str] = "the real counterpart of the promotion (complex64 → float32)"
    inexact: bool = False
    """Make the join inexact first (``angle``: integers give floats)."""
    via_complex: bool = False
    """Make the join complex first (``fft.irfft``: float16 gives float32)."""
    ints: bool = False
    """Bools and integers give JAX's default float (``angle``)."""

    def convert(self, t: str, env: Env) -> str:
        """Make inexact (or complex) if asked, then take the real type."""
        if self.ints and BY_NAME[t].kind in "biu":
            return env.default["f"]
        if self.via_complex:
            t = to_complex(t, env)
        elif self.inexact:
            t = to_inexact(t)
        return REAL_OF_COMPLEX.get(t, t)


@dataclass(frozen=True, eq=False, repr=False)
class Angle(ToReal):
    """``angle``'s real type: a Python float (0-d) gives JAX's default float, strongly typed,
    as bools and integers do (``ints``)."""

    def _of_python_scalars(self, converted: str, operands: list[str], env: Env) -> str:
        """Realised for Python floats."""
        return env.strong(converted) if all(t == "py_float" for t in operands) else converted


@dataclass(frozen=True, eq=False, repr=False)
class Predicate(Join):
    """``bool_``, once the arguments promote (``isnan``, ``logical_and``, ``isclose``)."""

    kind: ClassVar[str] = "predicate"
    summary: ClassVar[str] = "bool_ (the arguments must promote)"

    def convert(self, t: str, env: Env) -> str:
        """Every accepted dtype gives a bool."""
        return t

    def compute(self, call: Call, env: Env) -> Result:
        """Check the join and its kind, then give ``bool_``."""
        checked = super().compute(call, env)
        return checked if isinstance(checked, Undefined) else "bool_"
