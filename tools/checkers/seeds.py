"""Warm mypy caches: JAX's modules analysed once, then copied into the caches of later runs.

A cold mypy run over a program that imports JAX spends most of its time on
JAX's ~450 modules (about 14 s of processor time here, against a second or
two for the program).  A *seed* is the cache directory of one run over
:data:`SEED_PROGRAM` (JAX's public modules, NumPy, typing_pkg) under a given
configuration; :func:`plant` copies it into a run's empty cache directory
before the run.  mypy decides by itself which cached modules are still valid
(their source, the options that affect them, the plugin's configuration data:
a module the seed holds under other rules is analysed again), so a planted
seed changes how long a run takes, never what it says; a test of mypy's cold
or incremental behaviour plants nothing.

A run gains from a seed when its configuration agrees with the seed's on the
options mypy keys its cache with: :data:`PLUGIN_CONFIG` (the plugin, JAX's
rules, mypy's default options) is the seed nearly every test run can use; a
run under other rules or options pays only the copy.  Seeds are kept per
process (:func:`seed`), keyed by the configuration's text and the
interpreter, in a temporary directory removed at exit.
"""

from __future__ import annotations

import atexit
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Final

from tools.checkers.run import mypy

__all__ = ["PLUGIN_CONFIG", "SEED_PROGRAM", "grow", "plant", "seed"]

SEED_PROGRAM: Final = """\
import jax
import jax.numpy
import jax.random
import jax.nn
import jax.lax
import jax.scipy.special
import numpy
import typing_pkg
import typing_pkg.typing
"""
"""What a seed holds: the modules nearly every checked program imports."""

PLUGIN_CONFIG: Final = "[mypy]\nplugins = mypy_plugin\n"
"""The seed most runs use: the plugin with JAX's rules, mypy's default options."""

_SEEDS: dict[tuple[str, str], Path] = {}
_HOME: list[Path] = []


def grow(where: Path, config: str, python: str = sys.executable) -> Path:
    """Run mypy over :data:`SEED_PROGRAM` under the configuration ``config`` (a ``mypy.ini``'s
    text) in ``where``; return its cache directory.  RuntimeError when mypy fails."""
    where.mkdir(parents=True, exist_ok=True)
    (where / "typing_pkg_seed_program.py").write_text(SEED_PROGRAM, encoding="utf-8")
    (where / "mypy.ini").write_text(config, encoding="utf-8")
    cache = where / "cache"
    ran = mypy(
        "--config-file", "mypy.ini", "--cache-dir", cache, "typing_pkg_seed_program.py",
        cwd=where, python=python,
    )  # fmt: skip
    if ran.status not in (0, 1):
        raise RuntimeError(
            f"mypy could not grow a seed (status {ran.status}): {ran.output[-2000:]}"
        )
    return cache


def seed(config: str, python: str = sys.executable) -> Path:
    """This process's seed for the configuration ``config`` (grown on first use)."""
    key = (config, python)
    if key not in _SEEDS:
        if not _HOME:
            home = Path(tempfile.mkdtemp(prefix="typing-pkg-seeds-"))
            atexit.register(shutil.rmtree, home, ignore_errors=True)
            _HOME.append(home)
        _SEEDS[key] = grow(_HOME[0] / str(len(_SEEDS)), config, python)
    return _SEEDS[key]


def plant(cache_dir: Path, config: str = PLUGIN_CONFIG, python: str = sys.executable) -> Path:
    """Copy the seed of ``config`` (a ``mypy.ini``'s text) into ``cache_dir``, which must not
    exist yet; return ``cache_dir``."""
    shutil.copytree(seed(config, python), cache_dir)
    return cache_dir
