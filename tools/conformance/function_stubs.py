"""The function truth through the JAX stubs: basedpyright, pyrefly and ty, cell by cell.

The program of :mod:`tools.conformance.function_program` (``stubs=True``:
``Array`` is ``jax.Array``) is checked with the stubs of one rule set
(``python -m typing_pkg stubs --jax --rules R``), each cell judged by
:func:`tools.conformance.function_compare.judge` as the plugin's are.  The
stubs go into the ``site-packages`` of an environment (:func:`environment`)
that holds ``typing_pkg`` and reaches the installed JAX and NumPy through a
``.pth`` line, as ``--out site-packages`` puts them: one place every checker
reads (pyright reads a project's ``typings/`` as well).

A cell the stubs leave at ``Array[Any]`` (no error) is ``not expressed``, and
:func:`reason` names why (:data:`REASONS`).  Any error where JAX accepts, any
dtype other than JAX's, is a defect of the stubs, unless a
:data:`STUB_EXCEPTIONS` entry names it with its reason.  Any error counts as
the refusal: the stubs have no error code of their own.

``python -m tools.conformance.function_stubs --rules jax --checker pyrefly``
prints one checker's verdicts on every cell (``--every N``: a sample, every
N-th cell of each function, as the test takes).  With ``--record`` (every cell
only) it writes the counts the docs show into ``docs/measured.json``
(:func:`figures`; ``tools/measured.py``).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Final

from tools import measured
from tools.checkers.output import read_pyrefly
from tools.checkers.run import basedpyright, timed_command
from tools.conformance.function_compare import (
    VERDICTS,
    CheckerException,
    Said,
    Verdict,
    call_of,
    expected,
    judge,
    operands,
)
from tools.conformance.function_program import Program, program
from tools.conformance.truthfile import Cell, read_truth
from typing_pkg.api import table
from typing_pkg.api.kinds import flags
from typing_pkg.dtypes import BY_NAME
from typing_pkg.rules import Undefined, get_rules
from typing_pkg.stubgen import jax as jaxstubs

__all__ = [
    "CHECKERS",
    "FAILING",
    "REASONS",
    "STUB_EXCEPTIONS",
    "Run",
    "check",
    "environment",
    "prepare",
    "reason",
    "sample",
]

ROOT: Final = Path(__file__).resolve().parents[2]


def truth(rules: str) -> Path:
    """The function truth of ``rules``."""
    return ROOT / "truth" / "api" / f"{rules}.csv"


FAILING: Final = ("false error", "missed", "wrong")
"""What the stubs must never do: a stub may say less than JAX (``not expressed``), not else."""
STUB_EXCEPTIONS: Final[tuple[CheckerException, ...]] = (
    CheckerException(
        reason=(
            "JAX annotates index_take's idxs as Array, but it takes a tuple of index arrays "
            "(as the truth calls it): the checker refuses the tuple, as mypy does (the stubs "
            "keep JAX's declaration of the parameters the table does not read)"
        ),
        functions=frozenset({"jax.lax.index_take"}),
    ),
    CheckerException(
        reason=(
            "the stubs keep JAX's declaration of an index parameter the table requires to be "
            "an integer where no annotation says it (a sequence of scalars, dynamic_slice's "
            "start_indices; a Python int but not a bool, dynamic_index_in_dim's index): a "
            "float index is accepted, the table's refusal is the mypy plugin's"
        ),
        functions=frozenset(
            {
                "jax.lax.dynamic_slice",
                "jax.lax.dynamic_slice_in_dim",
                "jax.lax.dynamic_index_in_dim",
                "jax.lax.dynamic_update_slice",
                "jax.lax.dynamic_update_slice_in_dim",
                "jax.lax.dynamic_update_index_in_dim",
            }
        ),
        applies=lambda cell: re.search(r"\bstart_ind|\bindex=", cell.left) is not None,
        rules=frozenset({"jax", "jax-strict"}),
    ),
)
"""The failing cells the stubs cannot avoid, each with its reason."""

_ARRAY: Final = re.compile(r"\bArray\b(?:\[(?P<arg>[^\[\]]*)\])?")


def marker(revealed: str | None) -> str | None:
    """The dtype of the arrays of a revealed type, if every array in it has that one dtype."""
    found = {m["arg"] for m in _ARRAY.finditer(revealed or "")}
    if len(found) != 1:
        return None
    (arg,) = found
    return arg if arg is not None and arg in BY_NAME else None


# ------------------------------------------------------------------ the environment


def environment(where: Path, rules: str) -> Path:
    """Create an environment whose ``site-packages`` has the stubs of ``rules``; return its Python.

    ``typing_pkg`` is linked, the installed packages (JAX, NumPy, ml_dtypes)
    are reached through a ``.pth`` line naming this Python's
    ``site-packages`` (whose own ``.pth`` files, an editable ``typing_pkg``
    with its stubs among them, are not read from there), and ``jax-stubs``
    and ``typing_pkg-stubs`` are written as ``stubs --jax --rules R --out
    site-packages`` writes them.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = next(where.glob("lib/python3*/site-packages"))
    (site / "_installed.pth").write_text(f"{jaxstubs.jax_dir().parent}\n", encoding="utf-8")
    (site / "typing_pkg").symlink_to(ROOT / "typing_pkg", target_is_directory=True)
    jaxstubs.write(site, rules)
    return where / "bin" / "python"


@dataclass(frozen=True)
class Run:
    """A prepared directory: the program (``prog.py``) and the environment's Python."""

    directory: Path
    program: Program
    python: Path


def sample(cells: Sequence[Cell], every: int) -> list[Cell]:
    """Every ``every``-th cell of each function (its first one included)."""
    seen: dict[str, int] = {}
    found: list[Cell] = []
    for cell in cells:
        name = cell.op.partition("[")[0]
        index = seen[name] = seen.get(name, -1) + 1
        if index % every == 0:
            found.append(cell)
    return found


def prepare(directory: Path, rules: str, cells: Sequence[Cell] | None = None) -> Run:
    """Write the program of ``cells`` (all of ``truth/api/<rules>.csv``) and its environment."""
    directory.mkdir(parents=True, exist_ok=True)
    found = read_truth(truth(rules)) if cells is None else cells
    generated = program(rules, found, stubs=True)
    (directory / "prog.py").write_text(generated.text, encoding="utf-8")
    python = environment(directory / "env", rules)
    config = {"include": ["prog.py"], "typeCheckingMode": "standard", "pythonVersion": "3.11"}
    (directory / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return Run(directory, generated, python)


# ------------------------------------------------------------------ the checkers


def _tool(name: str) -> str:
    """pyrefly or ty, installed beside this Python."""
    return str(Path(sys.executable).with_name(name))


def _said(revealed: dict[int, str], errors: dict[int, list[str]]) -> dict[int, Said]:
    """Per line: the revealed type and the errors (any error is the refusal for the stubs)."""
    out: dict[int, Said] = {}
    for line in revealed.keys() | errors.keys():
        shown = revealed.get(line)
        found = tuple(errors.get(line, ()))
        out[line] = Said(shown, marker(shown), found, bool(found))
    return out


def _basedpyright(run: Run) -> dict[int, Said]:
    done = basedpyright(cwd=run.directory, python=run.python)
    try:
        found = done.diagnostics()
    except ValueError:
        raise RuntimeError(done.stderr or done.stdout) from None
    return _said(found.revealed, found.errors)


def _pyrefly(run: Run) -> dict[int, Said]:
    done = timed_command(
        [_tool("pyrefly"), "check", "--output-format", "json",
         "--python-interpreter-path", str(run.python), "prog.py"],
        run.directory,
    )  # fmt: skip
    try:
        found = read_pyrefly(done.stdout)
    except ValueError:
        raise RuntimeError(done.stderr or done.stdout) from None
    return _said(found.revealed, found.errors)


_TY_LINE: Final = re.compile(
    r"^prog\.py:(?P<line>\d+):\d+: (?P<severity>\w+)\[(?P<rule>[\w-]+)\] (?P<message>.*)$"
)


def _ty(run: Run) -> dict[int, Said]:
    done = timed_command(
        [_tool("ty"), "check", "--output-format", "concise", "--python", str(run.python),
         "--exit-zero", "prog.py"],
        run.directory,
    )  # fmt: skip
    revealed: dict[int, str] = {}
    errors: dict[int, list[str]] = {}
    for text in done.stdout.splitlines():
        found = _TY_LINE.match(text)
        if found is None:
            continue
        line = int(found["line"])
        if found["rule"] == "revealed-type":
            revealed[line] = found["message"].removeprefix("Revealed type: ").strip("`")
        elif found["severity"] == "error":
            errors.setdefault(line, []).append(found["message"])
    if not revealed:
        raise RuntimeError(done.stderr or done.stdout[-3000:])
    return _said(revealed, errors)


CHECKERS: Final[Mapping[str, Callable[[Run], dict[int, Said]]]] = {
    "basedpyright": _basedpyright,
    "pyrefly": _pyrefly,
    "ty": _ty,
}


# ------------------------------------------------------------------ why a cell is not expressed

REASONS: Final[Mapping[str, str]] = {
    "refusal": (
        "JAX refuses the dtypes: each function's overloads end with JAX's own signature, which "
        "takes any array (an Array of unknown dtype, a category, a type variable must stay "
        "accepted), and an overload cannot take every dtype but the refused ones; the "
        "operators refuse through their rule protocols, which exist for the operators only"
    ),
    "two dtypes": (
        "a function of two arrays whose table is no operator's (arctan2, lax.add, convolve…), "
        "given two dtypes: only the operators have rule protocols on the markers, and one "
        "overload per pair of dtypes would take over a thousand per function (two arrays of "
        "one dtype, and Python scalars, have overloads)"
    ),
    "one of two": (
        "a function of two arrays called with one (corrcoef(x)): the stubs have overloads "
        "for the first alone where the second is optional; a checker that does not match "
        "them (none left for basedpyright)"
    ),
    "option of two arrays": (
        "an option naming the result's dtype (preferred_element_type, dtype) on a "
        "function of two arrays: the overloads of two arrays leave it to JAX's signature"
    ),
    "scalar unlike the operator": (
        "a function whose table for arrays is an operator's, with a Python scalar: the "
        "stubs give it the operator's overloads where it agrees with the operator, its own "
        "elsewhere; a checker that does not match them (none left for basedpyright)"
    ),
    "sequence of dtypes": (
        "a sequence of arrays of several dtypes, or with a weak one (concatenate([x, y])): a "
        "list has one item type, and a type variable solves to one dtype, not their join"
    ),
    "optional arrays given": (
        "a function typed for its first arrays alone, called with an optional array after "
        "them (stats.norm.logpdf(x, loc)): the overloads declare the optional ones None, "
        "a call passing them is JAX's signature's"
    ),
    "outputs": (
        "an output of a function of several outputs whose dtypes differ (frexp, divmod), or "
        "one JAX declares as a class of its own (SVDResult, UniqueAllResult): a stub "
        "rewrites JAX's declared result, one dtype for every array in it"
    ),
    **{f"function: {key}": text for key, text in jaxstubs.COVERAGE.items()},
    "canonical scalar type": (
        "a dtype JAX canonicalises, given to a function that keeps it (lax.empty(shape, "
        "jnp.int64) is int64 with x64 off): the stubs declare jnp.int64 an "
        "_ScalarMeta[int32], as JAX canonicalises it, so jnp.int64 and jnp.int32 are one "
        "type to them (and complex32, which JAX has no scalar type for, none)"
    ),
    "scalar kinds": (
        "a Python scalar whose result differs from a narrower kind's (int from bool): a "
        "checker takes a bool for an int, so an overload for int would take the bool too"
    ),
    "flag value": (
        "a flag given another value than its default (svd(a, compute_uv=False), qr(a, "
        "mode='r')): the stubs type the default's outputs and leave JAX's own overload for "
        "the others"
    ),
    "other": "none of the above: a gap to look at",
}
"""Why the stubs leave a cell at ``Array[Any]``: each key of :func:`reason`, and why."""


def _refused(rules: str, cell: Cell) -> bool:
    """Whether the cell's verdict wants the refusal: JAX refuses the dtypes, or the table calls
    the call undefined where JAX fails for another reason."""
    from typing_pkg.api import _env  # pyright: ignore[reportPrivateUsage]

    if cell.error_kind == "dtype":
        return True
    if cell.error_kind is None:
        return False
    kind = table()[cell.op.partition("[")[0]]
    return isinstance(expected(kind, cell, _env(rules)), Undefined)


@cache
def _coverage(rules: str) -> dict[str, str]:
    return jaxstubs.coverage(rules)


def reason(rules: str, cell: Cell) -> str:
    """Why the stubs of ``rules`` leave ``cell`` at ``Array[Any]`` (a key of :data:`REASONS`)."""
    name = cell.op.partition("[")[0]
    how = _coverage(rules).get(name, "not declared")
    if how not in ("one array", "operator", "pairs", "sequence"):
        return f"function: {how}"
    if _refused(rules, cell):
        return "refusal"
    kind = table()[name]
    given = call_of(kind, cell).options
    if any(given.get(flag, values[0]) != values[0] for flag, values in flags(kind).items()):
        return "flag value"
    if "[" in cell.op:
        return "outputs"
    arrays = operands(cell)
    if how == "one array" and len(arrays) > 1:
        return "optional arrays given"
    if how == "sequence":
        return "sequence of dtypes"
    if how in ("operator", "pairs"):
        if cell.right:
            return "option of two arrays"
        if len(arrays) < 2:
            return "one of two"
        if how == "operator" and any(o.startswith("py_") for o in arrays):
            return "scalar unlike the operator"
        return "two dtypes"
    ruleset = get_rules(rules)
    canonical = dict(ruleset.canonical)
    classes = {*canonical, *canonical.values()}
    values = [value.strip("'") for value in _option_values(cell)]
    if any(o.startswith("py_") for o in arrays):
        return "scalar kinds"
    if any(v in classes or (v in BY_NAME and v not in ruleset.types) for v in values):
        return "canonical scalar type"
    return "other"


def _option_values(cell: Cell) -> list[str]:
    return [item.partition("=")[2] for item in cell.right.split()]


def check(rules: str, run: Run, checker: str = "basedpyright") -> Verdict:
    """Run ``checker`` over a prepared directory and judge every cell."""
    said = CHECKERS[checker](run)
    return judge(
        rules,
        run.program.cells,
        said,
        failing=FAILING,
        exceptions=STUB_EXCEPTIONS,
        source=run.program.text.splitlines(),
        reason=lambda cell: reason(rules, cell),
    )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def figures(rules: str, checker: str, cells: int, verdict: Verdict) -> dict[str, str]:
    """The counts of one run as ``docs/measured.json`` keys and the docs' values.

    ``function_stubs.RULES.FIELD`` for basedpyright (``function_stubs.CHECKER.RULES.FIELD``
    for another checker): ``cells``, each verdict (``not_expressed``…), ``wrong_missed_false``
    (the three failing verdicts together) and ``reason.REASON`` for each reason of the
    cells not expressed (:data:`REASONS`, as a slug: ``function_several_arrays``).
    """
    prefix = "function_stubs." + ("" if checker == "basedpyright" else f"{checker}.") + rules
    counts = {"cells": cells, **{_slug(kind): verdict.counts[kind] for kind in VERDICTS}}
    counts["wrong_missed_false"] = sum(
        verdict.counts[k] for k in ("wrong", "missed", "false error")
    )
    counts |= {f"reason.{_slug(why)}": verdict.unexpressed[why] for why in REASONS}
    return {f"{prefix}.{field}": f"{count:,}" for field, count in counts.items()}


def main(argv: Sequence[str] | None = None) -> int:
    """Print one checker's verdicts on the function truth of one rule set."""
    import tempfile

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--rules", default="jax")
    parser.add_argument("--checker", choices=sorted(CHECKERS), default="basedpyright")
    parser.add_argument("--dir", type=Path, help="the work directory (default: a temporary one)")
    parser.add_argument("--every", type=int, default=1, help="every N-th cell of each function")
    parser.add_argument(
        "--record", action="store_true",
        help="update the counts docs/measured.json holds (the docs show) with this run's",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.record and args.every != 1:
        parser.error("--record takes every cell (--every 1): a sample's counts are not the docs'")
    cells = sample(read_truth(truth(args.rules)), args.every)
    with tempfile.TemporaryDirectory() as tmp:
        run = prepare(args.dir or Path(tmp), args.rules, cells)
        start = time.perf_counter()
        verdict = check(args.rules, run, args.checker)
        took = time.perf_counter() - start
    print(f"{args.rules}, {args.checker} ({took:.0f}s): {len(cells)} cells: {verdict.summary()}")
    for why, count in verdict.unexpressed.most_common():
        print(f"  not expressed, {why}: {count}")
    for problem in verdict.problems:
        print(f"  {problem}")
    if args.record:
        # Only the counts the docs show: a count no page names stays printed, not kept.
        shown = measured.load()
        found = figures(args.rules, args.checker, len(cells), verdict)
        command = measured.command_line(["-m", "tools.conformance.function_stubs"], argv)
        measured.record_all({k: v for k, v in found.items() if k in shown}, command)
    return 1 if verdict.failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
