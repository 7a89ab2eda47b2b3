"""Conformance truth: what real array libraries do with dtypes.

:func:`observe` runs every operator on every operand pair of one rule set
(``jax``, ``jax-x32``, ``jax-strict``, ``numpy``, ``torch``, ``array-api``,
``tensorflow``) against the installed library and returns the observed
:class:`Cell` rows; ``tools/make_truth.py`` records them in
``truth/<rules>.csv`` (see :mod:`typing_pkg.conformance.truthfile` for the
format) so the promotion rules can be checked against them.  Importing this
package imports none of the array libraries.
"""

from .observe import (
    BINARY_OPS,
    DTYPE_NAMES,
    ERROR_KINDS,
    ERROR_RULES,
    INPLACE_OPS,
    PY_SCALARS,
    RULE_SETS,
    UNARY_OPS,
    WEAK_NAMES,
    ErrorRule,
    ObservationError,
    observe,
    observe_in_subprocess,
    observe_table_in_subprocess,
)
from .truthfile import Cell, format_truth, parse_truth, read_truth, read_truth_file, write_truth

__all__ = [
    "BINARY_OPS",
    "DTYPE_NAMES",
    "ERROR_KINDS",
    "ERROR_RULES",
    "INPLACE_OPS",
    "PY_SCALARS",
    "RULE_SETS",
    "UNARY_OPS",
    "WEAK_NAMES",
    "Cell",
    "ErrorRule",
    "ObservationError",
    "format_truth",
    "observe",
    "observe_in_subprocess",
    "observe_table_in_subprocess",
    "parse_truth",
    "read_truth",
    "read_truth_file",
    "write_truth",
]
