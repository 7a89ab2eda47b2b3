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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TRUTH_DIR = ROOT / "truth" / "api"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tools.conformance.functions import observe_functions_in_subprocess  # noqa: E402
from tools.conformance.truthfile import Cell  # noqa: E402
from tools.make_truth import argument_parser, record  # noqa: E402
from typing_pkg.api import RULES_OF_CONFIG  # noqa: E402

RULES: tuple[str, ...] = tuple(RULES_OF_CONFIG.values())


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argument_parser(__doc__, RULES)
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
    only: list[str] | None = args.only
    return record(
        list(dict.fromkeys(args.rules or RULES)),
        lambda rules: observe_functions_in_subprocess(rules, only),
        TRUTH_DIR,
        check=args.check,
        jobs=args.jobs,
        script="tools/make_function_truth.py",
        show=_print_cells if args.print else None,
    )


def _print_cells(cells: list[Cell]) -> None:
    """Print one line a cell: the call and its outcome."""
    for c in cells:
        shown = c.result if c.error_kind is None else f"{c.error_kind}: {c.error}"
        weak = "*" if c.weak else ""
        print(f"  {c.op}({c.left}{', ' + c.right if c.right else ''}) -> {shown}{weak}")


if __name__ == "__main__":
    sys.exit(main())
