"""An editable install (``pip install -e .``) is visible to mypy and pyright.

The checkers run from a directory outside the checkout, so that they find
``typing_pkg`` only through the environment: an import hook (setuptools'
default editable mode) would hide it from them, a ``.pth`` path entry does
not.  mypy is this interpreter's, pointed at the environment with
``--python-executable`` (and loading the plugin from this interpreter, as a
mypy installed elsewhere does); basedpyright is pointed at it by interpreter
and by ``venvPath``, the two ways pyright finds an environment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from envs import PROGRAM, ROOT, basedpyright, mypy, mypy_revealed, new_env, pip

from typing_pkg.stubgen import PACKAGE

FLOAT32 = "typing_pkg.typing.Array[typing_pkg.dtypes.float32]"


@pytest.mark.slow
def test_an_editable_install_is_visible_to_mypy_and_basedpyright(tmp_path: Path) -> None:
    python = new_env(tmp_path / "env")
    pip(python, "install", "--no-deps", "-e", ROOT)
    work = tmp_path / "work"
    work.mkdir()
    (work / "prog.py").write_text(PROGRAM)

    # Without the plugin, mypy reads the checkout's stub package (plain signatures).
    done = mypy(work, python, "--config-file", "", "-v")
    assert f"{ROOT / 'stubs' / PACKAGE / 'typing.pyi'}" in done.stderr
    assert mypy_revealed(done.stdout) == ["typing_pkg.typing.Array[Any]"]
    (work / "mypy.ini").write_text("[mypy]\nplugins = mypy_plugin\n")
    done = mypy(work, python, "--config-file", "mypy.ini")
    assert mypy_revealed(done.stdout) == [FLOAT32], done.stdout
    (work / "mypy.ini").unlink()

    # The overloads of the stub package give pyright the promoted dtype.
    assert basedpyright(work, "--pythonpath", str(python)) == (["Array[float32]"], [])
    config = {"venvPath": str(tmp_path), "venv": "env", "typeCheckingMode": "standard"}
    (work / "pyrightconfig.json").write_text(json.dumps(config))
    assert basedpyright(work) == (["Array[float32]"], [])
