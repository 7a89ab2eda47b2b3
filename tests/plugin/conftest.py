"""Settings for the plugin's pytest-mypy-plugins cases (``test_*.yml`` here).

pytest-mypy-plugins runs mypy in a subprocess with only the variables a case
sets; the cases set ``PYTHONPATH=.`` (made absolute against the rootdir with
``--mypy-modify-pythonpath``, turned on here) so that mypy can import
``mypy_plugin``, and the rootdir is on ``MYPYPATH`` for ``typing_pkg``.  It
also insists on finding a ``mypy`` executable on ``PATH``: the virtualenv's
bin directory is added when it is missing (the venv need not be activated).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

# Without pytest-mypy-plugins the .yml cases are not even collected: fail here
# instead (the test extra installs it).
import pytest_mypy_plugins  # noqa: F401


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config.option, "mypy_modify_pythonpath"):
        config.option.mypy_modify_pythonpath = True
    if shutil.which("mypy") is None:
        os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
