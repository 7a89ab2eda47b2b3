"""Importing typing_pkg must not import the array libraries."""

from __future__ import annotations

import subprocess
import sys


def test_import_loads_no_array_library() -> None:
    code = (
        "import sys, typing_pkg, typing_pkg.rules\n"
        "typing_pkg.promote_types('float32', 'int8')\n"
        "heavy = {'numpy', 'ml_dtypes', 'jax', 'torch', 'array_api_strict', 'mypy'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
