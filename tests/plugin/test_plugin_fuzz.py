"""mypy never crashes on array code, and unknown dtypes never give a dtype error.

Hypothesis draws batches of functions whose parameters have random operand
types (every marker, categories, ``Any``, ``Array[Any]``, bare ``Array``,
type variables, subclasses of ``Array``, unions and ``Optional``, Python
scalars and literals, NumPy arrays and scalars, unrelated types) and whose
bodies apply random operators, nested, reflected and in place, ``abs``,
``astype``, ``promote_types`` and ``result_type``.  Each batch is one file,
checked in one in-process mypy run: mypy must finish normally (no internal
error, exit status 0 or 1), and a line whose operands all have unknown
dtypes must carry no ``dtype-promotion`` error.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from plugin_harness import parse, run_mypy, write_config

from typing_pkg.dtypes import ABSTRACT, CONCRETE, WEAK

BATCH = 60  # functions per file; each has STATEMENTS statements
STATEMENTS = 5
EXAMPLES = int(os.environ.get("TYPING_PKG_FUZZ_BATCHES", "12"))
"""Batches (mypy runs); ``.ci/run`` asks fewer of the oldest mypy, whose JSON cache makes
each run reload JAX's modules (about 5 s a run)."""

MARKERS = [m.name for m in (*CONCRETE, *WEAK, *ABSTRACT)]
UNKNOWN = ["Any", "Array[Any]", "Array[DType]", "Array[T]", "Array"]
TYPES = [
    *(f"Array[{m}]" for m in MARKERS),
    *UNKNOWN,
    "Array[F]", "Sub", "Gen[int8]", "Gen[Any]",
    "bool", "int", "float", "complex", "Literal[1]", "Literal[True]", "Literal[2.5]",
    "npt.NDArray[np.float32]", "npt.NDArray[np.int8]", "npt.NDArray[Any]", "np.float32",
    "np.float64", "np.int16", "np.bool", "None", "str", "object", "list[int]",
]  # fmt: skip
BINARY = ["+", "-", "*", "/", "//", "%", "**", "@", "&", "|", "^", "<<", ">>",
          "<", "<=", ">", ">=", "==", "!="]  # fmt: skip
DTYPE_ARGS = ["float32", "int8", "floating", "DType", '"float16"', '"flaot32"', "float", "int",
              "np.float32", "np.dtype(np.int8)", "1", "None"]  # fmt: skip

# mypy raises the recursion limit when it runs; raising it first keeps Hypothesis quiet.
sys.setrecursionlimit(max(sys.getrecursionlimit(), 2**14))

# What gives a known dtype from unknown operands: comparisons (bool_) and the helpers.
KNOWN_RESULTS = ("astype", "promote_types", "result_type", "<", ">", "==", "!=")

PREAMBLE = """\
from typing import Any, Literal, TypeVar
import numpy as np
import numpy.typing as npt
from typing_pkg import Array, DType, promote_types, result_type
from typing_pkg.dtypes import {markers}

T = TypeVar("T", bound=DType)
F = TypeVar("F", bound=floating)
T_co = TypeVar("T_co", bound=DType, covariant=True)


class Sub(Array[float32]): ...


class Gen(Array[T_co]): ...

""".format(markers=", ".join(MARKERS))

# Half the parameters have an unknown dtype, so that many lines check "no error there".
operand_types = st.one_of(
    st.sampled_from(UNKNOWN),
    st.lists(st.sampled_from(TYPES), min_size=1, max_size=3).map(" | ".join),
)
names = st.sampled_from(["a", "b", "c"])


@st.composite
def expressions(draw: st.DrawFn, depth: int = 2) -> str:
    """Return an expression over the parameters ``a``, ``b``, ``c`` and literals."""
    if depth == 0 or draw(st.integers(0, 3)) == 0:
        return draw(st.one_of(names, names, st.sampled_from(["1", "2.5", "True", "1j"])))
    kind = draw(st.integers(0, 6))
    inner = expressions(depth - 1)
    if kind <= 2:
        return f"({draw(inner)} {draw(st.sampled_from(BINARY))} {draw(inner)})"
    if kind == 3:
        return f"{draw(st.sampled_from(['-', '+', '~']))}{draw(inner)}"
    if kind == 4:
        return f"abs({draw(inner)})"
    if kind == 5:
        return f"{draw(names)}.astype({draw(st.sampled_from(DTYPE_ARGS))})"
    helper = draw(st.sampled_from(["promote_types", "result_type"]))
    args = draw(
        st.lists(st.sampled_from([*DTYPE_ARGS, "a", "b", "a.dtype"]), min_size=1, max_size=3)
    )
    return f"{helper}({', '.join(args)})"


@st.composite
def statements(draw: st.DrawFn) -> str:
    """Return one statement: an assignment, an in-place operator or a bare expression."""
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return f"{draw(names)} {draw(st.sampled_from(BINARY[:13]))}= {draw(expressions())}"
    if kind == 1:
        return f"x = {draw(expressions())}"
    return f"reveal_type({draw(expressions())})"


@st.composite
def functions(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Return a function's parameter types and body lines."""
    params = [draw(operand_types) for _ in range(3)]
    body = [draw(statements()) for _ in range(STATEMENTS)]
    return params, body


def render(batch: list[tuple[list[str], list[str]]]) -> tuple[str, set[int]]:
    """Return the program and the lines whose operands all have unknown dtypes."""
    lines = PREAMBLE.splitlines()
    unknown_lines: set[int] = set()
    for index, (params, body) in enumerate(batch):
        signature = ", ".join(f"{n}: {t}" for n, t in zip("abc", params, strict=True))
        lines.append(f"def case_{index}({signature}) -> None:")
        for statement in body:
            lines.append(f"    {statement}")
            used = [
                t for n, t in zip("abc", params, strict=True) if re.search(rf"\b{n}\b", statement)
            ]
            if (
                used
                and all(t in UNKNOWN for t in used)
                and not any(s in statement for s in KNOWN_RESULTS)
            ):
                unknown_lines.add(len(lines))
        lines.append("")
    return "\n".join(lines) + "\n", unknown_lines


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mypy") / "cache"


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_config(tmp_path_factory.mktemp("config"), "jax")


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    # Shrinking a batch takes minutes (one mypy run per attempt); a failure
    # already names its lines.
    phases=(Phase.explicit, Phase.reuse, Phase.generate),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                           HealthCheck.large_base_example, HealthCheck.function_scoped_fixture],
)  # fmt: skip
@given(batch=st.lists(functions(), min_size=BATCH, max_size=BATCH))
def test_mypy_never_crashes(
    batch: list[tuple[list[str], list[str]]], cache_dir: Path, config: Path, tmp_path: Path
) -> None:
    text, unknown_lines = render(batch)
    source = tmp_path / "fuzz_batch.py"
    source.write_text(text, encoding="utf-8")
    out, err, status = run_mypy([source], config, cache_dir, seeded=True)
    assert status in (0, 1), f"mypy exit status {status}\n{err}\n{out[-3000:]}"
    assert "INTERNAL ERROR" not in out + err and "Traceback" not in out + err, out + err
    outcomes = parse(out)
    false_errors = [
        (number, text.splitlines()[number - 1], outcomes[number].errors)
        for number in sorted(unknown_lines)
        if number in outcomes
        and any(code == "dtype-promotion" for _, code in outcomes[number].errors)
    ]
    assert not false_errors, false_errors
    assert unknown_lines, "no line with only unknown dtypes: the strategy drifted"
