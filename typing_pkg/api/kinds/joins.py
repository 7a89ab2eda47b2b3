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
    params: tuple[str, ...] = ("x", "y")
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
    params: tuple[str, ...] = ("x",)
    accepts: str = "biufc"
    """The kinds of dtypes (``b i u f c``) the function accepts after conversion."""
    strong: bool = False
    """Realise a weak result (``dtypes.result_type`` instead of ``lattice_result_type``)."""
    dtype: str | None = None
    """An option that sets the result dtype (``concatenate``'s ``dtype``, ``dot``'s
    ``preferred_element_type``)."""
    requires: tuple[tuple[str, str], ...] = ()
    """Parameters (not joined) whose dtype must be of some kinds (``ldexp``: ``x2`` integer)."""
    after: tuple[str, ...] = ()
    """Operands the implementation joins with the converted result (``var`` divides by a
    Python float: the narrow types that do not promote with one are refused)."""
    strong_kinds: str = ""
    """Kinds of results the implementation realises (``logaddexp``: complex ones)."""
    python_strong: tuple[str, ...] = ()
    """Python scalar kinds (0-d) that give JAX's default dtype (``angle``: ``py_float``)."""
    python_weak: bool = False
    """A Python scalar first operand keeps the weak type the realisation would drop
    (``_lax_const`` makes Python constants for it, NumPy ones for an array)."""
    realise: tuple[str, ...] = ()
    """Parameters realised before the join (``polyfit`` takes ``finfo(x.dtype)``)."""
    separately: tuple[str, ...] = ()
    """Parameters promoted and converted on their own, the two results joined after
    (``interp``: ``x`` and ``xp`` together, ``fp`` alone)."""
    mixes_real: bool = False
    """The implementation combines the input with its real part (``nn.soft_sign``)."""
    dtype_accepts: str = "biufc"
    """The kinds of dtypes the ``dtype`` option may ask for (``cov``: inexact ones)."""
    results: tuple[tuple[str, str], ...] = ()
    """Dtypes the implementation computes in instead (``fabs`` of int1: int8)."""
    same_kind: bool = False
    """The ``dtype`` option must fit the promotion as XLA's convolution wants (``convolve``'s
    ``preferred_element_type``: integers of the same signedness or floats for integers,
    floats not narrower for floats)."""
    check: tuple[str, ...] = ()
    """Further array parameters that must promote with the others (``x.at[i].divide(y)``)."""
    mixes: str = ""
    """The implementation combines the input with the converted result, and they must
    promote: ``"input"`` as given (``nn.standardize``), ``"realised"`` (``nn.log_softmax``
    subtracts a float from the input's maximum, a strongly typed array)."""

    def convert(self, t: str, env: Env) -> str:
        """Convert the join (the identity here; subclasses make it inexact, numeric, …)."""
        return t

    def _separately(self, call: Call, env: Env) -> Result:
        """Convert the joins of the two groups of parameters, then join the results."""
        apart = set(self.separately)
        groups = [
            [n for n in (p.name for p in self.parameters if not p.ignored) if n not in apart],
            list(self.separately),
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

    def compute(self, call: Call, env: Env) -> Result:
        """Join, realise if asked, convert, check."""
        if self.separately:
            return self._separately(call, env)
        operands = self.operands(call)
        for t in call.operands(self.realise):
            found = env.operand(t)
            if isinstance(found, Undefined):
                return found
            operands = [env.strong(found) if o == t else o for o in operands]
        joined = env.join(operands)
        if isinstance(joined, Undefined):
            return joined
        if self.check:
            checked_join = env.join([joined, *call.operands(self.check)])
            if isinstance(checked_join, Undefined):
                return checked_join
        for name, kinds in self.requires:
            for t in call.operands((name,)):
                found = env.operand(t)
                if isinstance(found, Undefined):
                    return found
                checked = accept(call.function, found, kinds)
                if isinstance(checked, Undefined):
                    return checked
        requested = dtype_option(call, self.dtype, env, self.refuses)
        if requested is not None:
            if isinstance(requested, Undefined):
                return requested
            checked_request = accept(call.function, requested, self.dtype_accepts)
            if isinstance(checked_request, Undefined):
                return checked_request
            if self.same_kind and not fits(env.strong(joined), requested):
                return Undefined(
                    f"{short(call.function)}: {self.dtype}={requested} does not fit {joined}"
                )
            if self.same_kind and requested == env.strong(joined):
                return joined  # the weak inputs' own dtype: no conversion, still weak
            return requested
        python = bool(operands) and all(t in PY_SCALARS for t in operands)
        keep_weak = self.python_weak and bool(operands) and operands[0] in PY_SCALARS
        unrealised = joined
        if self.strong and not keep_weak:
            joined = env.strong(joined)
        converted = env.canonical(self.convert(joined, env))
        if self.mixes:
            base = unrealised if self.mixes == "input" else env.strong(unrealised)
            mixed = env.join([base, env.canonical(self.convert(unrealised, env))])
            if isinstance(mixed, Undefined):
                return mixed
        if self.mixes_real:
            real = REAL_OF_COMPLEX.get(converted, converted)
            mixed = env.join([converted, real])
            if isinstance(mixed, Undefined):
                return mixed
        if self.after:
            combined = env.join([converted, *self.after])
            if isinstance(combined, Undefined):
                return combined
            converted = env.strong(combined) if self.strong and not keep_weak else combined
        if BY_NAME[converted].kind in self.strong_kinds and not keep_weak:
            converted = env.strong(converted)
        if python and all(t in self.python_strong for t in operands):
            converted = env.strong(converted)
        converted = dict(self.results).get(converted, converted)
        return accept(call.function, converted, self.accepts)


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
