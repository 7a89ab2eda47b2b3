"""Record what the real array libraries do: write ``truth/<rules>.csv``.

Usage::

    python tools/make_truth.py                      # regenerate every rule set
    python tools/make_truth.py --rules numpy        # only some (repeatable)
    python tools/make_truth.py --check              # exit 1 if a file is out of date

Each rule set is observed in its own Python subprocess (JAX's configuration
must not leak from one mode into another); ``--jobs`` of them run at once.
``--check`` regenerates in memory, compares with the recorded files and prints
a short summary of the differences.  TensorFlow is not observed (it is not
installed): its file is transcribed from the design note by
``tools/transcribe_seeds.py``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRUTH_DIR = ROOT / "truth"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.conformance.backend import ObservationError  # noqa: E402
from tools.conformance.observe import RULE_SETS, observe_table_in_subprocess  # noqa: E402
from tools.conformance.truthfile import (  # noqa: E402
    Cell,
    format_truth,
    read_truth_file,
    write_truth,
)


def _cell_text(cell: Cell) -> str:
    """Return a short description of a cell's outcome."""
    if cell.result is not None:
        return cell.result + ("" if cell.weak is None else f" weak={int(cell.weak)}")
    return f"{cell.error_kind}: {cell.error}"


def diff_summary(
    old_meta: list[str], old_cells: list[Cell], new_meta: list[str], new_cells: list[Cell]
) -> list[str]:
    """Return lines summarizing how a regenerated truth table differs from the recorded one."""
    lines: list[str] = []
    removed_meta = [line for line in old_meta if line not in new_meta]
    added_meta = [line for line in new_meta if line not in old_meta]
    if removed_meta or added_meta:
        lines.append(f"header: {len(removed_meta)} line(s) removed, {len(added_meta)} added")
        lines += [f"  - {line}" for line in removed_meta[:5]]
        lines += [f"  + {line}" for line in added_meta[:5]]
    old = {(c.op, c.left, c.right): c for c in old_cells}
    new = {(c.op, c.left, c.right): c for c in new_cells}
    removed = [key for key in old if key not in new]
    added = [key for key in new if key not in old]
    changed = [key for key in new if key in old and old[key] != new[key]]
    if removed or added or changed:
        lines.append(f"cells: {len(changed)} changed, {len(added)} added, {len(removed)} removed")
        lines += [
            f"  {' '.join(k)}: {_cell_text(old[k])} -> {_cell_text(new[k])}" for k in changed[:10]
        ]
        lines += [f"  + {' '.join(k)}: {_cell_text(new[k])}" for k in added[:5]]
        lines += [f"  - {' '.join(k)}: {_cell_text(old[k])}" for k in removed[:5]]
    if not lines and list(old) != list(new):
        lines.append("cells: same contents in a different order")
    return lines


def check_file(path: Path, meta: list[str], cells: list[Cell]) -> list[str]:
    """Return why the truth file at ``path`` differs from ``meta`` and ``cells`` (empty: equal)."""
    if not path.exists():
        return ["does not exist"]
    if path.read_text(encoding="utf-8") == format_truth(meta, cells):
        return []
    try:
        old_meta, old_cells = read_truth_file(path)
    except ValueError as exc:
        return [f"cannot be read: {exc}"]
    return ["differs", *diff_summary(old_meta, old_cells, meta, cells)]


Observe = Callable[[str], tuple[list[str], list[Cell]]]
"""Observe one rule set (in a subprocess): its comment lines and cells."""


def observe_timed(
    observe: Observe, rules: str
) -> tuple[list[str], list[Cell], float] | ObservationError:
    """Observe one rule set; return its comment lines, cells and seconds taken."""
    start = time.perf_counter()
    try:
        meta, cells = observe(rules)
    except ObservationError as exc:
        return exc
    return meta, cells, time.perf_counter() - start


def record(
    rule_sets: Sequence[str],
    observe: Observe,
    truth_dir: Path,
    *,
    check: bool,
    jobs: int,
    script: str,
    show: Callable[[list[Cell]], None] | None = None,
) -> int:
    """Observe each rule set (``jobs`` at once) and write, check or ``show`` its cells.

    Writes ``truth_dir/<rules>.csv``, or with ``check`` compares with it and
    says how to regenerate (``python <script> --rules …``) what is out of
    date; returns the exit status.
    """
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        outcomes = [pool.submit(observe_timed, observe, rules) for rules in rule_sets]

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
        if show is not None:
            print(summary)
            show(cells)
            continue
        path = truth_dir / f"{rules}.csv"
        shown = path.relative_to(ROOT)
        if not check:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_truth(path, meta, cells)
            print(f"{summary} -> {shown}")
            continue
        problems = check_file(path, meta, cells)
        if not problems:
            print(f"{summary}: {shown} is up to date")
            continue
        status = 1
        outdated.append(rules)
        print(f"{summary}: {shown} {problems[0]}")
        print("".join(f"  {line}\n" for line in problems[1:]), end="")
    if outdated:
        options = " ".join(f"--rules {rules}" for rules in outdated)
        print(f"regenerate with: python {script} {options}")
    return status


def argument_parser(doc: str | None, rule_sets: Sequence[str]) -> argparse.ArgumentParser:
    """Return a recorder's parser, with the options every recorder takes."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument(
        "--rules",
        action="append",
        choices=rule_sets,
        metavar="NAME",
        help=f"rule set to observe (repeatable; default all): {', '.join(rule_sets)}",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="do not write; exit 1 if a recorded file differs from a fresh observation",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        help="rule sets observed at once, each in its own subprocess (default: 1)",
    )
    return parser


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    return argument_parser(__doc__, RULE_SETS).parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Regenerate or check the truth files and return the exit status."""
    args = parse_args(argv)
    rule_sets: list[str] = list(dict.fromkeys(args.rules or RULE_SETS))
    return record(
        rule_sets,
        observe_table_in_subprocess,
        TRUTH_DIR,
        check=args.check,
        jobs=args.jobs,
        script="tools/make_truth.py",
    )


if __name__ == "__main__":
    sys.exit(main())
