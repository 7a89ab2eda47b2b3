"""``jax.lax``'s kinds: the same dtype for every operand, and the dot products."""

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
    Param,
    Result,
    Unknown,
    accept,
    dtype_option,
    short,
    to_complex,
    unless_requested,
)
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules.base import PY_SCALARS, REAL_OF_COMPLEX, Undefined


@dataclass(frozen=True, eq=False, repr=False)
class LaxSame(DtypeOption, Kind):
    """A ``lax`` primitive: the operands must have one dtype (no promotion).

    Python scalars and weakly typed arrays count as their run-time dtype (a
    Python ``int`` is the default int); the result is weak when every operand
    is.
    """

    kind: ClassVar[str] = "lax"
    summary: ClassVar[str] = (
        "a lax primitive: all operands of one dtype (Python scalars as their default dtype)"
    )
    one_dtype: ClassVar[bool] = True
    specs: tuple[str, ...] = ("x", "y")
    accepts: str = "biufc"
    to: str = "same"
    """``same``; ``bool`` (comparisons); ``real`` (abs, real, imag); ``complex``
    (``lax.complex``: float32 → complex64)."""
    int_or_same: str | None = None
    """A parameter whose dtype is an integer or the operands' (``lax.pow``'s exponent)."""
    strong: bool = False
    """The result is strongly typed even for weak operands (``dynamic_update_slice``)."""
    after: tuple[str, ...] = ()
    """Dtypes the implementation combines the result with (``nn.dot_product_attention``
    scales by a float32): they must promote."""
    dtype: str | None = None
    """An option that sets the result dtype (``preferred_element_type``)."""

    def _params(self) -> tuple[Param, ...]:
        """The operands (and the exponent-like parameter)."""
        specs = (*self.specs, self.int_or_same) if self.int_or_same else self.specs
        return tuple(Param.parse(spec) for spec in specs)

    def operands(self, call: Call) -> list[str]:
        """The operands that must agree: the exponent-like one only when not an integer."""
        found = super().operands(call)
        if self.int_or_same is None:
            return found
        extra = call.operands((self.int_or_same,))
        found = found[: len(found) - len(extra)]
        for t in extra:
            marker = BY_NAME.get(PY_SCALARS.get(t, t))
            if marker is None or marker.kind not in "iu":
                found.append(t)
        return found

    def compute(self, call: Call, env: Env) -> Result:
        """Check that the operands agree and the kind is accepted, then convert."""
        return unless_requested(self._same(call, env), call, self.dtype, env, self.refuses)

    def _same(self, call: Call, env: Env) -> Outcome:
        markers: list[str] = []
        for t in self.operands(call):
            found = env.operand(t)
            if isinstance(found, Undefined):
                return found
            markers.append(found)
        realised = {env.strong(t) for t in markers}
        if len(realised) > 1:
            shown = ", ".join(sorted(realised))
            return Undefined(f"lax.{short(call.function)} needs one dtype, got {shown}")
        everything = [env.operand(t) for t in Kind.operands(self, call)]
        weak = all(isinstance(t, str) and BY_NAME[t].weak for t in everything)
        t = markers[0] if weak else realised.pop()
        checked = accept(call.function, env.strong(t), self.accepts)
        if isinstance(checked, Undefined):
            return checked
        if self.after:
            combined = env.join([env.strong(t), *self.after])
            if isinstance(combined, Undefined):
                return combined
        if self.strong:
            t = env.strong(t)
        if self.to == "bool":
            return "bool_"
        if self.to == "real":
            return REAL_OF_COMPLEX.get(t, t)
        if self.to == "abs":  # what the rule set's abs computes in (int1: int8), or refuses
            if t in env.rules.refuses.get("abs", ()):
                return Undefined(f"abs does not accept dtype {t}")
            converted = env.rules.conversions.get("abs", REAL_OF_COMPLEX)
            return converted.get(t, t)
        if self.to == "complex":
            return to_complex(t, env)
        return t


@dataclass(frozen=True, eq=False, repr=False)
class LaxDot(Listed, DtypeOption, Kind):
    """``lax.dot_general``: the operand of "higher precision" (XLA's HigherPrecisionType).

    Operands are ordered by (complex, largest exponent, mantissa bits, bit width,
    signed); the greater one is the result, and two different dtypes of equal
    rank are refused.  ``preferred_element_type`` then wins, if not narrower
    for integers.
    """

    kind: ClassVar[str] = "lax-dot"
    summary: ClassVar[str] = "lax.dot_general: the higher-precision operand (no promotion)"
    specs: tuple[str, ...] = ("lhs", "rhs")
    dtype: str | None = "preferred_element_type"
    floats: tuple[tuple[str, int, int, int], ...] = ()
    """Each float type's (name, maxexp, nmant, bits), as ``jax.dtypes.finfo`` gives them."""

    def _rank(self, t: str) -> tuple[bool, int, int, int, bool]:
        marker = BY_NAME[t]
        real = REAL_OF_COMPLEX.get(t, t)
        table = {name: (maxexp, nmant, bits) for name, maxexp, nmant, bits in self.floats}
        if real in table:
            maxexp, nmant, bits = table[real]
        else:
            maxexp, nmant, bits = -1, -1, 1 if marker.kind == "b" else (marker.bits or 0)
        return (marker.kind == "c", maxexp, nmant, bits, marker.kind != "u")

    def compute(self, call: Call, env: Env) -> Result:
        """The higher-precision operand, then the preferred type."""
        markers: list[str] = []
        for t in self.operands(call):
            found = env.operand(t)
            if isinstance(found, Undefined):
                return found
            markers.append(env.strong(found))
        weak = all(
            BY_NAME[t].weak
            for t in (env.operand(o) for o in self.operands(call))
            if isinstance(t, str)
        )
        lhs, rhs = markers
        if self._rank(lhs) == self._rank(rhs) and lhs != rhs:
            return Undefined(f"lax.{short(call.function)} argument type error: {lhs}, {rhs}")
        result = max(lhs, rhs, key=self._rank)
        if weak:  # all operands weak: the result is weak (dot of two Python scalars' arrays)
            result = {v: k for k, v in env.weak.items()}.get(result, result)
        requested = dtype_option(call, self.dtype, env, self.refuses)
        if requested is None or isinstance(requested, Undefined) or requested == result:
            return result if requested is None else requested
        if weak:  # a weakly typed result of the preferred type: a marker only for defaults
            weak_of = {v: k for k, v in env.weak.items()}
            if requested not in weak_of:
                return Unknown(f"a weakly typed {requested}, which no marker names")
            return weak_of[requested]
        if BY_NAME[result].kind != "f" and self._rank(requested)[3] < self._rank(result)[3]:
            return Undefined(f"preferred_element_type={requested} is narrower than {result}")
        return requested
