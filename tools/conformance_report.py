"""Print how every rule set fares against its recorded truth file, cell by cell.

Usage: python tools/conformance_report.py [--details]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tools.conformance.compare import compare
from tools.conformance.truthfile import read_truth
from typing_pkg.rules import names

TRUTH = Path(__file__).resolve().parents[1] / "truth"


def main() -> int:
    """Compare each built-in rule set with its truth file and print the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--details", action="store_true", help="list mismatches too")
    args = parser.parse_args()
    ok = True
    for name in names():
        report = compare(name, read_truth(TRUTH / f"{name}.csv"))
        print(report.details() if args.details else report.summary())
        ok = ok and report.ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
