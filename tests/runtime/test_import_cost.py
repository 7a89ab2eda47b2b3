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


def test_the_plugin_reads_jax_s_dtype_names_without_numpy() -> None:
    # every cold mypy run reads them: importing NumPy for it cost some 0.2 s of processor time
    code = (
        "import sys\n"
        "from mypy_plugin.jax_array import scalar_type_markers\n"
        "names = {'float32': True, 'int_': True, 'bfloat16': True, 'floating': True,\n"
        "         'e': True, 'pi': True, 'finfo': True, 'zeros': False}\n"
        "print(sorted(scalar_type_markers(names).items()))\n"
        "print(sorted({'numpy', 'ml_dtypes', 'jax'} & set(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    markers, heavy = out.stdout.strip().splitlines()
    # jnp.e is the constant, not float16 (NumPy's code "e"); jnp.zeros is a function
    assert markers == str(
        [("bfloat16", "bfloat16"), ("float32", "float32"), ("floating", "floating"),
         ("int_", "int64")]
    )  # fmt: skip
    assert heavy == "[]"
