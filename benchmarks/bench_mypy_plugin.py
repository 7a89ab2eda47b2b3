"""What does the mypy plugin cost, and how does it compare with NumPy's annotations?

Usage::

    python benchmarks/bench_mypy_plugin.py [--sizes 1000 10000] [--repeat 3] [--seed 0] [--record]

For each size N the script generates three programs that perform the same N
mixed-dtype operations (binary arithmetic between arrays of different dtypes,
true division, Python scalars on either side, comparisons, ``-x`` and
``abs(x)``; every one defined under the default ``jax`` rules), in functions
of ten statements whose temporaries feed the next statements:

* ``ours``: operands annotated ``Array[float32]`` …, checked **with** the
  plugin (every result typed ``Array[<dtype>]``);
* ``fallback``: the same file checked **without** the plugin (operators give
  ``Array[Any]``, the fallback signatures of ``typing_pkg.typing``);
* ``numpy``: the same computation annotated ``npt.NDArray[np.float32]`` …,
  checked by NumPy's own stubs.

Each check runs mypy in a fresh subprocess with a fresh cache directory that
was warmed beforehand with the program's imports only (the standard library,
NumPy's stubs, typing_pkg), so the time is that of checking the program
(plugin loading included), and reports the CPU time of the ``mypy.api.run``
call (CPU rather than wall time: the machine may be shared), best of
``--repeat``, the three configurations taking turns.  It also reports a fully
cold run (empty cache) at the largest size.

Goals: ours/fallback ≤ 1.15 and ours/numpy < 1 at every size; the exit
status is 1 when one is missed.  The growth from the first size to the last
(time ratio, and the marginal cost per operation of each configuration)
shows the cost is linear.  ``--record`` writes the ratios and the growth the
docs show (``docs/performance.rst``) into ``docs/measured.json``.
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools import measured  # noqa: E402
from typing_pkg.rules import RuleSet, Undefined, get_rules  # noqa: E402

# Dtypes NumPy's stubs also name, so the NumPy program is the same computation.
DTYPES: Final = (
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "float16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
NUMPY: Final = {d: "np.bool" if d == "bool_" else f"np.{d}" for d in DTYPES}
PARAMS: Final = 4
STATEMENTS: Final = 10
SCALARS: Final = (("s", "float", "py_float"), ("n", "int", "py_int"))
BINARY: Final = (("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "truediv"), ("<", "lt"))


@dataclass(frozen=True)
class Programs:
    """The three renderings of one generated computation."""

    ours: str
    numpy: str
    operations: int


def generate(size: int, seed: int) -> Programs:
    """Return programs of ``size`` operations, each defined under the ``jax`` rules."""
    rules = get_rules("jax")
    rng = random.Random(seed)
    ours = ["from typing import Any", "from typing_pkg import Array, " + ", ".join(DTYPES), ""]
    numpy = ["from typing import Any", "import numpy as np", "import numpy.typing as npt", ""]
    done = 0
    index = 0
    while done < size:
        params = [rng.choice(DTYPES[1:]) for _ in range(PARAMS)]
        names = [f"p{i}" for i in range(PARAMS)]
        known = dict(zip(names, params, strict=True))  # variable -> dtype under the jax rules
        ours_args = [f"{n}: Array[{d}]" for n, d in known.items()]
        numpy_args = [f"{n}: npt.NDArray[{NUMPY[d]}]" for n, d in known.items()]
        scalar_args = [f"{n}: {t}" for n, t, _ in SCALARS]
        head = f"def f{index}({', '.join(ours_args + scalar_args)}) -> Any:"
        ours.append(head)
        numpy.append(f"def f{index}({', '.join(numpy_args + scalar_args)}) -> Any:")
        body: list[str] = []
        for step in range(STATEMENTS):
            line, result = _statement(rng, rules, known)
            known[f"t{step}"] = result
            body.append(f"    t{step} = {line}")
            done += 1
        body.append(f"    return t{STATEMENTS - 1}")
        ours += [*body, ""]
        numpy += [*body, ""]
        index += 1
    return Programs("\n".join(ours) + "\n", "\n".join(numpy) + "\n", done)


def _defined(rules: RuleSet, op: str, left: str, right: str | None) -> str | None:
    outcome = rules.result(op, left, right)
    if isinstance(outcome, Undefined) or outcome not in DTYPES:
        return None
    return str(outcome)


def _statement(rng: random.Random, rules: RuleSet, known: dict[str, str]) -> tuple[str, str]:
    """Return one operation on the known variables and its dtype under the rules."""
    variables = list(known)
    while True:
        kind = rng.random()
        a, b = rng.choice(variables), rng.choice(variables)
        if kind < 0.55:
            symbol, op = rng.choice(BINARY)
            result = _defined(rules, op, known[a], known[b])
            text = f"{a} {symbol} {b}"
        elif kind < 0.85:
            name, _, kind_name = rng.choice(SCALARS)
            symbol, op = rng.choice(BINARY[:4])
            if rng.random() < 0.5:
                result = _defined(rules, op, known[a], kind_name)
                text = f"{a} {symbol} {name}"
            else:
                result = _defined(rules, op, kind_name, known[a])
                text = f"{name} {symbol} {a}"
        elif kind < 0.93:
            result = _defined(rules, "neg", known[a], None)
            text = f"-{a}"
        else:
            result = _defined(rules, "abs", known[a], None)
            text = f"abs({a})"
        if result is not None:
            return text, result


# In process on purpose (not tools.checkers.run): the child times only mypy.api.run.
_RUNNER: Final = """
import sys, time
from mypy import api
start = time.process_time()
out, err, status = api.run(sys.argv[2:])
print(time.process_time() - start)
sys.stderr.write(out[-2000:] + err[-2000:])
# NumPy's stubs reject a few of the operations (bool arrays): errors are
# allowed there, not in our program, with or without the plugin.
clean = status == 0 or (sys.argv[1].startswith("numpy") and status == 1)
sys.exit(0 if clean else 3)
"""


def _mypy_cpu(directory: Path, module: str, plugin: bool, cache: Path) -> float:
    """Run mypy on ``module`` in a fresh process; return the CPU seconds of the check."""
    config = directory / ("with.ini" if plugin else "without.ini")
    config.write_text("[mypy]\n" + ("plugins = mypy_plugin\n" if plugin else ""))
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, module, str(directory / f"{module}.py"),
         f"--config-file={config}", f"--cache-dir={cache}", "--no-error-summary"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"mypy failed on {module} (plugin={plugin}):\n{done.stderr}")
    return float(done.stdout.strip().splitlines()[-1])


def _warm(directory: Path, plugin: bool, prelude: str) -> Path:
    """Return a cache directory that holds the program's imports (not the program)."""
    cache = directory / f"cache-{'with' if plugin else 'without'}-{prelude}"
    if not cache.exists():
        _mypy_cpu(directory, prelude, plugin, cache)
    return cache


def measure(directory: Path, size: int, repeat: int) -> tuple[float, float, float]:
    """Return the best CPU times of checking the ours/fallback/numpy programs of ``size``.

    The three configurations take turns, so that a busy machine slows each alike.
    """
    cases = (
        (f"ours_{size}", True, "prelude_ours"),
        (f"ours_{size}", False, "prelude_ours"),
        (f"numpy_{size}", False, "prelude_numpy"),
    )
    best = [float("inf")] * len(cases)
    for _ in range(repeat):
        for index, (module, plugin, prelude) in enumerate(cases):
            cache = directory / "run"
            shutil.rmtree(cache, ignore_errors=True)
            shutil.copytree(_warm(directory, plugin, prelude), cache)
            best[index] = min(best[index], _mypy_cpu(directory, module, plugin, cache))
    return best[0], best[1], best[2]


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and return 0 if the goals are met."""
    parser = argparse.ArgumentParser(description="mypy plugin cost vs no plugin vs NumPy stubs")
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3, help="runs per case (best kept)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args(argv)

    ok = True
    rows: list[tuple[int, float, float, float]] = []
    with tempfile.TemporaryDirectory(prefix="bench-mypy-plugin-") as tmp:
        directory = Path(tmp)
        (directory / "prelude_ours.py").write_text("from typing_pkg import Array\n")
        (directory / "prelude_numpy.py").write_text("import numpy as np\nimport numpy.typing\n")
        print(f"{'ops':>7} {'ours':>8} {'fallback':>9} {'numpy':>8} {'ours/fallback':>14} "
              f"{'ours/numpy':>11}   (CPU seconds of checking the program, best of "
              f"{args.repeat})")  # fmt: skip
        for size in args.sizes:
            programs = generate(size, args.seed)
            (directory / f"ours_{size}.py").write_text(programs.ours)
            (directory / f"numpy_{size}.py").write_text(programs.numpy)
            ours, fallback, numpy = measure(directory, size, args.repeat)
            rows.append((programs.operations, ours, fallback, numpy))
            print(f"{programs.operations:>7} {ours:>8.2f} {fallback:>9.2f} {numpy:>8.2f} "
                  f"{ours / fallback:>14.3f} {ours / numpy:>11.3f}")  # fmt: skip
            ok &= ours / fallback <= 1.15 and ours < numpy
        if len(rows) > 1:
            (n0, o0, f0, p0), (n1, o1, f1, p1) = rows[0], rows[-1]
            print(f"growth {n0} -> {n1} ops: ours ×{o1 / o0:.2f}, fallback ×{f1 / f0:.2f}, "
                  f"numpy ×{p1 / p0:.2f}")  # fmt: skip
            per_op = [(b - a) / (n1 - n0) * 1e6 for a, b in ((o0, o1), (f0, f1), (p0, p1))]
            print(f"marginal cost per operation: ours {per_op[0]:.0f} µs, fallback "
                  f"{per_op[1]:.0f} µs, numpy {per_op[2]:.0f} µs "
                  f"(plugin: +{per_op[0] / per_op[1] - 1:.1%})")  # fmt: skip
        size = args.sizes[-1]
        cold = [
            _mypy_cpu(directory, f"ours_{size}", True, directory / "cold-ours"),
            _mypy_cpu(directory, f"ours_{size}", False, directory / "cold-fallback"),
            _mypy_cpu(directory, f"numpy_{size}", False, directory / "cold-numpy"),
        ]
        print(f"cold (empty cache) at {rows[-1][0]} ops: ours {cold[0]:.2f} s, fallback "
              f"{cold[1]:.2f} s, numpy {cold[2]:.2f} s; ours/fallback {cold[0] / cold[1]:.3f}, "
              f"ours/numpy {cold[0] / cold[2]:.3f}")  # fmt: skip
    print("goal met" if ok else "goal missed: ours/fallback <= 1.15 and ours/numpy < 1")
    if args.record:
        measured.record_all(figures(rows), measured.script_command(__file__, argv))
    return 0 if ok else 1


def figures(rows: list[tuple[int, float, float, float]]) -> dict[str, str]:
    """The figures the docs show: the ratios at each size, the growth from the first to the last."""
    found: dict[str, str] = {}
    for operations, ours, fallback, numpy in rows:
        found[f"bench_mypy_plugin.vs_fallback_{operations}"] = f"{ours / fallback:.2f}"
        found[f"bench_mypy_plugin.vs_numpy_{operations}"] = f"{ours / numpy:.2f}"
    if len(rows) > 1:
        (_, o0, f0, p0), (_, o1, f1, p1) = rows[0], rows[-1]
        found["bench_mypy_plugin.growth_ours"] = f"×{o1 / o0:.1f}"
        found["bench_mypy_plugin.growth_fallback"] = f"×{f1 / f0:.1f}"
        found["bench_mypy_plugin.growth_numpy"] = f"×{p1 / p0:.1f}"
    return found


if __name__ == "__main__":
    sys.exit(main())
