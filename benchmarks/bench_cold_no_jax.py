"""What does the plugin cost a cold run of a program that does not use JAX (JAX installed)?

Usage::

    python benchmarks/bench_cold_no_jax.py [--repeat 5] [--record]

The program annotates ``Array[float32]`` and ``Array[int8]`` (``typing_pkg``)
and imports neither JAX nor a library that does.  Each repetition checks it
cold (an empty cache directory) with the plugin and without it, the two taking
turns in fresh subprocesses; the script prints the processor time of each run's
``mypy.api.run`` call (the machine may be shared), the median ratio, and the
modules each configuration analysed (the cache's entries), of which JAX's.

Goal (issue 20, item 5; ``docs/performance.rst``): the plugin
loads JAX's modules only for a program that imports JAX: with the plugin, no
JAX module is analysed, and the median ratio stays at most 1.5 (the plugin's
own modules, NumPy's stubs for ``typing_pkg.typing``).  The exit status is 1
when either is missed.  ``--record`` writes the module counts and the median
ratio the docs show (``docs/performance.rst``) into ``docs/measured.json``.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools import measured  # noqa: E402

PROGRAM: Final = """\
from typing_pkg import Array, float32, int8


def scale(x: Array[float32], k: Array[int8]) -> Array[float32]:
    return x * k + 1.0


a: Array[float32]
b: Array[int8]
reveal_type(scale(a, b))
reveal_type(a / b)
"""
# In process on purpose (not tools.checkers.run): the child times only mypy.api.run.
RUN: Final = """\
import resource, sys
from mypy import api
before = resource.getrusage(resource.RUSAGE_SELF)
out, err, status = api.run(sys.argv[1:])
after = resource.getrusage(resource.RUSAGE_SELF)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{cpu:.3f}")
sys.exit(0 if status in (0, 1) and "INTERNAL ERROR" not in out + err else 2)
"""
GOAL: Final = 1.5


def _run(directory: Path, plugin: bool, k: int) -> tuple[float, int, int]:
    """One cold run: processor time, modules cached, JAX modules cached."""
    config = directory / f"mypy-{plugin}.ini"
    text = "[mypy]\n" + (f"plugins = mypy_plugin\nmypy_path = {ROOT}\n" if plugin else "")
    config.write_text(text, encoding="utf-8")
    cache = directory / f"cache-{plugin}-{k}"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(directory / "program.py"), f"--config-file={config}",
         f"--cache-dir={cache}", "--no-error-summary"],
        cwd=ROOT, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"mypy failed:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    metas = _cached_modules(cache)
    jax = [m for m in metas if m.partition("/")[0] in ("jax", "jaxlib")]
    return float(done.stdout.strip().splitlines()[-1]), len(metas), len(jax)


def _cached_modules(cache: Path) -> list[str]:
    """The modules a cache directory holds (files, or mypy 2's SQLite shards), as paths."""
    found: list[str] = []
    for version in cache.iterdir():
        if not version.is_dir():
            continue
        for path in version.rglob("*"):
            if path.suffix == ".db":
                with sqlite3.connect(path) as db:
                    found += [row[0] for row in db.execute("SELECT path FROM files2")]
            else:
                found.append(path.relative_to(version).as_posix())
    return [p for p in found if p.endswith((".meta.json", ".meta.ff"))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        (directory / "program.py").write_text(PROGRAM, encoding="utf-8")
        times: dict[bool, list[float]] = {True: [], False: []}
        modules: dict[bool, tuple[int, int]] = {}
        for k in range(args.repeat):
            for plugin in (False, True) if k % 2 == 0 else (True, False):
                cpu, count, jax = _run(directory, plugin, k)
                times[plugin].append(cpu)
                modules[plugin] = (count, jax)
    ratios = [a / b for a, b in zip(times[True], times[False], strict=True)]
    for plugin in (False, True):
        label = "with the plugin" if plugin else "mypy alone     "
        count, jax = modules[plugin]
        runs = ", ".join(f"{t:.2f}" for t in times[plugin])
        print(f"{label}: {count} modules ({jax} of JAX), processor time {runs} s")
    median = statistics.median(ratios)
    print(f"ratio (plugin / alone), per repetition: {', '.join(f'{r:.2f}' for r in ratios)}")
    print(f"median ratio {median:.2f} (goal: at most {GOAL}, no JAX module)")
    if args.record:
        figures = {
            "bench_cold_no_jax.jax_modules": f"{modules[True][1]}",
            "bench_cold_no_jax.modules_with": f"{modules[True][0]}",
            "bench_cold_no_jax.modules_without": f"{modules[False][0]}",
            "bench_cold_no_jax.ratio": f"{median:.1f}×",
        }
        measured.record_all(figures, measured.script_command(__file__))
    return 0 if median <= GOAL and modules[True][1] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
