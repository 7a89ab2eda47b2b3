"""Kinds built of others or of none: samples, several outputs, a choice, a flag, unknown, not
an array."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from typing_pkg.api.kinds.base import (
    Call,
    DtypeOption,
    Env,
    Kind,
    NotArray,
    Outcome,
    Param,
    Result,
    Unknown,
    accept,
    default_dtype,
    dtype_option,
    short,
)
from typing_pkg.api.kinds.joins import Join
from typing_pkg.rules.base import Undefined


@dataclass(frozen=True, eq=False, repr=False)
class Sample(DtypeOption, Kind):
    """A random sampler: the ``dtype`` argument (of the accepted kinds), else a default."""

    kind: ClassVar[str] = "sample"
    summary: ClassVar[str] = (
        "a random sampler: dtype= (of the kinds the sampler accepts), else the default "
        "float (normal, uniform) or int (randint)"
    )
    default: str = "f"
    dtype: str | None = "dtype"
    accepts: str = "f"
    results: tuple[tuple[str, str], ...] = ()
    """Requested dtypes the sampler gives another dtype for (``bits``: uint4 → uint8)."""
    after: tuple[str, ...] = ()
    """Dtypes the sample is combined with (``lognormal``'s float32 ``sigma``): they must
    promote with the requested dtype."""

    def _params(self) -> tuple[Param, ...]:
        """The key's dtype does not matter."""
        return ()

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, checked, or the default."""
        requested = dtype_option(call, self.dtype, env, self.refuses)
        if requested is None:
            return default_dtype(self.default, env)
        if isinstance(requested, Undefined):
            return requested
        if requested in self.refuses:
            return Undefined(f"{short(call.function)} does not accept dtype {requested}")
        checked = accept(call.function, requested, self.accepts)
        if isinstance(checked, str) and self.after:
            combined = env.join([checked, *self.after])
            if isinstance(combined, Undefined):
                return combined
        return dict(self.results).get(checked, checked) if isinstance(checked, str) else checked

    def describe(self) -> str:
        """Name the default and the accepted kinds."""
        return f"sample(default {self.default}, accepts {self.accepts})"


@dataclass(frozen=True, eq=False, repr=False)
class Outputs(Kind):
    """A fixed tuple of arrays, one kind each (``frexp``, ``linalg.svd``, ``slogdet``)."""

    kind: ClassVar[str] = "outputs"
    summary: ClassVar[str] = "a tuple of arrays, one kind per output"
    outputs: tuple[Kind, ...] = ()

    def _params(self) -> tuple[Param, ...]:
        """The union of the outputs' parameters, in order of first appearance."""
        return tuple(dict.fromkeys(p for kind in self.outputs for p in kind.params))

    @property
    def options(self) -> tuple[str, ...]:
        """The union of the outputs' options."""
        seen: dict[str, None] = {}
        for kind in self.outputs:
            seen.update(dict.fromkeys(kind.options))
        return tuple(seen)

    def checks(self) -> frozenset[str]:
        """What the outputs check."""
        return frozenset(name for kind in self.outputs for name in kind.checks())

    def compute(self, call: Call, env: Env) -> Result:
        """One outcome per output."""
        found: list[Outcome] = []
        for kind in self.outputs:
            outcome = kind.result(call, env)
            if isinstance(outcome, tuple):  # pragma: no cover - outputs do not nest
                raise TypeError("nested outputs")
            if isinstance(outcome, Undefined):  # the call raises
                return outcome
            found.append(outcome)
        return tuple(found)

    def describe(self) -> str:
        """List the outputs."""
        return "(" + ", ".join(kind.describe() for kind in self.outputs) + ")"


@dataclass(frozen=True, eq=False, repr=False)
class Choose(Kind):
    """One kind when an optional array argument is given, another when it is not.

    ``where(c, x, y)`` joins ``x`` and ``y``; ``where(c)`` gives indices.
    """

    kind: ClassVar[str] = "choose"
    summary: ClassVar[str] = "one kind when an optional argument is given, another otherwise"
    param: str = "x"
    given: Kind = field(default_factory=lambda: Join())
    absent: Kind = field(default_factory=lambda: Join())

    def _params(self) -> tuple[Param, ...]:
        """The given kind's parameters (a superset of the other's)."""
        return self.given.params

    def branches(self) -> tuple[Kind, ...]:
        """The given kind and the absent one."""
        return (self.given, self.absent)

    @property
    def options(self) -> tuple[str, ...]:
        """Both kinds' options."""
        return tuple(dict.fromkeys((*self.given.options, *self.absent.options)))

    def compute(self, call: Call, env: Env) -> Result:
        """Apply the kind that fits the call."""
        chosen = self.given if call.args.get(self.param) is not None else self.absent
        return chosen.result(call, env)

    def describe(self) -> str:
        """Both kinds."""
        return f"{self.param} given: {self.given.describe()}; else {self.absent.describe()}"


@dataclass(frozen=True, eq=False, repr=False)
class Flag(Kind):
    """One kind per value of a flag argument: ``svd``'s ``compute_uv`` (a tuple of three
    arrays, or the singular values alone), ``qr``'s ``mode``, ``eigh``'s ``eigvals_only``.

    A call gives the flag as a literal (``compute_uv=False``) or not at all (the
    default); a value no case lists is "unknown".
    """

    kind: ClassVar[str] = "flag"
    summary: ClassVar[str] = "one kind per value of a flag argument (a literal bool or string)"
    flag: str = ""
    default: bool | str = False
    cases: tuple[tuple[bool | str, Kind], ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.default not in dict(self.cases):
            raise ValueError(f"flag {self.flag}: no case for its default {self.default!r}")

    def _params(self) -> tuple[Param, ...]:
        """The union of the cases' parameters, in order of first appearance."""
        return tuple(dict.fromkeys(p for _, kind in self.cases for p in kind.params))

    def branches(self) -> tuple[Kind, ...]:
        """The cases' kinds."""
        return tuple(kind for _, kind in self.cases)

    @property
    def options(self) -> tuple[str, ...]:
        """The flag, then the cases' options."""
        seen: dict[str, None] = {self.flag: None}
        for _, kind in self.cases:
            seen.update(dict.fromkeys(kind.options))
        return tuple(seen)

    def values(self) -> tuple[bool | str, ...]:
        """The flag's values the cases list, the default first."""
        return (self.default, *(v for v, _ in self.cases if v != self.default))

    def compute(self, call: Call, env: Env) -> Result:
        """Apply the case of the flag's value."""
        value = call.options.get(self.flag, self.default)
        for listed, kind in self.cases:
            if listed == value and type(listed) is type(value):
                return kind.result(call, env)
        return Unknown(f"{short(call.function)} with {self.flag}={value!r} is not modelled")

    def describe(self) -> str:
        """Each value's kind."""
        return "; ".join(f"{self.flag}={v!r}: {kind.describe()}" for v, kind in self.cases)


def flags(kind: Kind) -> dict[str, tuple[bool | str, ...]]:
    """The flags of ``kind`` and its branches, each with the values its cases list, the
    default first (``qr``: ``mode`` and ``pivoting``)."""
    found: dict[str, tuple[bool | str, ...]] = {}
    if isinstance(kind, Flag):
        found[kind.flag] = kind.values()
    for branch in kind.branches():
        for flag, values in flags(branch).items():
            found.setdefault(flag, values)
    return found


@dataclass(frozen=True, eq=False, repr=False)
class _Reasoned(Kind):
    """A kind whose answer is one outcome, with a reason, whatever the arguments."""

    outcome: ClassVar[type[Unknown | NotArray]]
    """The outcome, made from the reason."""
    modelled: ClassVar[bool] = False
    reason: str = ""

    def _params(self) -> tuple[Param, ...]:
        """No parameter matters."""
        return ()

    def compute(self, call: Call, env: Env) -> Result:
        """Always the outcome."""
        return self.outcome(self.reason)

    def describe(self) -> str:
        """The outcome and its reason."""
        return str(self.outcome(self.reason))


@dataclass(frozen=True, eq=False, repr=False)
class UnknownDtype(_Reasoned):
    """The dtype depends on values, or is not one we have a marker for: never wrong."""

    kind: ClassVar[str] = "unknown"
    summary: ClassVar[str] = "an array whose dtype the argument dtypes do not determine"
    outcome: ClassVar[type[Unknown | NotArray]] = Unknown
    pending: bool = False
    """The argument dtypes do determine it, but no kind holds the rule yet (outputs chosen
    by a flag, a pair, a key dtype no marker names): a gap of the table, not of JAX."""


@dataclass(frozen=True, eq=False, repr=False)
class NotAnArray(_Reasoned):
    """A public name that is not a function returning arrays (dtypes, classes, utilities)."""

    kind: ClassVar[str] = "not-array"
    summary: ClassVar[str] = "not a function returning arrays (a dtype, a class, a utility)"
    returns_arrays: ClassVar[bool] = False
    outcome: ClassVar[type[Unknown | NotArray]] = NotArray
