"""How much does ``import typing_pkg`` cost, and does it pull in heavy libraries?

Usage::

    python benchmarks/bench_import.py [--runs 15] [--record]

Each measurement is a fresh interpreter (``python -c ...``, wall time of the
whole process, best of ``--runs``): ``pass`` (the interpreter alone),
``import typing_pkg``, ``import typing_pkg.cli`` (what the command line
loads) and ``import numpy``.  Prints each time, the ratios to the bare
interpreter and to NumPy, and which heavy modules (``numpy``, ``ml_dtypes``,
``jax``, ``jaxlib``, ``torch``, ``tensorflow``, ``mypy``) are in
``sys.modules`` after ``import typing_pkg``: there should be none.  The
exit status is 1 when one is.  ``--record`` writes the ratios the docs show
(``docs/performance.rst``) into ``docs/measured.json``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools import measured  # noqa: E402

HEAVY = ("numpy", "ml_dtypes", "jax", "jaxlib", "torch", "tensorflow", "mypy")
CASES = {
    "python -c pass": "pass",
    "import typing_pkg": "import typing_pkg",
    "import typing_pkg.cli": "import typing_pkg.cli",
    "import numpy": "import numpy",
}


def _env() -> dict[str, str]:
    """Return the environment of the child interpreters: the checkout importable."""
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": str(ROOT) + (os.pathsep + path if path else "")}


def best_time(code: str, runs: int) -> float:
    """Return the best wall time in seconds of ``python -c code`` over ``runs`` fresh processes."""
    best = float("inf")
    env = _env()
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True, env=env, cwd=ROOT)
        best = min(best, time.perf_counter() - start)
    return best


def heavy_modules() -> list[str]:
    """Return the heavy modules that ``import typing_pkg`` leaves in ``sys.modules``."""
    code = f"import sys, typing_pkg\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, env=_env(), cwd=ROOT,
        capture_output=True, text=True,
    )  # fmt: skip
    return done.stdout.split()


def main(argv: list[str] | None = None) -> int:
    """Run the measurements, print them and return 1 if a heavy module was imported."""
    parser = argparse.ArgumentParser(description="import cost of typing_pkg")
    parser.add_argument("--runs", type=int, default=15, help="fresh processes per case (best kept)")
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args(argv)
    times = {label: best_time(code, args.runs) for label, code in CASES.items()}
    bare, numpy = times["python -c pass"], times["import numpy"]
    print(f"python {sys.version.split()[0]}; best of {args.runs} fresh processes, wall time")
    print(f"{'case':<24} {'ms':>7} {'÷ bare':>7} {'÷ numpy':>8} {'extra ms':>9}")
    for label, seconds in times.items():
        print(
            f"{label:<24} {seconds * 1e3:7.1f} {seconds / bare:7.2f} {seconds / numpy:8.2f} "
            f"{(seconds - bare) * 1e3:9.1f}"
        )
    heavy = heavy_modules()
    print(f"heavy modules after 'import typing_pkg': {', '.join(heavy) if heavy else 'none'}")
    if args.record:
        ours, cli = times["import typing_pkg"], times["import typing_pkg.cli"]
        extra = (ours - bare) * 1e3
        figures = {
            "bench_import.vs_bare": f"≈ {ours / bare:.1f}× (about {extra:.0f} ms more)",
            "bench_import.vs_numpy": f"{ours / numpy:.2f}×",
            "bench_import.cli_vs_numpy": f"≈ {cli / numpy:.2f}×",
        }
        measured.record_all(figures, measured.script_command(__file__, argv))
    return 1 if heavy else 0


if __name__ == "__main__":
    sys.exit(main())
