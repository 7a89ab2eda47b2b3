"""The inferred NumPy scalars: the plugin's list (``mypy_plugin.names.INFERRED_SCALARS``) and the
classes ``typing_pkg/typing.py`` declares are one list, each class a subclass of the NumPy scalar
type of its marker, and each marker one NumPy has."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np

from mypy_plugin.names import INFERRED_SCALARS

TYPING = Path(__file__).resolve().parents[2] / "typing_pkg" / "typing.py"


def _declared() -> dict[str, str]:
    """Each ``Inferred*`` scalar class of typing.py with its NumPy base (``np.float64``)."""
    found: dict[str, str] = {}
    for node in ast.walk(ast.parse(TYPING.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name.startswith("Inferred"):
            numpy_bases = [ast.unparse(b) for b in node.bases if ast.unparse(b).startswith("np.")]
            if numpy_bases:
                found[f"typing_pkg.typing.{node.name}"] = numpy_bases[0]
    return found


def test_the_plugin_and_typing_py_list_the_same_classes() -> None:
    assert set(_declared()) == set(INFERRED_SCALARS.values())


def test_each_class_derives_from_its_markers_numpy_scalar() -> None:
    declared = _declared()
    for marker, name in INFERRED_SCALARS.items():
        numpy_name = "bool" if marker == "bool_" else marker
        assert declared[name] == f"np.{numpy_name}"
        assert np.dtype(numpy_name).name == numpy_name
