"""The rule kinds: what a JAX function does with the dtypes of its arguments.

Every function of the table (:mod:`typing_pkg.api`) names one kind and its
parameters.  A kind is a small frozen class whose ``result(call, env)``
computes the result dtype of one call from

* the call (:class:`Call`): the dtype of each array argument, by JAX's
  parameter name (a marker name such as ``"int8"``, a weak marker, or a Python
  scalar kind ``"py_int"``; a sequence parameter holds a tuple of them) and
  the options that matter (``dtype=``, ``promote_integers=``, …);
* the rule set, through :class:`Env`, which asks the rule set for everything
  it needs: the join of two dtypes (``RuleSet.promote``), which dtypes exist
  (``RuleSet.types``: x64 off has no 64-bit types, and a 64-bit request is
  canonicalised to 32 bits as JAX does), and the dtype a weak type has at run
  time (``RuleSet.weak_dtypes``, which is also JAX's default int, float and
  complex: ``jnp.zeros(3)`` is float32 exactly where a weak float is).

A result is a marker name (a weak marker when JAX's result is weakly
typed), :class:`~typing_pkg.rules.base.Undefined` (JAX raises a dtype error),
:class:`Unknown` (the dtype depends on values, or the result is not an array
of a dtype we have a marker for), :class:`NotArray` (the name is not a
function returning arrays), or a tuple of results for a function returning a
fixed tuple of arrays.

Parameter specs (the ``params`` of a kind) name JAX's parameters, in JAX's
positional order: ``"x"`` an array, ``"arrays[]"`` a sequence of arrays,
``"*args"`` JAX's variadic arrays, ``"min?"`` an optional array (absent when
not given), ``"dx=py_float"`` an optional array whose default is a Python
float, and a ``~`` prefix (``"~condition"``) marks an array whose dtype does
not matter, listed so that positions line up with JAX's signature.

The kinds are compared by identity (``eq=False``) and keep ``object``'s
``repr``: each function of the table has its own instance, and building
``__eq__``, ``__hash__`` and ``__repr__`` for some thirty classes is most of
the cost of importing this module, which the mypy plugin does in each run
that checks a call of JAX.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules.base import PY_SCALARS, REAL_OF_COMPLEX, RuleSet, Undefined
from typing_pkg.rules.jax import TO_INEXACT, TO_NUMERIC

__all__ = [
    "DTYPE_OPTIONS",
    "KINDS",
    "Call",
    "Cast",
    "Choose",
    "Create",
    "Env",
    "Fill",
    "Fixed",
    "Join",
    "Keep",
    "Kind",
    "LaxDot",
    "LaxSame",
    "Like",
    "NoOperands",
    "NotAnArray",
    "NotArray",
    "Operand",
    "Operator",
    "Outcome",
    "Outputs",
    "Param",
    "Predicate",
    "Reduce",
    "Result",
    "Sample",
    "ToComplex",
    "ToInexact",
    "ToNumeric",
    "ToReal",
    "Unknown",
    "UnknownDtype",
]

Operand = str | tuple[str, ...]
"""The dtype of one argument: a marker or Python scalar kind, or a tuple for a sequence."""


@dataclass(frozen=True)
class Unknown:
    """The result is an array whose dtype the arguments' dtypes do not determine."""

    reason: str

    def __str__(self) -> str:
        return f"unknown: {self.reason}"


class NoOperands(ValueError):
    """A join over no operand: the call's arrays are unknown (``f(*xs)``, ``xs: tuple[()]``)."""


@dataclass(frozen=True)
class NotArray:
    """The name is not a function that returns arrays."""

    reason: str

    def __str__(self) -> str:
        return f"not an array: {self.reason}"


DTYPE_OPTIONS: Final = frozenset({"dtype", "preferred_element_type", "new_dtype", "index_dtype"})
"""The options of JAX's functions that name a dtype: the kinds read them as a requested
dtype, and a checker reads them in every form a dtype argument takes."""

Outcome = str | Undefined | Unknown | NotArray
"""One result: a marker name, or why there is none."""
Result = Outcome | tuple[Outcome, ...]
"""What a call gives: one outcome, or one per array of a returned tuple."""


@dataclass(frozen=True)
class Param:
    """One parameter of a kind, parsed from its spec string (see the module docs)."""

    name: str
    sequence: bool = False
    optional: bool = False
    default: str | None = None
    ignored: bool = False

    @classmethod
    def parse(cls, spec: str) -> Param:
        """Parse ``"x"``, ``"arrays[]"``, ``"*args"``, ``"min?"``, ``"dx=py_float"``, ``"~c"``."""
        ignored = spec.startswith("~")
        spec = spec.removeprefix("~")
        name, _, default = spec.partition("=")
        optional = bool(default) or name.endswith("?") or name.startswith("*")
        sequence = name.endswith("[]") or name.startswith("*")
        name = name.removesuffix("?").removesuffix("[]").removeprefix("*")
        return cls(name, sequence, optional, default or None, ignored)


@dataclass(frozen=True)
class Call:
    """The dtypes of one call's array arguments (by parameter name) and its options."""

    function: str
    args: Mapping[str, Operand] = field(default_factory=dict[str, Operand])
    options: Mapping[str, object] = field(default_factory=dict[str, object])

    def operands(self, names: tuple[str, ...]) -> list[str]:
        """Return the operands given for ``names``, sequences flattened, absent ones skipped."""
        found: list[str] = []
        for name in names:
            value = self.args.get(name)
            if isinstance(value, tuple):
                found.extend(value)
            elif value is not None:
                found.append(value)
        return found


class Env:
    """What the kinds need from a rule set, each item asked of the rule set once."""

    def __init__(self, rules: RuleSet) -> None:
        """Derive the defaults and the canonicalisation from ``rules``."""
        self.rules: RuleSet = rules
        self.name: str = rules.name
        self.types: frozenset[str] = frozenset(rules.types)
        self.weak: Mapping[str, str] = dict(rules.weak_dtypes)
        self._canonical: Mapping[str, str] = dict(rules.canonical)
        self.default: Mapping[str, str] = {
            "b": "bool_",
            "i": self.weak["weak_int"],
            "u": self.canonical("uint64"),
            "f": self.weak["weak_float"],
            "c": self.weak["weak_complex"],
        }
        """JAX's default dtype of each kind (``dtypes.default_types``)."""
        self._joins: dict[tuple[str, str], str | Undefined] = {}

    def canonical(self, t: str) -> str:
        """Return ``t`` canonicalised (x64 off: 64 → 32 bits), whether or not it exists."""
        return self._canonical.get(t, t)

    def canon(self, t: str) -> str | Undefined:
        """Return the dtype an array asked to have ``t`` gets (x64 off: 64 → 32 bits)."""
        found = self.canonical(t)
        if found not in self.types or BY_NAME[found].weak:
            return Undefined(f"{t} is not a dtype of JAX arrays under the {self.name!r} rules")
        return found

    def operand(self, t: str) -> str | Undefined:
        """Return the marker of an operand: a Python scalar's, or the canonical dtype."""
        marker = self.rules.marker(t)
        if marker in self.types and BY_NAME[marker].weak:
            return marker
        return self.canon(marker)

    def join(self, operands: list[str]) -> str | Undefined:
        """Return JAX's ``lattice_result_type`` of the operands (weak when all are weak)."""
        if not operands:
            raise NoOperands("no operand to promote")
        markers: list[str] = []
        for t in operands:
            found = self.operand(t)
            if isinstance(found, Undefined):
                return found
            markers.append(found)
        result = markers[0]
        for other in markers[1:]:
            key = (result, other)
            joined = self._joins.get(key)
            if joined is None:
                joined = self.rules.join(result, other)
                self._joins[key] = joined
            if isinstance(joined, Undefined):
                return joined
            result = joined
        return result

    def strong(self, t: str) -> str:
        """Return the dtype a (possibly weak) type has at run time, strongly typed."""
        return self.weak.get(t, t)

    def request(self, requested: object) -> str | Undefined:
        """Return the dtype a ``dtype=`` argument asks for, as JAX reads it.

        A weak marker stands for a Python type (``float``): JAX's default dtype
        of that kind, strongly typed.
        """
        if not isinstance(requested, str):
            raise TypeError(f"a dtype request must be a marker name, not {requested!r}")
        marker = BY_NAME.get(requested)
        if marker is None or marker.abstract:
            raise TypeError(f"{requested!r} is not a dtype")
        if marker.weak:
            return self.default[marker.kind]
        if requested == "bool_":
            return "bool_"
        return self.canon(requested)


def _accept(function: str, t: str, accepts: str) -> str | Undefined:
    """Return ``t`` if its kind is one of ``accepts`` (kind letters), else why not."""
    if BY_NAME[t].kind not in accepts:
        return Undefined(f"{_short(function)} does not accept dtype {t}")
    return t


def _short(function: str) -> str:
    return function.rsplit(".", 1)[-1]


def _to_inexact(t: str) -> str:
    return TO_INEXACT.get(t, t)


def _to_complex(t: str, env: Env) -> str:
    """JAX's ``to_complex_dtype``: complex128 from 64-bit types, else complex64."""
    t = _to_inexact(t)
    if BY_NAME[t].weak:
        return "weak_complex"
    wide = t in ("float64", "complex128")
    return env.canonical("complex128") if wide else "complex64"


_DEFAULT_NAMES: Final = {
    "b": "bool_", "i": "default int", "u": "default uint", "f": "default float",
    "c": "default complex",
}  # fmt: skip


_NUMPY_DEFAULTS: Final = {
    "weak_int": "int64",
    "weak_float": "float64",
    "weak_complex": "complex128",
}
"""What NumPy makes of the Python types int, float and complex."""


def _fits(given: str, preferred: str) -> bool:
    """Whether a convolution of ``given`` may accumulate in ``preferred`` (XLA's rule).

    Bools in anything; integers in integers of the same signedness or in floats; floats
    and complex numbers in their own kind, not narrower.
    """
    kind, wanted = BY_NAME[given].kind, BY_NAME[preferred].kind
    if kind == "b":
        return True
    if kind in "iu":
        return wanted in kind + "f"
    return wanted == kind and (BY_NAME[preferred].bits or 0) >= (BY_NAME[given].bits or 0)


def _default(dtype: str, env: Env) -> str | Undefined:
    """Return JAX's default dtype of a kind letter, or the named dtype canonicalised."""
    found = env.default.get(dtype)
    return found if found is not None else env.canon(dtype)


# --------------------------------------------------------------------- kinds


@dataclass(frozen=True, eq=False, repr=False)
class Kind(ABC):
    """A rule kind: how a function's result dtype follows from its arguments."""

    kind: ClassVar[str] = ""
    """The kind's name in the documentation and the counts."""
    summary: ClassVar[str] = ""
    """One line saying what the kind does."""
    scalars: bool | tuple[str, ...] = field(default=True, kw_only=True)
    """Whether Python scalars are accepted for the array parameters, or the parameters
    that refuse them (``concatenate``, ``dot``, ``convolve`` need arrays of one
    dimension or more)."""
    refuses: frozenset[str] = field(default=frozenset(), kw_only=True)
    """Dtypes the function refuses although its kind accepts them (``rfft``: float16)."""
    unknown_for: frozenset[str] = field(default=frozenset(), kw_only=True)
    """Dtypes for which the result is not modelled (JAX's partial support of the 1- and
    2-bit integers): "unknown", never wrong."""

    @property
    @abstractmethod
    def param_specs(self) -> tuple[str, ...]:
        """The array parameters' specs, in JAX's positional order."""

    @property
    def options(self) -> tuple[str, ...]:
        """The non-array parameters the result depends on (``dtype``, ``promote_integers``)."""
        return ()

    @cached_property
    def parameters(self) -> tuple[Param, ...]:
        """The parsed array parameters."""
        return tuple(Param.parse(spec) for spec in self.param_specs)

    def operands(self, call: Call) -> list[str]:
        """Return the dtype-relevant operands of ``call`` (defaults filled in)."""
        found: list[str] = []
        for p in self.parameters:
            if p.ignored:
                continue
            value = call.args.get(p.name)
            if value is None:
                if p.default is not None:
                    found.append(p.default)
            elif isinstance(value, tuple):
                found.extend(value)
            else:
                found.append(value)
        return found

    def result(self, call: Call, env: Env) -> Result:
        """Return the result of ``call`` under the rule set of ``env``."""
        if self.scalars is not True:
            names = self.scalars or tuple(p.name for p in self.parameters if not p.ignored)
            if any(t in PY_SCALARS for t in call.operands(names)):
                return Undefined(f"{_short(call.function)} needs arrays of at least one dimension")
        if self.refuses or self.unknown_for:
            for t in self.operands(call):
                found = env.canonical(env.rules.marker(t))
                if found in self.refuses:
                    return Undefined(f"{_short(call.function)} does not accept dtype {t}")
                if found in self.unknown_for:
                    return Unknown(f"{_short(call.function)} of {found} is not modelled")
        try:
            return self.compute(call, env)
        except NoOperands:
            return Unknown(f"{_short(call.function)} is given no operand whose dtype is known")

    @abstractmethod
    def compute(self, call: Call, env: Env) -> Result:
        """Compute the result (the arguments' forms checked)."""

    def describe(self) -> str:
        """Return a short readable form of the entry (the kind and its parameters)."""
        return f"{self.kind}({', '.join(self.param_specs)})"


def _unless_requested(
    outcome: Outcome, call: Call, name: str | None, env: Env, refuses: frozenset[str]
) -> Result:
    """Return the dtype the ``name`` option asks for, if given and ``outcome`` is defined."""
    requested = _dtype_option(call, name, env, refuses)
    return outcome if requested is None or isinstance(outcome, Undefined) else requested


class _Listed:
    """A kind whose ``params`` field lists its array parameters' specs."""

    params: tuple[str, ...]

    @property
    def param_specs(self) -> tuple[str, ...]:
        """The ``params`` field: the array parameters, in JAX's positional order."""
        return self.params


class _DtypeOption:
    """A kind whose ``dtype`` field names the option setting the result dtype, if it has one."""

    dtype: str | None

    @property
    def options(self) -> tuple[str, ...]:
        """The result-dtype option, if any."""
        return (self.dtype,) if self.dtype else ()


class _DtypeParam:
    """A kind whose ``dtype`` field names its ``dtype`` parameter."""

    dtype: str

    @property
    def options(self) -> tuple[str, ...]:
        """The ``dtype`` parameter."""
        return (self.dtype,)


def _dtype_option(
    call: Call, name: str | None, env: Env, refuses: frozenset[str] = frozenset()
) -> str | Undefined | None:
    """Return the dtype the ``dtype=`` option asks for, or ``None`` when not given."""
    if name is None:
        return None
    requested = call.options.get(name)
    if requested is None:
        return None
    found = env.request(requested)
    if isinstance(found, str) and found in refuses:
        return Undefined(f"{_short(call.function)} does not accept dtype={found}")
    return found


@dataclass(frozen=True, eq=False, repr=False)
class Operator(_Listed, _DtypeOption, Kind):
    """Exactly a Python operator (``jnp.add`` is ``+``): the rule set's operator result."""

    kind: ClassVar[str] = "operator"
    summary: ClassVar[str] = "the result of the Python operator the function implements"
    op: str = "add"
    params: tuple[str, ...] = ("x", "y")
    dtype: str | None = None
    """An option that sets the result dtype (``matmul``'s ``preferred_element_type``)."""

    def compute(self, call: Call, env: Env) -> Result:
        """Ask the rule set for the operator's result (Python scalars passed as they are)."""
        return _unless_requested(self._operator(call, env), call, self.dtype, env, self.refuses)

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
class Join(_Listed, _DtypeOption, Kind):
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
        return _accept(call.function, result, self.accepts)

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
                checked = _accept(call.function, found, kinds)
                if isinstance(checked, Undefined):
                    return checked
        requested = _dtype_option(call, self.dtype, env, self.refuses)
        if requested is not None:
            if isinstance(requested, Undefined):
                return requested
            checked_request = _accept(call.function, requested, self.dtype_accepts)
            if isinstance(checked_request, Undefined):
                return checked_request
            if self.same_kind and not _fits(env.strong(joined), requested):
                return Undefined(
                    f"{_short(call.function)}: {self.dtype}={requested} does not fit {joined}"
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
        return _accept(call.function, converted, self.accepts)


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
        return _to_inexact(t)


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
        return _to_complex(t, env)


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
            t = _to_complex(t, env)
        elif self.inexact:
            t = _to_inexact(t)
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


@dataclass(frozen=True, eq=False, repr=False)
class Fixed(_Listed, Kind):
    """A fixed dtype whatever the arguments: ``"int"`` is the default int (indices)."""

    kind: ClassVar[str] = "fixed"
    summary: ClassVar[str] = (
        "a fixed dtype: the default int for indices (argmax, argsort, nonzero), "
        "or a named one (bitwise_count: uint8)"
    )
    dtype: str = "int"
    """A marker name, or a kind letter ``b i u f c`` for JAX's default dtype of that kind."""
    params: tuple[str, ...] = ("a",)
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
            checked = _accept(call.function, joined, self.accepts)
            if isinstance(checked, Undefined):
                return checked
        found = _default(self.dtype, env)
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
        shown = _DEFAULT_NAMES.get(self.dtype, self.dtype)
        return f"fixed {shown}({', '.join(self.params)})"


@dataclass(frozen=True, eq=False, repr=False)
class Keep(_Listed, Kind):
    """The input's dtype (``reshape``, ``sort``, ``round``, ``relu``)."""

    kind: ClassVar[str] = "keep"
    summary: ClassVar[str] = "the input's dtype (weak kept unless the function realises it)"
    params: tuple[str, ...] = ("a",)
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
            return Undefined(f"{_short(call.function)} takes an integer or an array")
        joined = env.join(operands)
        if isinstance(joined, Undefined):
            return joined
        if self.check:
            checked_join = env.join([joined, *call.operands(self.check)])
            if isinstance(checked_join, Undefined):
                return checked_join
        checked = _accept(call.function, joined, self.accepts)
        if isinstance(checked, Undefined):
            return checked
        if self.ints is not None and BY_NAME[checked].kind in "biu":
            return env.default[self.ints]
        if not self.weak or BY_NAME[checked].kind in self.strong_kinds:
            return env.strong(checked)
        return checked


_CONVERSIONS: Final = ("same", "numeric", "inexact", "bool", "real")


@dataclass(frozen=True, eq=False, repr=False)
class Reduce(_Listed, Kind):
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
    params: tuple[str, ...] = ("a",)
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
        checked = _accept(call.function, joined, self.accepts)
        if isinstance(checked, Undefined):
            return checked
        requested = _dtype_option(call, self.dtype, env, self.refuses)
        t = env.strong(joined)
        if requested is not None:
            if isinstance(requested, Undefined):
                return requested
            if self.convert == "real" and BY_NAME[t].kind == "c" and BY_NAME[requested].kind != "c":
                return Undefined(f"{_short(call.function)} of complex values needs a complex dtype")
            checked = _accept(call.function, requested, self.requested_accepts)
            if self.after and isinstance(checked, str):
                combined = env.join([checked, *self.after])  # var divides by a Python float
                if isinstance(combined, Undefined) or self.after_result:
                    return combined
            return checked
        if self.convert == "numeric":
            t = TO_NUMERIC.get(t, t)
        elif self.convert == "inexact":
            t = env.canonical(_to_inexact(t))
        elif self.convert == "real":
            t = env.canonical(REAL_OF_COMPLEX.get(_to_inexact(t), _to_inexact(t)))
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
class Create(_Listed, _DtypeParam, Kind):
    """A new array of the ``dtype`` argument, else of JAX's default dtype of a kind."""

    kind: ClassVar[str] = "create"
    summary: ClassVar[str] = (
        "the dtype= argument, else the default dtype of a kind (zeros, ones, eye: float)"
    )
    default: str = "f"
    """The default dtype: a kind letter (``f``: JAX's default float) or a marker name."""
    dtype: str = "dtype"
    accepts: str = "biufc"
    params: tuple[str, ...] = ()
    """Array parameters whose dtype does not matter (``nn.one_hot``'s ``~x``)."""
    ints: str | None = None
    """What an integer request gives instead: a dtype, a kind letter, or ``"inexact"``
    (``fft.rfftfreq`` divides: ``to_inexact_dtype`` of the request)."""

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, or the default."""
        requested = _dtype_option(call, self.dtype, env, self.refuses)
        if requested is None:
            return _default(self.default, env)
        if isinstance(requested, Undefined):
            return requested
        checked = _accept(call.function, requested, self.accepts)
        if self.ints is not None and isinstance(checked, str) and BY_NAME[checked].kind in "iu":
            if self.ints == "inexact":
                return env.canonical(_to_inexact(checked))
            return _default(self.ints, env)
        return checked

    def describe(self) -> str:
        """Name the default."""
        return f"create({self.dtype}=, default {_DEFAULT_NAMES.get(self.default, self.default)})"


@dataclass(frozen=True, eq=False, repr=False)
class Fill(_Listed, _DtypeParam, Kind):
    """The dtype of a value argument, unless ``dtype=`` (``full``, ``array``, ``asarray``).

    A Python scalar or weakly typed value gives a weakly typed array; a
    sequence of values gives the (realised) join of its elements; with
    ``dtype=`` the requested dtype.
    """

    kind: ClassVar[str] = "fill"
    summary: ClassVar[str] = (
        "the value's dtype (weak for a Python scalar, realised for a list), or dtype="
    )
    params: tuple[str, ...] = ("fill_value",)
    dtype: str = "dtype"
    inexact: bool = False
    """Make the value's dtype inexact (``linspace``)."""
    strong: bool = False
    """Realise the value's dtype (``arange``, ``linspace``: ``dtypes.result_type``)."""
    accepts: str = "biufc"
    requested_accepts: str = "biufc"

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, or the value's."""
        requested = _dtype_option(call, self.dtype, env, self.refuses)
        operands = self.operands(call)
        if requested is not None:
            if isinstance(requested, Undefined):
                return requested
            for t in operands:  # the values are checked all the same (arange: no complex)
                found = env.operand(t)
                if isinstance(found, Undefined):
                    return found
                if BY_NAME[found].kind not in self.accepts and BY_NAME[found].kind != "b":
                    return Undefined(f"{_short(call.function)} does not accept {found}")
            return _accept(call.function, requested, self.requested_accepts)
        if not operands and any(call.args.get(p.name) == () for p in self.parameters):
            return env.canonical("float64")  # an empty list: NumPy's float64, canonicalised
        joined = env.join(operands)
        if isinstance(joined, Undefined):
            return joined
        if self.strong or any(isinstance(call.args.get(p.name), tuple) for p in self.parameters):
            joined = env.strong(joined)  # a list is not weakly typed
        found = env.canonical(_to_inexact(joined)) if self.inexact else joined
        return _accept(call.function, found, self.accepts)


@dataclass(frozen=True, eq=False, repr=False)
class Like(_Listed, _DtypeParam, Kind):
    """The prototype's dtype (weak kept), unless ``dtype=`` (``zeros_like``, ``full_like``)."""

    kind: ClassVar[str] = "like"
    summary: ClassVar[str] = "the prototype's dtype (weak kept), unless dtype="
    params: tuple[str, ...] = ("a",)
    dtype: str = "dtype"

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, or the prototype's."""
        requested = _dtype_option(call, self.dtype, env, self.refuses)
        if requested is not None:
            return requested
        return env.join(self.operands(call)[:1])


@dataclass(frozen=True, eq=False, repr=False)
class Cast(_Listed, _DtypeParam, Kind):
    """An explicit cast: the requested dtype, strongly typed (``astype``)."""

    kind: ClassVar[str] = "cast"
    summary: ClassVar[str] = "the requested dtype (astype, convert_element_type)"
    params: tuple[str, ...] = ("x",)
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
            return _NUMPY_DEFAULTS.get(raw, raw)
        requested = _dtype_option(call, self.dtype, env, self.refuses)
        if requested is None:
            if joined is None:
                return Undefined(f"{_short(call.function)} needs a dtype")
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
        return _accept(call.function, requested, self.accepts)


@dataclass(frozen=True, eq=False, repr=False)
class LaxSame(_DtypeOption, Kind):
    """A ``lax`` primitive: the operands must have one dtype (no promotion).

    Python scalars and weakly typed arrays count as their run-time dtype (a
    Python ``int`` is the default int); the result is weak when every operand
    is.
    """

    kind: ClassVar[str] = "lax"
    summary: ClassVar[str] = (
        "a lax primitive: all operands of one dtype (Python scalars as their default dtype)"
    )
    params: tuple[str, ...] = ("x", "y")
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

    @property
    def param_specs(self) -> tuple[str, ...]:
        """The operands (and the exponent-like parameter)."""
        return (*self.params, self.int_or_same) if self.int_or_same else self.params

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
        return _unless_requested(self._same(call, env), call, self.dtype, env, self.refuses)

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
            return Undefined(f"lax.{_short(call.function)} needs one dtype, got {shown}")
        everything = [env.operand(t) for t in Kind.operands(self, call)]
        weak = all(isinstance(t, str) and BY_NAME[t].weak for t in everything)
        t = markers[0] if weak else realised.pop()
        checked = _accept(call.function, env.strong(t), self.accepts)
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
            return _to_complex(t, env)
        return t


@dataclass(frozen=True, eq=False, repr=False)
class LaxDot(_Listed, _DtypeOption, Kind):
    """``lax.dot_general``: the operand of "higher precision" (XLA's HigherPrecisionType).

    Operands are ordered by (complex, largest exponent, mantissa bits, bit width,
    signed); the greater one is the result, and two different dtypes of equal
    rank are refused.  ``preferred_element_type`` then wins, if not narrower
    for integers.
    """

    kind: ClassVar[str] = "lax-dot"
    summary: ClassVar[str] = "lax.dot_general: the higher-precision operand (no promotion)"
    params: tuple[str, ...] = ("lhs", "rhs")
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
            return Undefined(f"lax.{_short(call.function)} argument type error: {lhs}, {rhs}")
        result = max(lhs, rhs, key=self._rank)
        if weak:  # all operands weak: the result is weak (dot of two Python scalars' arrays)
            result = {v: k for k, v in env.weak.items()}.get(result, result)
        requested = _dtype_option(call, self.dtype, env, self.refuses)
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


@dataclass(frozen=True, eq=False, repr=False)
class Sample(_DtypeOption, Kind):
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

    @property
    def param_specs(self) -> tuple[str, ...]:
        """The key's dtype does not matter."""
        return ()

    def compute(self, call: Call, env: Env) -> Result:
        """The requested dtype, checked, or the default."""
        requested = _dtype_option(call, self.dtype, env, self.refuses)
        if requested is None:
            return _default(self.default, env)
        if isinstance(requested, Undefined):
            return requested
        if requested in self.refuses:
            return Undefined(f"{_short(call.function)} does not accept dtype {requested}")
        checked = _accept(call.function, requested, self.accepts)
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

    @property
    def param_specs(self) -> tuple[str, ...]:
        """The union of the outputs' parameters, in order of first appearance."""
        seen: dict[str, None] = {}
        for kind in self.outputs:
            seen.update(dict.fromkeys(kind.param_specs))
        return tuple(seen)

    @property
    def options(self) -> tuple[str, ...]:
        """The union of the outputs' options."""
        seen: dict[str, None] = {}
        for kind in self.outputs:
            seen.update(dict.fromkeys(kind.options))
        return tuple(seen)

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

    @property
    def param_specs(self) -> tuple[str, ...]:
        """The given kind's parameters (a superset of the other's)."""
        return self.given.param_specs

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
class _Reasoned(Kind):
    """A kind whose answer is one outcome, with a reason, whatever the arguments."""

    outcome: ClassVar[type[Unknown | NotArray]]
    """The outcome, made from the reason."""
    reason: str = ""

    @property
    def param_specs(self) -> tuple[str, ...]:
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


@dataclass(frozen=True, eq=False, repr=False)
class NotAnArray(_Reasoned):
    """A public name that is not a function returning arrays (dtypes, classes, utilities)."""

    kind: ClassVar[str] = "not-array"
    summary: ClassVar[str] = "not a function returning arrays (a dtype, a class, a utility)"
    outcome: ClassVar[type[Unknown | NotArray]] = NotArray


KINDS: Final[tuple[type[Kind], ...]] = (
    Operator, Join, ToInexact, ToNumeric, ToComplex, ToReal, Predicate, Fixed, Keep,
    Reduce, Create, Fill, Like, Cast, LaxSame, LaxDot, Sample, Outputs, Choose, UnknownDtype,
    NotAnArray,
)  # fmt: skip
"""Every rule kind, in documentation order."""
