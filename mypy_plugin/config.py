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
``jax-x32``, ``jax-strict``, ``numpy``, ``torch``, ``array-api``,
``tensorflow``) or a custom one by reference (``"mypackage.rules:MY_RULES"``,
a ``RuleSet`` instance importable by mypy).  Anything else stops mypy with
one line naming the valid names and exit status 2.

The option and a fingerprint of the rule set's source files are part of
mypy's cache key (``report_config_data``): changing either re-checks every
module.  A running ``dmypy`` daemon reads the option when it starts: restart
it (``dmypy restart``) after changing the option.
"""

from __future__ import annotations

import configparser
import hashlib
import sys
from pathlib import Path
from typing import Final, NoReturn

from typing_pkg.rules import DEFAULT, RuleSet, UnknownRulesError, get_rules, names

__all__ = ["INI_SECTION", "OPTION", "TOML_SECTION", "ConfigError", "PluginConfig", "fingerprint"]

INI_SECTION: Final = "typing_pkg"
TOML_SECTION: Final = "tool.typing_pkg"
OPTION: Final = "promotion"


class ConfigError(Exception):
    """The configuration names no usable rule set; the message is one line for the user."""


class PluginConfig:
    """The plugin's settings, as read from mypy's configuration file."""

    # A plain class: a dataclass would compile code at every mypy start.
    __slots__ = ("promotion", "section")

    def __init__(self, promotion: str = DEFAULT, section: str = INI_SECTION) -> None:
        self.promotion = promotion
        """The configured rule set (a name or a ``module:ATTRIBUTE`` reference)."""
        self.section = section
        """Where it was (or would be) read: ``[typing_pkg]`` or ``[tool.typing_pkg]``."""

    @classmethod
    def from_file(cls, config_file: str | None) -> PluginConfig:
        """Read the settings from mypy's configuration file (defaults when there is none)."""
        if not config_file:
            return cls()
        import tomllib  # only TOML files need it; mypy imports it for them too

        path = Path(config_file)
        try:
            if path.suffix == ".toml":
                return cls._from_toml(path)
            return cls._from_ini(path)
        except (OSError, tomllib.TOMLDecodeError, configparser.Error) as error:
            raise ConfigError(f"cannot read {config_file}: {error}") from None

    @classmethod
    def _from_toml(cls, path: Path) -> PluginConfig:
        import tomllib

        with path.open("rb") as file:
            data = tomllib.load(file)
        table = data.get("tool", {}).get(INI_SECTION, {})
        if not isinstance(table, dict):
            raise ConfigError(f"[{TOML_SECTION}] must be a table")
        value = table.get(OPTION, DEFAULT)
        if not isinstance(value, str):
            raise ConfigError(
                f'[{TOML_SECTION}] {OPTION} must be a string such as "{DEFAULT}", got {value!r}'
            )
        return cls(value.strip(), TOML_SECTION)

    @classmethod
    def _from_ini(cls, path: Path) -> PluginConfig:
        # mypy's own parser keeps inline comments; ours drops "; …" and "# …"
        # so that "promotion = jax  ; the default" reads as "jax".
        parser = configparser.RawConfigParser(inline_comment_prefixes=(";", "#"))
        parser.read(path, encoding="utf-8")
        if not parser.has_option(INI_SECTION, OPTION):
            return cls()
        value = parser.get(INI_SECTION, OPTION).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1].strip()
        return cls(value, INI_SECTION)

    def load_rules(self) -> RuleSet:
        """Return the configured rule set, or raise ``ConfigError`` naming the valid names."""
        try:
            return get_rules(self.promotion)
        except UnknownRulesError as error:
            setting = f'[{self.section}] {OPTION} = "{self.promotion}"'
            if ":" in self.promotion:
                raise ConfigError(f"{setting}: {error}") from None
            raise ConfigError(
                f"{setting} is not a rule set; valid names: {', '.join(names())}"
            ) from None


def fail(message: str) -> NoReturn:
    """Print one ``mypy: error:`` line and stop mypy (exit status 2), as mypy's own options do.

    A ``SystemExit`` passes through mypy's plugin loader without a traceback.
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
_SOURCE_PACKAGES: Final = ("typing_pkg.rules", "mypy_plugin")


def _module_file(name: str) -> Path | None:
    module = sys.modules.get(name)
    source = getattr(module, "__file__", None)
    return Path(source) if isinstance(source, str) else None


def fingerprint(rules: RuleSet, promotion: str = "") -> str:
    """Return a hash of the source files the rule set's answers come from, and the plugin's.

    ``promotion`` is the configured value: for a reference
    (``"package.module:ATTRIBUTE"``) the module holding the rule set counts too.
    """
    sources: dict[str, Path] = {}
    for package in _SOURCE_PACKAGES:
        init = _module_file(package)
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
