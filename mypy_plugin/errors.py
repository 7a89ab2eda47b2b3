"""The ``dtype-promotion`` error code and its messages.

Every error the plugin reports carries the code ``dtype-promotion``, so it
can be silenced like any other (``# type: ignore[dtype-promotion]``, or
``disable_error_code = dtype-promotion``).  A message names the operator,
both operand types, the rule set, the reason the rules give, and the fix::

    Unsupported operand dtypes for + ("Array[float8_e4m3fn]" and "Array[float16]")
    under the "jax" rules: float8_e4m3fn and float16 have no implicit promotion path;
    cast one with .astype(...)

(one line in mypy's output).

A state the plugin does not expect — a rule set that raises or answers
something that is not a marker, a marker missing from the ``typing_pkg`` mypy
reads (stubs of another version) — is never hidden behind ``Array[Any]``:
it is an error with its own code, ``typing-pkg-unexpected``, that gives the
details and asks for a bug report (to typing_pkg, or to the author of a
custom rule set)::

    The typing_pkg mypy plugin ran into unexpected behavior: the "mine" rules
    (mymodule.MyRules) raised KeyError: 'int8' for add(int8, float16); please
    report this bug with this message

The plugin then types the expression as ``Array[Any]`` and mypy goes on.
"""

from __future__ import annotations

from typing import Final

from mypy.errorcodes import ErrorCode
from mypy.messages import format_type
from mypy.nodes import Context
from mypy.options import Options
from mypy.plugin import CheckerPluginInterface
from mypy.types import Instance, Type, get_proper_type

from mypy_plugin import mypy_internals as internals
from mypy_plugin import names
from typing_pkg.rules import RuleSet

__all__ = [
    "DTYPE_PROMOTION",
    "UNEXPECTED",
    "error_bad_index",
    "error_carry",
    "error_undefined_binary",
    "error_undefined_call",
    "error_undefined_promotion",
    "error_undefined_unary",
    "error_unexpected",
]

DTYPE_PROMOTION: Final = ErrorCode(
    "dtype-promotion",
    "An operation the active promotion rules leave undefined for its operands' dtypes",
    "Plugin",
)
UNEXPECTED: Final = ErrorCode(
    "typing-pkg-unexpected",
    "The typing_pkg plugin met a state it does not expect (a bug to report)",
    "Plugin",
)


def _format(typ: Type, options: Options) -> str:
    """Return ``format_type(typ)``, directly for the common operands (errors come in thousands)."""
    proper = get_proper_type(typ)
    if isinstance(proper, Instance) and proper.last_known_value is None:
        if proper.type.fullname == names.ARRAY and len(proper.args) == 1:
            arg = get_proper_type(proper.args[0])
            if isinstance(arg, Instance) and not arg.args:
                return f'"Array[{arg.type.name}]"'
        elif proper.type.fullname in names.BUILTIN_SCALARS:
            return f'"{proper.type.name}"'
    return format_type(typ, options)


def _reason(rules: RuleSet, reason: str) -> str:
    """Return the rules' reason without a trailing "under 'name'" (the message names the rules)."""
    return reason.removesuffix(f" under {rules.name!r}")


def error_undefined_binary(
    api: CheckerPluginInterface,
    context: Context,
    rules: RuleSet,
    symbol: str,
    left: Type,
    right: Type,
    reason: str,
) -> None:
    """Report ``left SYMBOL right`` as undefined under ``rules``."""
    from typing_pkg.api.jax_random import KEY_REFUSAL

    operands = f"{_format(left, api.options)} and {_format(right, api.options)}"
    hint = "" if KEY_REFUSAL in reason else "; cast one with .astype(...)"
    api.fail(
        f"Unsupported operand dtypes for {symbol} ({operands}) under the "
        f'"{rules.name}" rules: {_reason(rules, reason)}{hint}',
        context,
        code=DTYPE_PROMOTION,
    )


def error_undefined_unary(
    api: CheckerPluginInterface,
    context: Context,
    rules: RuleSet,
    symbol: str,
    operand: Type,
    reason: str,
) -> None:
    """Report ``SYMBOL operand`` as undefined under ``rules``."""
    from typing_pkg.api.jax_random import KEY_REFUSAL

    hint = "" if KEY_REFUSAL in reason else "; cast it with .astype(...)"
    api.fail(
        f"Unsupported operand dtype for {symbol} ({_format(operand, api.options)}) under the "
        f'"{rules.name}" rules: {_reason(rules, reason)}{hint}',
        context,
        code=DTYPE_PROMOTION,
    )


def _display(function: str) -> str:
    """Return a function's name as JAX code writes it (``jnp.mean``, ``lax.add``)."""
    for prefix, short in _SHORT_NAMES:
        if function.startswith(prefix):
            return short + function[len(prefix) :]
    return function


_SHORT_NAMES: Final = (
    ("jax.numpy.", "jnp."),
    ("jax.lax.", "lax."),
    ("jax.Array.at.", "Array.at[]."),
)


def error_undefined_call(
    api: CheckerPluginInterface, context: Context, rules: RuleSet, function: str, reason: str
) -> None:
    """Report a call of a JAX function that JAX refuses for its arguments' dtypes."""
    api.fail(
        f'Unsupported dtypes for {_display(function)}() under the "{rules.name}" rules: '
        f"{_reason(rules, reason)}",
        context,
        code=DTYPE_PROMOTION,
    )


def error_bad_index(api: CheckerPluginInterface, context: Context, index: Type) -> None:
    """Report an array indexed by an array of a float or complex dtype (JAX raises TypeError)."""
    api.fail(
        f"Invalid index dtype ({_format(index, api.options)}): JAX indexes with integer or "
        "boolean arrays only; cast with .astype(...) (or use // for an integer quotient)",
        context,
        code=DTYPE_PROMOTION,
    )


def error_carry(
    api: CheckerPluginInterface, context: Context, function: str, before: Type, after: Type
) -> None:
    """Report a loop body that changes its carry's dtype (or ``lax.cond`` branches that differ)."""
    what = (
        "the branches return different dtypes"
        if function == "lax.cond"
        else "the body changes the carry's dtype"
    )
    api.fail(
        f"{function}: {what} ({_format(before, api.options)} becomes "
        f"{_format(after, api.options)}); JAX requires the same dtype: cast with .astype(...)",
        context,
        code=DTYPE_PROMOTION,
    )


def error_undefined_promotion(
    api: CheckerPluginInterface, context: Context, function: str, message: str
) -> None:
    """Report a call of ``promote_types``/``result_type`` that raises ``PromotionError``."""
    api.fail(f"{function}() fails at run time: {message}", context, code=DTYPE_PROMOTION)


def error_unexpected(api: CheckerPluginInterface, context: Context, detail: str) -> None:
    """Report a state the plugin does not expect, asking for a bug report (as pydantic's does)."""
    api.fail(
        f"The typing_pkg mypy plugin ran into unexpected behavior: {detail}; "
        "please report this bug with this message",
        context,
        code=UNEXPECTED,
    )


def withdraw(api: CheckerPluginInterface, context: Context, code: ErrorCode) -> None:
    """Withdraw the error with ``code`` mypy has just reported at ``context``, if it has.

    For an error mypy reports where the plugin's types differ from the
    library's only in form (a jitted method is a callable to the plugin, an
    object to JAX): the error is the last one recorded, in the innermost
    filter that kept it or in the file's list.
    """
    internals.withdraw_last(api, context, code)
