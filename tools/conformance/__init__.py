"""Conformance truth: what real array libraries do with dtypes.

:func:`observe` runs every operator on every operand pair of one rule set
(:data:`RULE_SETS`) against the installed library and returns the observed
:class:`Cell` rows; ``tools/make_truth.py`` records them in
``truth/<rules>.csv`` (see :mod:`tools.conformance.truthfile` for the format)
so the promotion rules can be checked against them (:mod:`.compare`).
Importing this package imports none of the array libraries.  Nothing here is
part of ``typing_pkg``: it is tooling for a source checkout.
"""

from .backend import (
    DTYPE_NAMES,
    ERROR_KINDS,
    ERROR_RULES,
    PY_SCALARS,
    WEAK_NAMES,
    ErrorRule,
    ObservationError,
)
from .observe import RULE_SETS, observe, observe_in_subprocess, observe_table_in_subprocess
from .truthfile import Cell, format_truth, parse_truth, read_truth, read_truth_file, write_truth

__all__ = [
    "DTYPE_NAMES",
    "ERROR_KINDS",
    "ERROR_RULES",
    "PY_SCALARS",
    "RULE_SETS",
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
