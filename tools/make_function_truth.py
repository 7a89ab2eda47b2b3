"""Record the result dtypes of JAX's functions: write ``truth/api/<rules>.csv``.

Usage::

    python tools/make_function_truth.py                    # every JAX configuration
    python tools/make_function_truth.py --rules jax        # only some (repeatable)
    python tools/make_function_truth.py --check            # exit 1 if a file is out of date
    python tools/make_function_truth.py --rules jax --only jax.numpy.mean --print

Each configuration of ``typing_pkg.api.RULES_OF_CONFIG`` (x64 off, x64 on,
strict promotion) is observed in its own Python subprocess
(``tools/conformance/functions.py`` says which calls are made); ``--jobs``
of them run at once.  ``--only`` observes some functions (full names or
prefixes such as ``jax.random.``) and, with ``--print``, prints the cells
instead of writing (a file is only ever written whole).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRUTH_DIR = ROOT / "truth" / "api"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.conformance.backend import ObservationError  # noqa: E402
from tools.conformance.functions import observe_functions_in_subprocess  # noqa: E402
from tools.conformance.truthfile import Cell, write_truth  # noqa: E402
from tools.make_truth import check_file  # noqa: E402
from typing_pkg.api import RULES_OF_CONFIG  # noqa: E402

RULES: tuple[str, ...] = tuple(RULES_OF_CONFIG.values())


def observe_timed(
    rules: str, only: list[str] | None
) -> tuple[list[str], list[Cell], float] | ObservationError:
    """Observe one configuration in a subprocess; return its comment lines, cells and seconds."""
    start = time.perf_counter()
    try:
        meta, cells = observe_functions_in_subprocess(rules, only)
    except ObservationError as exc:
        return exc
    return meta, cells, time.perf_counter() - start


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--rules",
        action="append",
        choices=RULES,
        metavar="NAME",
        help=f"configuration to observe, by rule-set name (repeatable): {', '.join(RULES)}",
    )
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    parser.add_argument("--jobs", type=int, default=1, help="configurations observed at once")
    parser.add_argument(
        "--only", action="append", metavar="NAME", help="observe only these functions (prefixes)"
    )
    parser.add_argument("--print", action="store_true", help="print the cells (with --only)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Regenerate or check the function truth files and return the exit status."""
    args = parse_args(argv)
    if args.only and not args.print:
        print("--only needs --print: truth files are written whole", file=sys.stderr)
        return 2
    rule_sets: list[str] = list(dict.fromkeys(args.rules or RULES))
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = [pool.submit(observe_timed, rules, args.only) for rules in rule_sets]
    status = 0
    outdated: list[str] = []
    for rules, future in zip(rule_sets, outcomes, strict=True):
        outcome = future.result()
        if isinstance(outcome, ObservationError):
            print(f"{rules}: FAILED: {outcome}".replace("\n", "\n  "))
            status = 1
            continue
        meta, cells, seconds = outcome
        kinds = Counter(cell.error_kind or "ok" for cell in cells)
        counts = ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items()))
        summary = f"{rules}: {len(cells)} cells ({counts}) in {seconds:.1f}s"
        if args.print:
            print(summary)
            for c in cells:
                shown = c.result if c.error_kind is None else f"{c.error_kind}: {c.error}"
                weak = "*" if c.weak else ""
                print(f"  {c.op}({c.left}{', ' + c.right if c.right else ''}) -> {shown}{weak}")
            continue
        path = TRUTH_DIR / f"{rules}.csv"
        shown_path = path.relative_to(ROOT)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_truth(path, meta, cells)
            print(f"{summary} -> {shown_path}")
            continue
        problems = check_file(path, meta, cells)
        if not problems:
            print(f"{summary}: {shown_path} is up to date")
            continue
        status = 1
        outdated.append(rules)
        print(f"{summary}: {shown_path} {problems[0]}")
        print("".join(f"  {line}\n" for line in problems[1:]), end="")
    if outdated:
        options = " ".join(f"--rules {rules}" for rules in outdated)
        print(f"regenerate with: python tools/make_function_truth.py {options}")
    return status


if __name__ == "__main__":
    sys.exit(main())
