"""Run the command line: ``python -m typing_pkg --help``."""

from __future__ import annotations

import sys

from typing_pkg.cli import main

if __name__ == "__main__":
    sys.exit(main())
