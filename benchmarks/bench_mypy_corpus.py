"""What does the mypy plugin cost on real JAX code, cold and warm?

Usage::

    python benchmarks/bench_mypy_corpus.py [--repeat 5] [--corpus tests/corpus/realistic]
        [--edit vae.py] [--goal 1.10] [--option allow_redefinition_new=True ...] [--record]

Checks a copy of the realistic corpus (``tests/corpus/realistic``: JAX
programs as users write them, unannotated or annotated ``jax.Array``) with
mypy in two configurations, both with ``check_untyped_defs = True``:

* ``without``: mypy alone (JAX's own stubs and annotations);
* ``with``: the same plus ``plugins = mypy_plugin`` (the default ``jax``
  rules; ``jax.Array`` identified with ``Array[Any]``, JAX's functions typed
  from the table, call-site specialisation of the program's functions).

Three scenarios, each run of each configuration in a fresh subprocess:

* ``cold``: an empty cache directory (JAX's modules, the standard library,
  NumPy's stubs and the corpus all analysed from source; the cache written);
* ``warm``: the same command again, with the cache of the cold run and the
  files unchanged (everything read from the cache);
* ``edited``: a line appended to one file of the copy (``--edit``, a module
  level assignment, so that its interface changes), then the same command
  again (that module checked again, the rest from the cache).

mypy runs in the benchmark's temporary directory, as in a user's project
(from the checkout, mypy would read the checkout's ``typing_pkg`` sources as
the user's own code, before the stub package ``typing_pkg-stubs``).  What is
timed is the CPU time of the ``mypy.api.run`` call (plugin loading
included, the interpreter's start and ``import mypy`` not: they are the same
with or without the plugin), CPU rather than wall time because the machine
may be shared.  The two configurations take turns at each scenario of each
round, each with its own copy of the corpus and its own cache, so that a
busy machine slows both alike.  Each round gives one ratio per scenario
(with ÷ without); the figure reported is the median over ``--repeat``
rounds, with the median times.

The plugin's and typing_pkg's modules are byte-compiled first (as in an
installed package), and a round during which a file of the checkout's
``mypy_plugin``, ``typing_pkg`` or ``stubs`` changed (someone editing the
checkout: the cache of the configuration with the plugin is then stale) is
run again.

``--option NAME=VALUE`` adds a line to both configurations (for instance
``allow_redefinition_new=True`` with ``local_partial_types=True``, to
compare mypy's own handling of rebinding with the plugin's).

Goal (issue 12): with ÷ without ≤ 1.10 (``--goal``) cold and warm; the exit
status is 1 when one is missed (2 when mypy fails).  *edited* is reported, not
a goal: checking the edited module again re-runs the plugin's specialisations
of its functions and loads the JAX function table (``typing_pkg.api``), work
mypy alone does not do (about 0.1 s on ``vae.py``).

``--record`` writes the table the docs show (``docs/performance.rst``) into
``docs/measured.json``: for each scenario the median times, the median ratio
and the range of the rounds' ratios.
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tools import measured  # noqa: E402

SCENARIOS: Final = ("cold", "warm", "edited")
GOALS: Final = ("cold", "warm")
"""The scenarios the goal is about (issue 12: cold and warm cache)."""
CONFIGURATIONS: Final = ("without", "with")

# In process on purpose (not tools.checkers.run): the child times only mypy.api.run.
_RUNNER: Final = """
import sys, time
from mypy import api
start = time.process_time()
out, err, status = api.run(sys.argv[1:])
print(time.process_time() - start)
sys.stderr.write(out[-2000:] + err[-2000:])
sys.exit(0 if status in (0, 1) else 3)
"""
"""A corpus of real programs may have mypy errors (status 1): only a crash is a failure."""


def _config(directory: Path, plugin: bool, options: list[str]) -> Path:
    config = directory / ("with.ini" if plugin else "without.ini")
    lines = ["[mypy]", "check_untyped_defs = True", "python_version = 3.11", *options]
    if plugin:
        lines.insert(1, "plugins = mypy_plugin")
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return config


def _mypy_cpu(config: Path, cache: Path, corpus: Path) -> float:
    """Run mypy on ``corpus`` in a fresh process; return the CPU seconds of the check."""
    done = subprocess.run(
        [sys.executable, "-c", _RUNNER, f"--config-file={config}", f"--cache-dir={cache}",
         "--no-error-summary", str(corpus)],
        cwd=config.parent, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        print(f"mypy failed ({config.stem} the plugin):\n{done.stderr}", file=sys.stderr)
        raise SystemExit(2)
    return float(done.stdout.strip().splitlines()[-1])


def measure_round(
    directory: Path, source: Path, edit: str, configs: dict[str, Path]
) -> dict[str, dict[str, float]]:
    """One round: ``{scenario: {configuration: CPU seconds}}``, configurations taking turns."""
    corpora: dict[str, Path] = {}
    caches: dict[str, Path] = {}
    for name in CONFIGURATIONS:
        corpora[name] = directory / f"corpus-{name}" / source.name
        caches[name] = directory / f"cache-{name}"
        shutil.rmtree(corpora[name].parent, ignore_errors=True)
        shutil.rmtree(caches[name], ignore_errors=True)
        shutil.copytree(source, corpora[name])
    times: dict[str, dict[str, float]] = {}
    for scenario in SCENARIOS:
        times[scenario] = {}
        for name in CONFIGURATIONS:
            if scenario == "edited":
                with (corpora[name] / edit).open("a", encoding="utf-8") as file:
                    file.write("\n_BENCH_EDITED = 1\n")
            times[scenario][name] = _mypy_cpu(configs[name], caches[name], corpora[name])
    return times


WATCHED: Final = ("mypy_plugin", "typing_pkg", "stubs")
"""What the configuration with the plugin reads besides the corpus and JAX."""


def _state() -> dict[Path, int]:
    """The modification times of the watched files (a change makes a round stale)."""
    return {
        path: path.stat().st_mtime_ns
        for folder in WATCHED
        for path in (ROOT / folder).rglob("*.py*")
        if "__pycache__" not in path.parts
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and return 0 if the goal is met."""
    parser = argparse.ArgumentParser(description="mypy plugin cost on the realistic corpus")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (median kept)")
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "corpus" / "realistic")
    parser.add_argument("--edit", default="vae.py", help="the file edited for 'edited'")
    parser.add_argument("--goal", type=float, default=1.10, help="with ÷ without, at most")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE",
        help="a mypy option added to both configurations",
    )  # fmt: skip
    parser.add_argument("--record", action="store_true", help=measured.RECORD_HELP)
    args = parser.parse_args(argv)
    source = args.corpus.resolve()
    if not (source / args.edit).is_file():
        parser.error(f"{source / args.edit} is not a file")

    rounds: list[dict[str, dict[str, float]]] = []
    with tempfile.TemporaryDirectory(prefix="bench-mypy-corpus-") as tmp:
        directory = Path(tmp)
        configs = {
            name: _config(
                directory, name == "with", [o.replace("=", " = ", 1) for o in args.option]
            )
            for name in CONFIGURATIONS
        }
        for folder in ("mypy_plugin", "typing_pkg"):
            compileall.compile_dir(ROOT / folder, quiet=2)
        index = 0
        while len(rounds) < args.repeat:
            before = _state()
            times = measure_round(directory, source, args.edit, configs)
            if _state() != before:
                print("round run again: the checkout changed meanwhile", flush=True)
                continue
            rounds.append(times)
            index += 1
            cells = "  ".join(
                f"{s} {t['with']:.2f}/{t['without']:.2f}={t['with'] / t['without']:.3f}"
                for s, t in times.items()
            )
            print(f"round {index}: {cells}", flush=True)

    files = len(list(source.glob("*.py")))
    options = "".join(f", {o}" for o in args.option)
    print(f"\n{source.name} ({files} files), check_untyped_defs{options}; CPU seconds of "
          f"mypy.api.run, median of {args.repeat} rounds")  # fmt: skip
    print(f"{'scenario':<8} {'without':>8} {'with':>8} {'with/without':>13} "
          f"{'(min-max)':>13}")  # fmt: skip
    ok = True
    figures: dict[str, str] = {}
    for scenario in SCENARIOS:
        without = statistics.median(r[scenario]["without"] for r in rounds)
        with_ = statistics.median(r[scenario]["with"] for r in rounds)
        ratios = [r[scenario]["with"] / r[scenario]["without"] for r in rounds]
        ratio = statistics.median(ratios)
        print(f"{scenario:<8} {without:>8.2f} {with_:>8.2f} {ratio:>13.3f} "
              f"{min(ratios):>6.3f}-{max(ratios):.3f}")  # fmt: skip
        if scenario in GOALS:
            ok &= ratio <= args.goal
        key = f"bench_mypy_corpus.{scenario}"
        figures[f"{key}_without"] = f"{without:.2g} s"
        figures[f"{key}_with"] = f"{with_:.2g} s"
        figures[f"{key}_ratio"] = f"{ratio:.2f}"
        figures[f"{key}_rounds"] = f"{min(ratios):.2f}–{max(ratios):.2f}"
    goals = " and ".join(GOALS)
    print(f"goal met ({goals})" if ok else f"goal missed: with/without <= {args.goal} {goals}")
    if args.record:
        measured.record_all(figures, measured.script_command(__file__, argv))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
