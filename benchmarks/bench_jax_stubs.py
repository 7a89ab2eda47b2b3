"""What the typed JAX stubs cost basedpyright: the realistic corpus and generated ``jnp`` code.

Usage::

    python benchmarks/bench_jax_stubs.py [--repeat 5] [--calls 500] [--stubs DIR]
        [--corpus tests/corpus/realistic] [--goal 1.5] [--record]

The stubs are generated into a temporary directory (``jaxstubs.write``, what
``python -m typing_pkg stubs --jax --out DIR`` writes) unless ``--stubs DIR``
names a directory holding them.  Two throw-away environments are made as
``bench_stubs.py`` makes them (:func:`bench_stubs.make_env`), both seeing
this interpreter's site-packages (JAX, NumPy) through a ``.pth`` line: one
plain (JAX's own annotations), one with ``DIR/jax-stubs`` and
``DIR/typing_pkg-stubs`` copied into its site-packages, as ``pip`` would put
them.  Nothing else differs.  basedpyright (``typeCheckingMode = standard``)
then checks, in each round, each program with each environment in turn
(CPU seconds of the subprocess, :func:`bench_stubs.time_run`), so that a
busy machine slows both alike:

* the corpus (a copy of ``tests/corpus/realistic``: JAX programs as users
  write them): the ratio with ÷ without of each round, and its median;
* two generated programs of ``--calls`` N and 2N calls of ``jnp`` functions
  (creations with ``dtype=``, elementwise functions, reductions, functions
  of two arrays, joins; deterministic; the first N calls of both are the
  same): the marginal cost of a call, ``(t(2N) - t(N)) / N``, with and
  without the stubs (medians over the rounds) and their ratio;
* the size of the stubs on disk (files, KiB).

Goal (issue 13): with ÷ without ≤ 1.5 on the corpus (``--goal``); the exit
status is 1 when it is missed (2 when basedpyright fails).  ``--record`` writes
the figures the docs show (``docs/configuration/pyright.rst``) into
``docs/measured.json``.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_stubs import make_env, time_run  # noqa: E402

from tools import measured  # noqa: E402
from tools.checkers.run import basedpyright_command  # noqa: E402
from typing_pkg.stubgen import jax as jaxstubs  # noqa: E402

PACKAGES: Final = ("jax-stubs", "typing_pkg-stubs")
VARIANTS: Final = ("plain", "stubs")

DTYPES: Final = ("float32", "bfloat16", "float16", "int32", "int8", "uint8")
CREATE: Final = (
    "jnp.ones((8, 8), dtype=jnp.{dt})",
    "jnp.zeros((8, 8), dtype=jnp.{dt})",
    "jnp.full((8, 8), 2, dtype=jnp.{dt})",
    "jnp.asarray(x0, dtype=jnp.{dt})",
)
ONE: Final = (
    "jnp.exp({a})", "jnp.log({a})", "jnp.sqrt({a})", "jnp.tanh({a})", "jnp.sin({a})",
    "jnp.abs({a})", "jnp.square({a})", "jnp.negative({a})", "jnp.floor({a})",
    "jnp.sum({a}, axis=0)", "jnp.mean({a}, axis=0)", "jnp.max({a}, axis=1)",
    "jnp.min({a}, axis=1)", "jnp.prod({a}, axis=0)", "jnp.std({a})", "jnp.argmax({a}, axis=0)",
    "jnp.cumsum({a}, axis=0)", "jnp.transpose({a})", "jnp.reshape({a}, (64,))",
    "jnp.expand_dims({a}, 0)", "jnp.sort({a}, axis=0)", "jnp.clip({a}, 0, 1)",
    "jnp.zeros_like({a})", "jnp.ones_like({a})", "jnp.round({a})",
)  # fmt: skip
TWO: Final = (
    "jnp.maximum({a}, {b})", "jnp.minimum({a}, {b})", "jnp.add({a}, {b})",
    "jnp.multiply({a}, {b})", "jnp.subtract({a}, {b})", "jnp.divide({a}, {b})",
    "jnp.where({a} > 0, {a}, {b})", "jnp.dot({a}, {b})", "jnp.matmul({a}, {b})",
    "jnp.concatenate([{a}, {b}], axis=0)", "jnp.stack([{a}, {b}])", "jnp.maximum({a}, 2)",
    "jnp.multiply({a}, 0.5)",
)  # fmt: skip
CALLS_PER_FUNCTION: Final = 12


def jnp_calls(n: int, seed: int = 0) -> list[str]:
    """The lines of ``n`` ``jnp`` calls in functions of 12, deterministic in ``seed``.

    Each function creates three arrays of drawn dtypes, then applies drawn
    functions to arrays of one dtype (two arrays of the same dtype, or an
    array and a Python scalar), so that every promotion is defined.  The
    calls are drawn in one sequence: ``jnp_calls(n)`` is a prefix of
    ``jnp_calls(2 * n)``.
    """
    rng = random.Random(seed)
    lines: list[str] = []
    done = function = 0
    while done < n:
        lines += ["", "", f"def f{function}(x0: float) -> None:"]
        names: dict[str, str] = {}  # variable -> dtype
        for index in range(CALLS_PER_FUNCTION):
            if done == n:
                break
            if index < 3:
                dtype = rng.choice(DTYPES)
                call = rng.choice(CREATE).format(dt=dtype)
            else:
                a = rng.choice(list(names))
                dtype = names[a]
                same = [v for v, d in names.items() if d == dtype]
                if rng.random() < 0.4:
                    call = rng.choice(TWO).format(a=a, b=rng.choice(same))
                else:
                    call = rng.choice(ONE).format(a=a)
            var = f"v{index}"
            lines.append(f"    {var} = {call}")
            names[var] = dtype  # the dtype of the operands (enough to keep promotions defined)
            done += 1
        function += 1
    return lines


def program(lines: list[str]) -> str:
    """A module of the given function lines."""
    return "import jax.numpy as jnp\n" + "\n".join(lines) + "\n"


def site_packages_line() -> str:
    """This interpreter's site-packages (JAX, NumPy), for a ``.pth`` file of the environments.

    A plain path: the ``.pth`` files under it (the checkout's editable install,
    which puts ``stubs/`` on the path) are not processed.
    """
    return sysconfig.get_paths()["purelib"]


def make_environments(base: Path, stubs: Path) -> dict[str, Path]:
    """The plain environment and the one with the stubs: their interpreters."""
    pythons: dict[str, Path] = {}
    for variant in VARIANTS:
        python = make_env(base / variant, with_stubs=False)
        site = next((base / variant).glob("lib/python3*/site-packages"))
        (site / "bench_site_packages.pth").write_text(site_packages_line() + "\n")
        if variant == "stubs":
            for package in PACKAGES:
                shutil.copytree(stubs / package, site / package)
        pythons[variant] = python
    return pythons


def check_time(work: Path, files: list[str], python: Path) -> float:
    """CPU seconds of one basedpyright run on ``files`` of ``work`` with ``python``'s path."""
    config = {"include": files, "pythonVersion": "3.11", "typeCheckingMode": "standard"}
    (work / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    command = [*basedpyright_command(), "--pythonpath", str(python), "-p", str(work)]
    return time_run(command, work, 1)


def size_of(stubs: Path) -> tuple[int, float]:
    """The number of files and KiB of the stub packages."""
    files = [p for package in PACKAGES for p in (stubs / package).rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files) / 1024


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the figures and return 0 if the goal is met."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="rounds (medians kept)")
    parser.add_argument("--calls", type=int, default=500, help="N: programs of N and 2N calls")
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "corpus" / "realistic")
    parser.add_argument("--stubs", type=Path, help="a directory holding the generated stubs")
    parser.add_argument("--goal", type=float, default=1.5, help="corpus: with ÷ without, at most")
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args(argv)
    corpus = sorted(p for p in args.corpus.glob("*.py") if not p.name.startswith("test_"))
    if not corpus:
        parser.error(f"no program in {args.corpus}")
    n = args.calls

    with tempfile.TemporaryDirectory(prefix="bench-jax-stubs-") as tmp:
        base = Path(tmp)
        stubs = args.stubs
        if stubs is None:
            stubs = base / "generated"
            jaxstubs.write(stubs, "jax")
        files, kib = size_of(stubs)
        pythons = make_environments(base, stubs)
        work = {"corpus": base / "corpus", "N": base / "calls-n", "2N": base / "calls-2n"}
        for directory in work.values():
            directory.mkdir()
        for path in corpus:
            shutil.copy(path, work["corpus"] / path.name)
        # One seed: the program of N calls is the first N calls of the one of 2N.
        (work["N"] / "prog.py").write_text(program(jnp_calls(n)), encoding="utf-8")
        (work["2N"] / "prog.py").write_text(program(jnp_calls(2 * n)), encoding="utf-8")
        names = {"corpus": [p.name for p in corpus], "N": ["prog.py"], "2N": ["prog.py"]}

        rounds: list[dict[str, dict[str, float]]] = []
        for index in range(args.repeat):
            times: dict[str, dict[str, float]] = {}
            for what, directory in work.items():
                times[what] = {}
                for variant in VARIANTS:
                    try:
                        times[what][variant] = check_time(directory, names[what], pythons[variant])
                    except RuntimeError as exc:
                        print(f"basedpyright failed ({what}, {variant}): {exc}", file=sys.stderr)
                        return 2
            rounds.append(times)
            cells = "  ".join(
                f"{what} {t['stubs']:.2f}/{t['plain']:.2f}={t['stubs'] / t['plain']:.2f}"
                for what, t in times.items()
            )
            print(f"round {index + 1}: {cells}", flush=True)

    def median(what: str, variant: str) -> float:
        return statistics.median(r[what][variant] for r in rounds)

    ratios = [r["corpus"]["stubs"] / r["corpus"]["plain"] for r in rounds]
    ratio = statistics.median(ratios)
    print(f"\nbasedpyright, CPU seconds, medians of {args.repeat} interleaved rounds")
    print(f"corpus ({len(corpus)} files of {args.corpus.name}): without the stubs "
          f"{median('corpus', 'plain'):.2f} s, with {median('corpus', 'stubs'):.2f} s, "
          f"ratio {ratio:.2f}x (rounds {min(ratios):.2f}-{max(ratios):.2f})")  # fmt: skip
    marginal = {
        variant: statistics.median((r["2N"][variant] - r["N"][variant]) / n for r in rounds)
        for variant in VARIANTS
    }
    for what in ("N", "2N"):
        calls = n if what == "N" else 2 * n
        print(f"{calls} jnp calls: without {median(what, 'plain'):.2f} s, "
              f"with {median(what, 'stubs'):.2f} s, "
              f"ratio {median(what, 'stubs') / median(what, 'plain'):.2f}x")  # fmt: skip
    plain_ms, stubs_ms = 1000 * marginal["plain"], 1000 * marginal["stubs"]
    print(f"per extra jnp call: without {plain_ms:.2f} ms, with {stubs_ms:.2f} ms"
          + (f", ratio {stubs_ms / plain_ms:.1f}x" if plain_ms > 0 else ""))  # fmt: skip
    print(f"stubs on disk: {files} files, {kib:.0f} KiB ({', '.join(PACKAGES)})")
    ok = ratio <= args.goal
    print("goal met" if ok else f"goal missed: corpus ratio {ratio:.2f} > {args.goal}")
    if args.record:
        figures = {
            "bench_jax_stubs.corpus_ratio": f"{ratio:.2f}×",
            "bench_jax_stubs.corpus_rounds": f"{min(ratios):.2f}-{max(ratios):.2f}",
            "bench_jax_stubs.per_call_with": f"{stubs_ms:.2f} ms",
            "bench_jax_stubs.per_call_without": f"{plain_ms:.2f} ms",
            "bench_jax_stubs.size": f"{kib:,.0f} KiB in {files} files",
        }
        measured.record_all(figures, measured.script_command(__file__, argv))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
