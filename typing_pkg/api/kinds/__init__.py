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

The tables write a kind's array parameters as spec strings (its ``specs``),
in JAX's positional order: ``"x"`` an array, ``"arrays[]"`` a sequence of
arrays, ``"*args"`` JAX's variadic arrays, ``"min?"`` an optional array
(absent when not given), ``"dx=py_float"`` an optional array whose default is
a Python float, ``"=py_float"`` a constant the rule adds, and a ``~`` prefix
(``"~condition"``) marks an array whose dtype does not matter, listed so that
positions line up with JAX's signature.  A kind parses them once, when it is
made, into :class:`Param` objects: its ``params``.

Whatever reads the table (the runtime query, the mypy plugin, the JAX stubs,
the conformance tools) goes through :class:`Kind`'s interface only:
``params`` and ``options`` (the parameters a call binds), ``reads()`` and
``checks()`` (which parameters' dtypes matter), ``branches()`` (the kinds
a choice holds), ``result()``, and the class-level facts ``returns_arrays``,
``modelled``, ``takes_values``, ``joins_operands`` and ``one_dtype``.  A
static checker that cannot type an argument lists it in the call's
``unknown`` (:class:`UnknownOperand`).  A behaviour only one or two
functions have is a named kind beside its family (``InexactApart`` for
``interp``, ``RealiseFirst`` for ``polyfit``, ``Convolution``, ``Angle``),
under its family's name in the documentation.

The kinds are compared by identity (``eq=False``) and keep ``object``'s
``repr``: each function of the table has its own instance, and building
``__eq__``, ``__hash__`` and ``__repr__`` for some thirty classes is most of
the cost of importing this module, which the mypy plugin does in each run
that checks a call of JAX.
"""

from __future__ import annotations

from typing import Final

from typing_pkg.api.kinds.base import (
    DTYPE_OPTIONS,
    Call,
    Env,
    Kind,
    NoOperands,
    NotArray,
    Operand,
    Outcome,
    Param,
    Result,
    Unknown,
    UnknownOperand,
)
from typing_pkg.api.kinds.composite import (
    Choose,
    Flag,
    NotAnArray,
    Outputs,
    Sample,
    UnknownDtype,
    flags,
)
from typing_pkg.api.kinds.joins import (
    Angle,
    Convolution,
    InexactApart,
    Join,
    Operator,
    Predicate,
    RealiseFirst,
    RequestJoined,
    ToComplex,
    ToInexact,
    ToNumeric,
    ToReal,
)
from typing_pkg.api.kinds.lax import LaxDot, LaxSame
from typing_pkg.api.kinds.values import Cast, Create, Fill, Fixed, Keep, Like, Reduce

__all__ = [
    "DTYPE_OPTIONS",
    "Angle",
    "Call",
    "Cast",
    "Choose",
    "Convolution",
    "Create",
    "Env",
    "Fill",
    "Fixed",
    "Flag",
    "InexactApart",
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
    "RealiseFirst",
    "Reduce",
    "RequestJoined",
    "Result",
    "Sample",
    "ToComplex",
    "ToInexact",
    "ToNumeric",
    "ToReal",
    "Unknown",
    "UnknownDtype",
    "UnknownOperand",
    "flags",
]

KINDS: Final[tuple[type[Kind], ...]] = (
    Operator, Join, ToInexact, InexactApart, RealiseFirst, Convolution, RequestJoined,
    ToNumeric, ToComplex, ToReal, Angle, Predicate, Fixed, Keep,
    Reduce, Create, Fill, Like, Cast, LaxSame, LaxDot, Sample, Outputs, Choose, Flag, UnknownDtype,
    NotAnArray,
)  # fmt: skip
"""Every rule kind, in documentation order."""
