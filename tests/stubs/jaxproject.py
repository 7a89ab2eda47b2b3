"""A throw-away project that basedpyright reads through the typed JAX stubs.

The stubs of a JAX rule set go to the project's ``typings/`` (pyright's
``stubPath``), the program to ``program.py``, and ``pyrightconfig.json``
checks that one file in standard mode.  The interpreter (for JAX itself) is
not in the configuration: the command line names it (``--pythonpath``), or
the editor's ``python.pythonPath`` setting does for the language server.
"""

from __future__ import annotations

import json
from pathlib import Path

from typing_pkg.stubgen import jax as jaxstubs

__all__ = ["write_project"]


def write_project(directory: Path, program: str, rules: str = "jax") -> Path:
    """Write the project in ``directory`` (stubs for ``rules``); return the program's path."""
    stubs = directory / "typings"
    jaxstubs.write(stubs, rules)
    path = directory / "program.py"
    path.write_text(program, encoding="utf-8")
    config = {"include": [path.name], "stubPath": str(stubs), "typeCheckingMode": "standard"}
    (directory / "pyrightconfig.json").write_text(json.dumps(config), encoding="utf-8")
    return path
