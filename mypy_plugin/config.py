"""The plugin's configuration: which rule set decides the promotions.

In ``mypy.ini``, ``.mypy.ini`` or ``setup.cfg``::

    [mypy]
    plugins = mypy_plugin

    [typing_pkg]
    promotion = numpy

in ``pyproject.toml``::

    [tool.mypy]
    plugins = ["mypy_plugin"]

    [tool.typing_pkg]
    promotion = "numpy"

``promotion`` names a rule set of ``typing_pkg.rules`` (``jax``, the default,
``jax-x64``, ``jax-strict``, ``numpy``, ``torch``, ``array-api``,
``tensorflow``) or a custom one by reference (``"mypackage.rules:MY_RULES"``,
a ``RuleSet`` instance importable by mypy).  It is the only option.

The section is read by :mod:`typing_pkg.config`, and ``typing-pkg stubs
--config FILE --out typings`` reads it from the same file, so that pyright
and Pylance, through the stubs, apply the rule set mypy applies.

Mistakes stop mypy
------------------

Anything the plugin cannot use stops mypy with one line and exit status 2,
the way mypy reports its own bad options, never with a traceback and never
by falling back to the default rules:

* a name that is not a rule set, with the one meant when it is close
  (``promotion = JAX``: did you mean "jax"?) and the valid names;
* a custom rule set that cannot be imported or built: the line names the
  setting and the cause (``LatticeError: not a lattice: int8 and int16 lie on
  a cycle …``, where it was raised);
* an option other than ``promotion`` in the section (``promotions = numpy``:
  did you mean "promotion"?);
* a section that looks like the plugin's but is spelt otherwise
  (``[typing-pkg]``, ``[typing_pkg ]``, ``[Typing_Pkg]``, ``[tool.typingpkg]``
  in ``pyproject.toml``, the ``pyproject.toml`` spelling ``[tool.typing_pkg]``
  in an INI file and the other way round): mypy would never read it.

Caches and the daemon
---------------------

The option and a fingerprint of the rule set's source files are part of
mypy's cache key (``report_config_data``): changing either re-checks every
module that can see an array (not the standard library or NumPy).

``dmypy run`` re-reads the configuration at every run and builds the
plugin again; when the rule set or its sources changed since the daemon
started, the plugin reports a new version to mypy and the daemon restarts
by itself (``Restarting: plugins changed``) before checking, so the new
rules apply.  ``dmypy check`` and ``dmypy recheck`` do not read the
configuration again: after changing ``promotion`` (or the rules' sources),
use ``dmypy run`` or ``dmypy restart``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from typing import Final, NoReturn

from typing_pkg.config import (
    INI_SECTION,
    OPTION,
    TOML_SECTION,
    ConfigError,
    ProjectConfig,
    check_rules,
)
from typing_pkg.rules import RuleSet

__all__ = [
    "INI_SECTION",
    "OPTION",
    "TOML_SECTION",
    "ConfigError",
    "PluginConfig",
    "check_rules",
    "fail",
    "fingerprint",
]

PluginConfig = ProjectConfig
"""The plugin's settings: :class:`typing_pkg.config.ProjectConfig`, read from mypy's
configuration file (``typing-pkg stubs --config`` reads the same section)."""


def fail(message: str) -> NoReturn:
    """Print one ``mypy: error:`` line and stop mypy (exit status 2), as mypy's own options do.

    A ``SystemExit`` passes through mypy's plugin loader without a traceback;
    in the daemon, the line reaches the client (the daemon streams its
    ``sys.stderr`` to it).
    """
    print(f"mypy: error: {message}", file=sys.stderr)
    raise SystemExit(2)


# The sources whose contents decide the plugin's answers besides its entry
# module (which mypy fingerprints itself): the rule sets and what they are
# built on, the rest of the plugin, and a custom rule set's own module.
_SOURCE_MODULES: Final = (
    "typing_pkg.dtypes",
    "typing_pkg.dtypelike",
    "typing_pkg.lattice",
    "typing_pkg.ops",
    "typing_pkg.promotion",
)
_SOURCE_PACKAGES: Final = ("typing_pkg.rules", "typing_pkg.api", "mypy_plugin")
"""Packages whose every module counts: the JAX function table (``typing_pkg.api``) is loaded
only when a hook needs it, so packages are found without being imported."""


def _module_file(name: str) -> Path | None:
    module = sys.modules.get(name)
    source = getattr(module, "__file__", None)
    return Path(source) if isinstance(source, str) else None


def _package_file(name: str) -> Path | None:
    """The ``__init__.py`` of a package, imported or not."""
    found = _module_file(name)
    if found is not None:
        return found
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    origin = None if spec is None else spec.origin
    return Path(origin) if isinstance(origin, str) else None


def fingerprint(rules: RuleSet, promotion: str = "") -> str:
    """Return a hash of the source files the rule set's answers come from, and the plugin's.

    ``promotion`` is the configured value: for a reference
    (``"package.module:ATTRIBUTE"``) the module holding the rule set counts too.
    """
    sources: dict[str, Path] = {}
    for package in _SOURCE_PACKAGES:
        init = _package_file(package)
        if init is not None:
            for path in init.parent.glob("*.py"):
                sources[f"{package}/{path.name}"] = path
    holders = [promotion.partition(":")[0]] if ":" in promotion else []
    for name in (*_SOURCE_MODULES, *(c.__module__ for c in type(rules).__mro__), *holders):
        found = _module_file(name)
        if found is not None:
            sources.setdefault(name, found)
    digest = hashlib.sha256()
    for key, path in sorted(sources.items()):
        digest.update(key.encode() + b"\0")
        try:
            digest.update(path.read_bytes())
        except OSError:
            digest.update(b"<unreadable>")
    return digest.hexdigest()
