"""What every rule kind shares: the operands, the call and its environment, the outcomes,
``Param`` (a parameter parsed from its spec), ``Kind`` and the mixins of the listed kinds.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Final

from typing_pkg.dtypes import BY_NAME, EXTENDED_NAMES
from typing_pkg.rules.base import PY_SCALARS, RuleSet, Undefined
from typing_pkg.rules.jax import TO_INEXACT

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
    """One array parameter of a kind, parsed from its spec string (see the package docs).

    The tables write parameters as specs (``"x"``, ``"arrays[]"``, ``"*args"``,
    ``"min?"``, ``"dx=py_float"``, ``"~condition"``); a kind parses them once,
    when it is made, and everything that reads a kind's parameters reads these.
    """

    name: str
    """JAX's name of the parameter; empty for a constant the rule adds (``"=py_float"``)."""
    sequence: bool = False
    """A sequence of arrays (``concatenate``'s ``arrays``) or JAX's variadic ``*args``."""
    optional: bool = False
    """May be absent: a ``?``, a default, or ``*args``."""
    default: str | None = None
    """The operand standing for the parameter when it is absent (a Python scalar kind)."""
    ignored: bool = False
    """Its dtype does not matter: listed so that positions line up with JAX's signature."""

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

    @property
    def constant(self) -> bool:
        """Whether this is a constant the rule adds (no JAX parameter: ``"=py_float"``)."""
        return not self.name

    @property
    def spec(self) -> str:
        """The spec string the parameter is written as (``parse`` of it gives it back)."""
        if self.sequence and self.optional and self.default is None:
            text = f"*{self.name}"
        else:
            text = self.name + ("[]" if self.sequence else "")
            text += f"={self.default}" if self.default is not None else "?" * self.optional
        return "~" * self.ignored + text


@dataclass(frozen=True)
class UnknownOperand:
    """An array argument whose dtype a static checker does not know (``Any``, ``Array[floating]``).

    It is left out of the call's ``args``; the checker asks the kind again with
    each dtype it may have (``mypy_plugin.jax_api``).
    """

    name: str
    """The parameter."""
    sequence: bool
    """Whether the parameter is a sequence (each candidate dtype stands as a tuple of one)."""
    category: str | None = None
    """The category of dtypes the argument is known to be of (``floating``), if any."""


@dataclass(frozen=True)
class Call:
    """The dtypes of one call's array arguments (by parameter name) and its options."""

    function: str
    args: Mapping[str, Operand] = field(default_factory=dict[str, Operand])
    options: Mapping[str, object] = field(default_factory=dict[str, object])
    unknown: tuple[UnknownOperand, ...] = ()
    """Array arguments given but of a dtype not known (a static checker's call): the kinds
    read ``args`` only, and the checker decides what the unknown ones make of the result."""

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
        if found in EXTENDED_NAMES:
            return found  # a key array: JAX's own, whatever the promotion rules
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
        extended = [t for t in markers if t in EXTENDED_NAMES]
        if extended:
            if len(set(markers)) == 1:
                return result  # keys with keys (concatenate, where)
            others = sorted(set(markers) - set(extended))
            return Undefined(f"{extended[0]} arrays promote with no other dtype ({others[0]})")
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


_KINDS_READ: Final[Mapping[str, str]] = {
    "iu": "integer",
    "biu": "integer or boolean",
    "fc": "inexact",
    "f": "floating",
    "iufc": "numeric",
}
"""How a ``requires`` error reads the kinds a parameter must be of."""


def accept(function: str, t: str, accepts: str) -> str | Undefined:
    """Return ``t`` if its kind is one of ``accepts`` (kind letters), else why not."""
    if BY_NAME[t].kind not in accepts:
        return Undefined(f"{short(function)} does not accept dtype {t}")
    return t


def short(function: str) -> str:
    return function.rsplit(".", 1)[-1]


def to_inexact(t: str) -> str:
    return TO_INEXACT.get(t, t)


def to_complex(t: str, env: Env) -> str:
    """JAX's ``to_complex_dtype``: complex128 from 64-bit types, else complex64."""
    t = to_inexact(t)
    if BY_NAME[t].weak:
        return "weak_complex"
    wide = t in ("float64", "complex128")
    return env.canonical("complex128") if wide else "complex64"


DEFAULT_NAMES: Final = {
    "b": "bool_", "i": "default int", "u": "default uint", "f": "default float",
    "c": "default complex",
}  # fmt: skip


NUMPY_DEFAULTS: Final = {
    "weak_int": "int64",
    "weak_float": "float64",
    "weak_complex": "complex128",
}
"""What NumPy makes of the Python types int, float and complex."""


def fits(given: str, preferred: str) -> bool:
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


def default_dtype(dtype: str, env: Env) -> str | Undefined:
    """Return JAX's default dtype of a kind letter, or the named dtype canonicalised."""
    found = env.default.get(dtype)
    return found if found is not None else env.canon(dtype)


# --------------------------------------------------------------------- kinds


@dataclass(frozen=True, eq=False, repr=False)
class Kind(ABC):
    """A rule kind: how a function's result dtype follows from its arguments.

    What every reader of the table uses (the runtime query, the mypy plugin,
    the JAX stubs, the conformance tools) is here: ``params`` (the array
    parameters), ``options``, ``scalars``, ``branches()``, ``reads()``,
    ``checks()``, ``result()``, ``describe()`` and the class-level facts
    below.  The fields of the kinds themselves are the tables' to write and
    the kinds' to read, no one else's.
    """

    kind: ClassVar[str] = ""
    """The kind's name in the documentation and the counts."""
    summary: ClassVar[str] = ""
    """One line saying what the kind does."""
    returns_arrays: ClassVar[bool] = True
    """Whether the name is a function returning arrays (not a dtype, a class, a utility)."""
    modelled: ClassVar[bool] = True
    """Whether the result follows from the arguments' dtypes (not "unknown", not "not an
    array"): the entries worth calling to compare with JAX."""
    takes_values: ClassVar[bool] = False
    """Whether an array parameter may be given values to make an array of, lists included
    (``jnp.array([1, 2])``)."""
    joins_operands: ClassVar[bool] = False
    """Whether the result is the promotion of the array arguments, so that any two of
    their dtypes may meet (``join`` and its variants)."""
    one_dtype: ClassVar[bool] = False
    """Whether the array arguments must all have one dtype (``lax``'s primitives)."""
    scalars: bool | tuple[str, ...] = field(default=True, kw_only=True)
    """Whether Python scalars are accepted for the array parameters, or the parameters
    that refuse them (``concatenate``, ``dot``, ``convolve`` need arrays of one
    dimension or more)."""
    refuses: frozenset[str] = field(default=frozenset(), kw_only=True)
    """Dtypes the function refuses although its kind accepts them (``rfft``: float16)."""
    unknown_for: frozenset[str] = field(default=frozenset(), kw_only=True)
    """Dtypes for which the result is not modelled (JAX's partial support of the 1- and
    2-bit integers): "unknown", never wrong."""
    requires: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)
    """Parameters whose dtype must be of some kinds (``b i u f c``): ``ldexp``'s integer
    ``x2``, the integer indices of ``take_along_axis`` and ``dynamic_slice``."""
    adds: tuple[tuple[str, str], ...] = field(default=(), kw_only=True)
    """Parameters the implementation adds a Python scalar to (its kind: ``py_int``), which
    must promote with it: ``take`` wraps negative indices, so strict promotion refuses
    boolean ones."""
    keys: bool = field(default=False, kw_only=True)
    """Whether the kind models typed key arrays (``jax.random.split``); a key given to any
    other function is "unknown": ``jnp.reshape`` takes one, ``jnp.sin`` refuses it."""
    params: tuple[Param, ...] = field(init=False)
    """The array parameters, in JAX's positional order (those of a composite kind gathered
    from its parts): parsed once, when the kind is made, from ``_params``."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", self._params())

    @abstractmethod
    def _params(self) -> tuple[Param, ...]:
        """The array parameters (``params``), worked out once."""

    @property
    def options(self) -> tuple[str, ...]:
        """The non-array parameters the result depends on (``dtype``, ``promote_integers``)."""
        return ()

    def branches(self) -> tuple[Kind, ...]:
        """The kinds one of which applies to a call, chosen by its arguments (``Choose``'s
        given and absent kinds); none for a kind that computes the result itself.

        Their parameters are among ``params`` by name; ``reads()`` and ``checks()``
        already look into them.
        """
        return ()

    def reads(self) -> frozenset[str]:
        """The array parameters whose dtype the result reads, in any branch: those not
        ignored (``bincount(x)`` reads ``x``, ``bincount(x, weights)`` only ``weights``)."""
        found = {p.name for p in self.params if not p.constant and not p.ignored}
        for branch in self.branches():
            found |= branch.reads()
        return frozenset(found)

    def checks(self) -> frozenset[str]:
        """The array parameters whose dtype is checked beyond the ones read, in any branch:
        they must promote with the others, or be of some kinds (``ldexp``'s integer ``x2``).

        A parameter the result reads may be listed too: ``checks() - reads()`` are those
        checked only, each ignored in ``params``.
        """
        found = {name for name, _ in (*self.requires, *self.adds)}
        for branch in self.branches():
            found |= branch.checks()
        return frozenset(found)

    def operands(self, call: Call) -> list[str]:
        """Return the dtype-relevant operands of ``call`` (defaults filled in)."""
        found: list[str] = []
        for p in self.params:
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
            names = self.scalars or tuple(p.name for p in self.params if not p.ignored)
            if any(t in PY_SCALARS for t in call.operands(names)):
                return Undefined(f"{short(call.function)} needs arrays of at least one dimension")
        if not self.keys and not EXTENDED_NAMES.isdisjoint(self.operands(call)):
            return Unknown(f"{short(call.function)} of a key array is not modelled")
        if self.refuses or self.unknown_for:
            for t in self.operands(call):
                found = env.canonical(env.rules.marker(t))
                if found in self.refuses:
                    return Undefined(f"{short(call.function)} does not accept dtype {t}")
                if found in self.unknown_for:
                    return Unknown(f"{short(call.function)} of {found} is not modelled")
        for name, kinds in self.requires:
            for t in call.operands((name,)):
                given = env.operand(t)
                if isinstance(given, Undefined):
                    return given
                if BY_NAME[given].kind not in kinds:
                    what = _KINDS_READ.get(kinds, f"of kind {'/'.join(kinds)}")
                    return Undefined(f"{short(call.function)} needs {what} {name}, not {given}")
        for name, scalar in self.adds:
            for t in call.operands((name,)):
                joined = env.join([t, scalar])
                if isinstance(joined, Undefined):
                    return joined
        try:
            return self.compute(call, env)
        except NoOperands:
            return Unknown(f"{short(call.function)} is given no operand whose dtype is known")

    @abstractmethod
    def compute(self, call: Call, env: Env) -> Result:
        """Compute the result (the arguments' forms checked)."""

    def describe(self) -> str:
        """Return a short readable form of the entry (the kind and its parameters)."""
        return f"{self.kind}({', '.join(p.spec for p in self.params)})"


def unless_requested(
    outcome: Outcome, call: Call, name: str | None, env: Env, refuses: frozenset[str]
) -> Result:
    """Return the dtype the ``name`` option asks for, if given and ``outcome`` is defined."""
    requested = dtype_option(call, name, env, refuses)
    return outcome if requested is None or isinstance(outcome, Undefined) else requested


class Listed:
    """A kind whose ``specs`` field lists its array parameters as the table writes them."""

    specs: tuple[str, ...]

    def _params(self) -> tuple[Param, ...]:
        """The ``specs`` parsed."""
        return tuple(Param.parse(spec) for spec in self.specs)


class DtypeOption:
    """A kind whose ``dtype`` field names the option setting the result dtype, if it has one."""

    dtype: str | None

    @property
    def options(self) -> tuple[str, ...]:
        """The result-dtype option, if any."""
        return (self.dtype,) if self.dtype else ()


class DtypeParam:
    """A kind whose ``dtype`` field names its ``dtype`` parameter."""

    dtype: str

    @property
    def options(self) -> tuple[str, ...]:
        """The ``dtype`` parameter."""
        return (self.dtype,)


def dtype_option(
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
        return Undefined(f"{short(call.function)} does not accept dtype={found}")
    return found
