"""How fast is ``typing_pkg.promote_types`` next to NumPy's and JAX's?

Usage::

    python benchmarks/bench_promote_types.py [--repeat 7] [--number 200000] [--record]

Times ``typing_pkg.promote_types(float32, int8)`` (marker inputs, default
``jax`` rules), ``numpy.promote_types(np.float32, np.int8)`` and
``jax.numpy.promote_types(jnp.float32, jnp.int8)`` in one process, for a few
representative pairs: ``timeit`` with several repeats, best of them, reported
per call.  The goal: faster than JAX and within 2× of NumPy (ratio
ours/numpy ≤ 2, ours/jax < 1); the exit status is 1 when it is missed.

A second table times ``typing_pkg.result_dtype`` (the JAX function table:
``result_dtype("jax.numpy.add", float32, int8)``, …) against
``promote_types`` on the same operands, interleaved round by round in one
run.  A lookup is a few dict lookups like a promotion, but its signature
(operands, ``*more``, ``**options``) costs Python some argument packing:
the goal is a ratio ≤ 2.
JAX runs on the CPU with ``jax_enable_x64`` on, the configuration the
``jax`` rules reproduce.  ``--record`` writes the figures the docs show
(``docs/performance.rst``) into ``docs/measured.json``.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import timeit
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # benchmark the checkout, installed or not

from tools import measured  # noqa: E402

# result_dtype calls (function, operands, options) and the promote_types pair beside them.
LOOKUPS: tuple[tuple[str, tuple[str, ...], dict[str, str]], ...] = (
    ("jax.numpy.add", ("float32", "int8"), {}),
    ("jnp.exp", ("int8",), {}),
    ("jax.numpy.mean", ("bfloat16",), {}),
    ("jax.Array.sum", ("uint8",), {}),
    ("jax.numpy.zeros", (), {"dtype": "bfloat16"}),
)

# (ours, numpy / jax attribute): pairs every library can promote.
PAIRS: tuple[tuple[str, str], ...] = (
    ("float32", "int8"),
    ("uint32", "int32"),
    ("int16", "uint8"),
    ("complex64", "float64"),
    ("bool_", "float16"),
    ("bfloat16", "float32"),
)


def best_per_call(
    func: Callable[[Any, Any], object], a: Any, b: Any, number: int, repeat: int
) -> float:
    """Return the best seconds per ``func(a, b)`` call over ``repeat`` runs of ``number`` calls."""
    func(a, b)  # warm caches (ours memoises, JAX's lru_caches too)
    names = {"func": func, "a": a, "b": b}  # timeit's loop calls func directly: no wrapper frame
    return min(timeit.repeat("func(a, b)", globals=names, number=number, repeat=repeat)) / number


def _np_type(np: Any, ml_dtypes: Any, name: str) -> Any:
    if name == "bfloat16":
        return ml_dtypes.bfloat16
    return getattr(np, name)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and return 0 if the goal is met."""
    parser = argparse.ArgumentParser(description="promote_types: ours vs NumPy vs JAX")
    parser.add_argument("--repeat", type=int, default=7, help="timing runs per case (best kept)")
    parser.add_argument("--number", type=int, default=200_000, help="calls per run (JAX: 1/10)")
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args(argv)

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ["JAX_ENABLE_X64"] = "1"  # what the 'jax' rules reproduce
    import jax
    import jax.numpy as jnp
    import ml_dtypes
    import numpy as np

    import typing_pkg as tp

    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, jax {jax.__version__}; "
        f"best of {args.repeat}, ns per call"
    )
    header = f"{'pair':<20} {'ours':>8} {'numpy':>8} {'jax':>8} {'ours/numpy':>11} {'ours/jax':>9}"
    print(header)
    print("-" * len(header))
    vs_numpy: list[float] = []
    vs_jax: list[float] = []
    per_call: list[float] = []  # ours and NumPy's, seconds
    per_call_jax: list[float] = []
    for a, b in PAIRS:
        ours_a, ours_b = getattr(tp, a), getattr(tp, b)
        np_a, np_b = _np_type(np, ml_dtypes, a), _np_type(np, ml_dtypes, b)
        jnp_a, jnp_b = getattr(jnp, a), getattr(jnp, b)
        # Check that all three agree before timing anything.
        ours_result = tp.promote_types(ours_a, ours_b).name.rstrip("_")
        np_result = np.promote_types(np_a, np_b).name
        jax_result = jnp.promote_types(jnp_a, jnp_b).name
        ours = best_per_call(tp.promote_types, ours_a, ours_b, args.number, args.repeat)
        nump = best_per_call(np.promote_types, np_a, np_b, args.number, args.repeat)
        jax_number = max(args.number // 10, 1)
        jaxt = best_per_call(jnp.promote_types, jnp_a, jnp_b, jax_number, args.repeat)
        vs_numpy.append(ours / nump)
        vs_jax.append(ours / jaxt)
        per_call += [ours, nump]
        per_call_jax.append(jaxt)
        note = "" if ours_result == jax_result else f"  (ours {ours_result}, jax {jax_result})"
        note += "" if np_result == jax_result else f"  (numpy {np_result})"
        print(
            f"{a + ' ' + b:<20} {ours * 1e9:8.0f} {nump * 1e9:8.0f} {jaxt * 1e9:8.0f} "
            f"{ours / nump:11.2f} {ours / jaxt:9.3f}{note}"
        )
    geo_numpy = math.exp(sum(map(math.log, vs_numpy)) / len(vs_numpy))
    geo_jax = math.exp(sum(map(math.log, vs_jax)) / len(vs_jax))
    print("-" * len(header))
    print(f"{'geometric mean':<47} {geo_numpy:11.2f} {geo_jax:9.3f}")
    timed = _lookups(tp, args.number, args.repeat)
    lookups = [lookup / promote for lookup, promote in timed]
    met = max(vs_numpy) <= 2.0 and max(vs_jax) < 1.0 and max(lookups) <= 2.0
    print(
        "goal (ours/numpy <= 2 and ours/jax < 1 for every pair, result_dtype/promote_types "
        f"<= 2 for every lookup): {'met' if met else 'MISSED'}"
    )
    if args.record:
        key = "bench_promote_types."
        figures = {
            key + "vs_numpy_mean": f"{geo_numpy:.2f}×",
            key + "vs_jax": f"{min(vs_jax):.2f}–{max(vs_jax):.2f}× "
            f"({1 / max(vs_jax):.0f} to {1 / min(vs_jax):.0f} times faster)",
            key + "per_call": f"{min(per_call) * 1e9:.0f}–{max(per_call) * 1e9:.0f} ns",
            key + "per_call_jax": f"{min(per_call_jax) * 1e6:.1f}–{max(per_call_jax) * 1e6:.1f} µs",
            key + "lookup_ratio": f"{min(lookups):.1f}–{max(lookups):.1f}×",
            key + "lookup_ns": f"{statistics.median(t[0] for t in timed) * 1e9:.0f} ns",
            key + "promote_ns": f"{statistics.median(t[1] for t in timed) * 1e9:.0f} ns",
        }
        measured.record_all(figures, measured.script_command(__file__, argv))
    return 0 if met else 1


def _lookups(tp: Any, number: int, repeat: int) -> list[tuple[float, float]]:
    """Time result_dtype against promote_types, interleaved; print them and return the
    seconds per call of each lookup and of its promotion."""
    print()
    header = f"{'result_dtype call':<44} {'lookup':>8} {'promote':>8} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    timed: list[tuple[float, float]] = []
    for function, operands, options in LOOKUPS:
        markers = tuple(getattr(tp, name) for name in operands)
        pair = (markers * 2)[:2] if markers else (tp.float32, tp.float32)
        # the call written out, as user code writes it (no argument unpacking)
        names = {f"a{i}": marker for i, marker in enumerate(markers)}
        arguments = ", ".join(["n", *names, *(f"{k}={v!r}" for k, v in options.items())])
        lookup_args = {"f": tp.result_dtype, "n": function, **names}
        promote_args = {"f": tp.promote_types, "a": pair[0], "b": pair[1]}
        tp.result_dtype(function, *markers, **options)  # load the table, warm the caches
        tp.promote_types(*pair)
        lookup = promote = float("inf")
        for _ in range(repeat):  # interleaved: each round times both
            lookup = min(
                lookup, timeit.timeit(f"f({arguments})", globals=lookup_args, number=number)
            )
            promote = min(promote, timeit.timeit("f(a, b)", globals=promote_args, number=number))
        timed.append((lookup / number, promote / number))
        shown = f"{function}({', '.join(operands)}{', ' if operands and options else ''}"
        shown += ", ".join(f"{k}={v}" for k, v in options.items()) + ")"
        print(
            f"{shown:<44} {lookup / number * 1e9:8.0f} {promote / number * 1e9:8.0f} "
            f"{lookup / promote:7.2f}"
        )
    return timed


if __name__ == "__main__":
    sys.exit(main())
