"""What the generated stubs cost: basedpyright and mypy on a generated program.

Run ``python benchmarks/bench_stubs.py`` (``--ops 1000 10000``, ``--repeat 5``,
``--floor``, ``--no-mypy``, ``--baseline DIR``, ``--record``).
It generates a program of N array operations (functions of eight lines such
as ``v3 = v1 * a2 + 2.0``, operands drawn from 15 common dtypes and Python
scalars, only defined promotions, deterministic) and installs the package two
ways into throw-away virtual environments (``--system-site-packages``, a
``.pth`` file for ``typing_pkg``), one of them with the stub package
``typing_pkg-stubs`` beside it, as ``pip install`` would put it.  Then it
times (CPU seconds, the least of ``--repeat`` interleaved rounds):

* basedpyright with the stubs against basedpyright without them (plain,
  un-overloaded operator signatures: ``typing_pkg/typing.py``); goal ≤ 1.5×;
* mypy with the plugin and the stubs against mypy with the plugin alone
  (cold cache each run); goal ≤ 1.15×.  If the plugin registers no operator
  hooks yet, the script says so: the numbers are then mypy with vs without
  the stubs visible.

With ``--floor`` it also times basedpyright on the stubs cut to one overload
per operator (arrays only: every Python scalar operand is then an error): the
least any overload-and-protocol encoding can cost, the floor under the goal.
With ``--baseline DIR`` it also times both checkers with another stub package
(``DIR/typing_pkg-stubs``, e.g. the stubs a previous generator wrote) in the
same interleaved rounds, to compare two encodings on equal terms.

It prints one line per measurement, the ratios, the growth from the
smallest to the largest program, and the size of the generated stubs.
``--record`` writes the ratios and the size into ``docs/measured.json``
(``bench_stubs.pyright_N``, ``floor_N``, ``mypy_N`` for each size N, ``size``).
"""

from __future__ import annotations

import argparse
import builtins
import json
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools import measured  # noqa: E402
from tools.checkers.run import (  # noqa: E402
    basedpyright_command,
    checker_env,
    mypy_command,
    timed_command,
)
from typing_pkg.ops import SYMBOL  # noqa: E402
from typing_pkg.rules import PY_SCALARS, Undefined, get_rules  # noqa: E402
from typing_pkg.stubgen import PACKAGE, stubs_dir  # noqa: E402

DTYPES = (
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
)  # fmt: skip
OPS = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor",
       "lshift", "lt", "ge", "eq")  # fmt: skip
SCALARS = {kind: repr(getattr(builtins, kind.removeprefix("py_"))(2)) for kind in PY_SCALARS}
"""Python scalar kind → a literal of it (``py_float``: ``2.0``)."""
LINES_PER_FUNCTION = 8
FIGURE = {"basedpyright": "pyright", "mypy+plugin": "mypy"}
"""Each checker's name in the keys of ``docs/measured.json`` (``bench_stubs.pyright_1000``)."""


def program(n: int, seed: int = 0) -> str:
    """Return a module with ``n`` binary operations whose promotions are all defined."""
    rules = get_rules("jax")
    rng = random.Random(seed)
    out = ["from typing_pkg import Array", f"from typing_pkg import {', '.join(DTYPES)}", ""]
    done = 0
    f = 0
    while done < n:
        params = {f"a{i}": rng.choice(DTYPES) for i in range(4)}
        signature = ", ".join(f"{p}: Array[{t}]" for p, t in params.items())
        out.append(f"def f{f}({signature}) -> None:")
        names = dict(params)
        lines = 0
        while lines < LINES_PER_FUNCTION and done < n:
            left = rng.choice(list(names))
            if rng.random() < 0.25:
                right_kind = rng.choice(list(SCALARS))
                right, right_text = right_kind, SCALARS[right_kind]
            else:
                right_text = rng.choice(list(names))
                right = names[right_text]
            op = rng.choice(OPS)
            result = rules.result(op, names[left], right)
            if isinstance(result, Undefined) or result not in DTYPES:
                continue
            var = f"v{lines}"
            out.append(f"    {var} = {left} {SYMBOL[op]} {right_text}")
            names[var] = result
            lines += 1
            done += 1
        out.append("")
        f += 1
    return "\n".join(out) + "\n"


def make_env(where: Path, with_stubs: bool, stubs: Path | None = None) -> Path:
    """Create a virtual environment that sees ``typing_pkg`` (and maybe the stubs).

    ``stubs`` is the directory holding the stub package (default: the repository's).
    """
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(where)],
        check=True,
    )
    site = next(where.glob("lib/python3*/site-packages"))
    (site / "typing_pkg.pth").write_text(f"{ROOT}\n")
    if with_stubs:
        shutil.copytree((stubs_dir() if stubs is None else stubs) / PACKAGE, site / PACKAGE)
    return where / "bin" / "python"


def make_floor_env(where: Path) -> Path:
    """Create an environment with the stubs cut to one overload per operator (``--floor``).

    Each operator keeps its first overload, the one for arrays (matched
    through the other operand's rule method); Python scalars then fail.  Its
    time is the floor of the encoding: what one protocol-matched signature
    per operator costs, with no scalar overloads at all.
    """
    python = make_env(where, with_stubs=True)
    stub = next(where.glob(f"lib/python3*/site-packages/{PACKAGE}/typing.pyi"))
    lines = stub.read_text(encoding="utf-8").splitlines()
    start = lines.index("    if MYPY:")  # the plain signatures, then the overloads
    kept, seen = lines[:start], set()
    i = start
    while i < len(lines):
        if lines[i] == "    @overload" and i + 1 < len(lines):
            name = lines[i + 1].split("(")[0]
            if name not in seen:
                kept.append(lines[i + 1])
            seen.add(name)
            i += 2
            continue
        kept.append(lines[i])
        i += 1
    stub.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return python


def time_run(cmd: list[str], cwd: Path, repeat: int, before: object = None) -> float:
    """Return the least CPU time (user + system) of ``repeat`` runs of ``cmd``.

    CPU time, not wall time: other work on the machine barely moves it.
    ``before`` is called before each run.
    """
    env = checker_env({"PYTHONPATH": str(ROOT)})  # mypy imports the plugin from the repo
    best = float("inf")
    for _ in range(repeat):
        if callable(before):
            before()
        done = timed_command(cmd, cwd, env=env)
        best = min(best, done.cpu_seconds)
        if "error importing plugin" in done.stdout.lower() or done.status > 1:
            raise RuntimeError(f"{cmd[0]} failed:\n{done.stdout}{done.stderr}")
    return best


def pyright(work: Path, python: Path, repeat: int) -> float:
    config = {"include": ["prog.py"], "pythonVersion": "3.11", "typeCheckingMode": "standard"}
    (work / "pyrightconfig.json").write_text(json.dumps(config))
    command = [*basedpyright_command(), "--pythonpath", str(python), "-p", str(work)]
    return time_run(command, work, repeat)


def mypy(work: Path, python: Path, repeat: int) -> float:
    cache = work / ".mypy_cache"
    (work / "mypy.ini").write_text(f"[mypy]\nplugins = mypy_plugin\ncache_dir = {cache}\n")

    def clear() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    cmd = [
        *mypy_command(), "--config-file", "mypy.ini", "--python-executable", str(python), "prog.py",
    ]  # fmt: skip
    return time_run(cmd, work, repeat, clear)


def plugin_has_hooks() -> bool:
    """Return whether the mypy plugin registers operator hooks (it may not exist yet)."""
    text = (ROOT / "mypy_plugin" / "__init__.py").read_text(encoding="utf-8")
    return "get_method_hook" in text or any(
        "get_method_hook" in p.read_text(encoding="utf-8")
        for p in (ROOT / "mypy_plugin").glob("*.py")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-mypy", action="store_true", help="time basedpyright only")
    parser.add_argument(
        "--floor", action="store_true", help="also time the stubs cut to one overload per operator"
    )
    parser.add_argument(
        "--baseline", type=Path, help="also time the stub package under this directory"
    )
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args(argv)
    size = sum(p.stat().st_size for p in (stubs_dir() / PACKAGE).rglob("*") if p.is_file())
    print(f"generated stubs: {size / 1024:.0f} KiB in {stubs_dir() / PACKAGE}")
    figures = {"bench_stubs.size": f"{size / 1024:.0f} KiB"}
    hooks = plugin_has_hooks()
    if not args.no_mypy and not hooks:
        print("note: mypy_plugin registers no operator hooks yet: mypy is timed with the "
              "placeholder plugin, with vs without the stubs visible")  # fmt: skip
    ratios: dict[str, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        plain_py = make_env(base / "plain", with_stubs=False)
        stubs_py = make_env(base / "stubs", with_stubs=True)
        floor_py = make_floor_env(base / "floor") if args.floor else None
        baseline_py = (
            make_env(base / "baseline", with_stubs=True, stubs=args.baseline)
            if args.baseline
            else None
        )
        for n in args.ops:
            work = base / f"prog{n}"
            work.mkdir()
            (work / "prog.py").write_text(program(n))
            checkers = [("basedpyright", pyright)]
            if not args.no_mypy:
                checkers.append(("mypy+plugin", mypy))
            for name, run in checkers:
                envs = {"plain": plain_py, "stubs": stubs_py}
                if floor_py is not None and name == "basedpyright":
                    envs["floor"] = floor_py
                if baseline_py is not None:
                    envs["baseline"] = baseline_py
                # Interleaved rounds, the least time of each: drift on a shared
                # machine then touches every variant alike.
                best = dict.fromkeys(envs, float("inf"))
                for _ in range(args.repeat):
                    for variant, python in envs.items():
                        best[variant] = min(best[variant], run(work, python, 1))
                plain, stubbed = best["plain"], best["stubs"]
                ratio = stubbed / plain
                ratios.setdefault(name, []).append(ratio)
                figures[f"bench_stubs.{FIGURE[name]}_{n}"] = f"{ratio:.2f}×"
                print(f"{name:>13} {n:>6} ops: plain {plain:6.2f} s CPU, "
                      f"with stubs {stubbed:6.2f} s, ratio {ratio:.2f}x")  # fmt: skip
                if "floor" in best:
                    floor = best["floor"]
                    figures[f"bench_stubs.floor_{n}"] = f"{floor / plain:.2f}×"
                    print(f"{'':>13} {n:>6} ops: floor (one overload per operator) "
                          f"{floor:6.2f} s, ratio {floor / plain:.2f}x")  # fmt: skip
                if "baseline" in best:
                    other = best["baseline"]
                    print(f"{'':>13} {n:>6} ops: baseline stubs ({args.baseline}) "
                          f"{other:6.2f} s, ratio {other / plain:.2f}x")  # fmt: skip
    for name, values in ratios.items():
        if len(values) > 1:
            print(f"{name}: ratio grows {values[0]:.2f}x -> {values[-1]:.2f}x "
                  f"from {args.ops[0]} to {args.ops[-1]} operations")  # fmt: skip
    if args.record:
        measured.record_all(figures, measured.script_command(__file__, argv))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
