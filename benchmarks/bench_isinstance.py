"""How much does ``isinstance(x, Array)`` cost next to ``isinstance(x, numpy.ndarray)``?

Usage::

    python benchmarks/bench_isinstance.py [--number 200000] [--repeat 15] [--record]

Times each check on the same float32 NumPy array in one run, after a warm-up
call (the first check of a type fills the caches), as the best of
``--repeat`` rounds of ``--number`` calls; the rounds of all checks are
interleaved so that a noisy machine slows them alike.  Prints the time per
call and the ratio to ``isinstance(x, np.ndarray)``.  Goals: ``Array``
within 1.5x, ``Array[float32]`` within 3x.  For context it also times a plain
``abc.ABC`` with ``numpy.ndarray`` registered (what ``Array.register``
alone would give), a metaclass ``__instancecheck__`` that only returns True
(the floor of any check written in Python: the interpreter's call of a Python
function), and the negative cases (a Python
float, a NumPy scalar), which take the slow path.  ``--record`` writes the
figures the docs show (``docs/performance.rst``) into ``docs/measured.json``.
"""

from __future__ import annotations

import abc
import argparse
import sys
import timeit
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # benchmark the checkout, installed or not

from tools import measured  # noqa: E402

# A plain ABC (no abstract methods) with ndarray registered.
_RegisteredABC = abc.ABCMeta("_RegisteredABC", (), {})
_RegisteredABC.register(np.ndarray)


def _always(instance: object) -> bool:
    return True


class _TrivialMeta(type):
    __instancecheck__ = staticmethod(_always)


class _Trivial(metaclass=_TrivialMeta):
    """The cheapest possible Python-level ``__instancecheck__`` (a static method, as Array's)."""


def setup() -> dict[str, Any]:
    """Return the names the timed statements use, checking that the checks answer right."""
    from typing_pkg import Array, float32, floating, int8

    x = np.zeros(3, np.float32)
    assert isinstance(x, Array) and isinstance(x, Array[float32])
    assert not isinstance(x, Array[int8]) and not isinstance(1.5, Array)
    return {
        "x": x,
        "np": np,
        "Array": Array,
        "Array_float32": Array[float32],
        "Array_floating": Array[floating],
        "Array_int8": Array[int8],
        "RegisteredABC": _RegisteredABC,
        "Trivial": _Trivial,
        "f": 1.5,
        "s": np.float32(1),
    }


BASELINE = "isinstance(x, np.ndarray)"
CASES = {
    BASELINE: BASELINE,
    "isinstance(x, Array)": "isinstance(x, Array)",
    "isinstance(x, Array[float32])": "isinstance(x, Array_float32)",
    "isinstance(x, Array[floating])": "isinstance(x, Array_floating)",
    "isinstance(x, Array[int8])  (False)": "isinstance(x, Array_int8)",
    "context: plain ABC, ndarray registered": "isinstance(x, RegisteredABC)",
    "context: trivial Python __instancecheck__": "isinstance(x, Trivial)",
    "negative: isinstance(1.5, Array)": "isinstance(f, Array)",
    "negative: isinstance(np.float32(1), Array)": "isinstance(s, Array)",
}
GOALS = {"isinstance(x, Array)": 1.5, "isinstance(x, Array[float32])": 3.0}


def measure(number: int, repeat: int) -> dict[str, float]:
    """Return the best time per call in seconds of each case, rounds interleaved."""
    env = setup()
    timers = {name: timeit.Timer(code, globals=env) for name, code in CASES.items()}
    for timer in timers.values():  # warm-up: fill the per-type and per-dtype caches
        timer.timeit(1000)
    best = dict.fromkeys(timers, float("inf"))
    for _ in range(repeat):
        for name, timer in timers.items():
            best[name] = min(best[name], timer.timeit(number) / number)
    return best


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print per-call times and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=200_000, help="calls per round")
    parser.add_argument("--repeat", type=int, default=15, help="rounds; the best counts")
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args(argv)
    best = measure(args.number, args.repeat)
    base = best[BASELINE]
    width = max(map(len, best))
    print(f"{'check':<{width}}  {'ns/call':>8}  {'ratio':>6}  goal")
    for name, seconds in best.items():
        goal = GOALS.get(name)
        met = goal is not None and seconds / base <= goal
        verdict = "" if goal is None else f"<= {goal}x " + ("ok" if met else "MISSED")
        print(f"{name:<{width}}  {seconds * 1e9:8.1f}  {seconds / base:5.2f}x  {verdict}")
    if args.record:
        measured.record_all(figures(best), measured.script_command(__file__, argv))
    return 0


def figures(best: dict[str, float]) -> dict[str, str]:
    """The figures the docs show: ratios to the baseline, and times rounded to 10 ns."""
    base = best[BASELINE]

    def ratio(*names: str) -> str:
        worst = max(names, key=best.__getitem__)  # a row of several checks shows the slowest
        return f"{best[worst] / base:.1f}×"

    def with_time(*names: str) -> str:
        return f"{ratio(*names)} (≈ {round(max(best[n] for n in names) * 1e9, -1):.0f} ns)"

    return {
        "bench_isinstance.baseline": f"{base * 1e9:.0f} ns",
        "bench_isinstance.array": with_time("isinstance(x, Array)"),
        "bench_isinstance.array_dtype": with_time(
            "isinstance(x, Array[float32])",
            "isinstance(x, Array[floating])",
            "isinstance(x, Array[int8])  (False)",
        ),
        "bench_isinstance.negative": ratio("negative: isinstance(1.5, Array)"),
        "bench_isinstance.registered_abc": ratio("context: plain ABC, ndarray registered"),
        "bench_isinstance.trivial": ratio("context: trivial Python __instancecheck__"),
    }


if __name__ == "__main__":
    raise SystemExit(main())
