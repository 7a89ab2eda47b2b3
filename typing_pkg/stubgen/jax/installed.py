"""The JAX the stubs are generated from: where it is installed, its version, the one tested."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Final

TESTED_JAX: Final = "0.10.2"
"""The JAX version the stubs are checked with: the one the project pins (``pyproject.toml``)
and CI installs, generates the stubs from and checks them against, cell by cell.  The stubs
are generated from the *installed* JAX's own stubs; another version gets them too, with a
note (:func:`write`'s caller, ``typing-pkg stubs --jax``), and ``--check`` finds them stale
when JAX changes (their header names the version)."""


def jax_dir() -> Path:
    """Return the installed ``jax`` package's directory (without importing it)."""
    spec = importlib.util.find_spec("jax")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError("jax is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def jax_version(root: Path | None = None) -> str:
    """Return the version of the JAX installed at ``root`` (default: the installed one)."""
    text = ((root or jax_dir()) / "version.py").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line.startswith("_version"):
            return line.split("=", 1)[1].strip().strip("\"'")
    return "unknown"
