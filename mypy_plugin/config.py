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

import configparser
import difflib
import hashlib
import importlib.util
import sys
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Final, NoReturn

from typing_pkg.rules import ALIASES, DEFAULT, RuleSet, UnknownRulesError, get_rules, names

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

INI_SECTION: Final = "typing_pkg"
TOML_SECTION: Final = "tool.typing_pkg"
OPTION: Final = "promotion"
OPTIONS: Final = (OPTION,)
"""Every option of the section."""


class ConfigError(Exception):
    """The configuration names no usable rule set; the message is one line for the user."""


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    """Return `` (did you mean "x"?)`` for the choice ``word`` is close to, or ``""``.

    A choice equal to ``word`` but for case and ``_``/``-`` wins over difflib's.
    """
    choices = list(choices)
    folded = {c.casefold().replace("_", "-"): c for c in choices}
    close = folded.get(word.casefold().replace("_", "-").strip())
    if close is None:
        found = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
        close = found[0] if found else None
    return "" if close is None else f' (did you mean "{close}"?)'


def _squashed(section: str) -> str:
    """Return a section name without case, ``tool.``/``tool:``, spaces and punctuation."""
    text = section.strip().casefold()
    for prefix in ("tool.", "tool:"):
        text = text.removeprefix(prefix)
    return "".join(c for c in text if c.isalnum())


_OURS: Final = _squashed(INI_SECTION)


def _looks_like_ours(section: str) -> bool:
    """Whether a section not spelt as ours was meant to be (``[typing-pkg]``, ``[typingpkg]``)."""
    if section.strip().casefold().startswith("mypy"):
        return False  # mypy's own, [mypy-typing_pkg.*] included
    squashed = _squashed(section)
    return squashed == _OURS or difflib.SequenceMatcher(None, squashed, _OURS).ratio() >= 0.85


def _one_line(text: str) -> str:
    return " ".join(text.split())


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
        """Read the settings from mypy's configuration file (defaults when there is none).

        Raise ``ConfigError`` for a file that cannot be read, an unknown option
        in the section, or a section spelt nearly as the plugin's.
        """
        if not config_file:
            return cls()
        import tomllib  # only TOML files need it; mypy imports it for them too

        path = Path(config_file)
        try:
            if path.suffix == ".toml":
                return cls._from_toml(path)
            return cls._from_ini(path)
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error) as error:
            raise ConfigError(f"cannot read {config_file}: {_one_line(str(error))}") from None

    @classmethod
    def _from_toml(cls, path: Path) -> PluginConfig:
        import tomllib

        with path.open("rb") as file:
            data = tomllib.load(file)
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            return cls(section=TOML_SECTION)  # not a pyproject.toml mypy could read either
        for key in data:
            if key != "tool" and _looks_like_ours(key):
                raise ConfigError(
                    f"[{key}] in {path.name} is not read by the typing_pkg plugin; "
                    f"did you mean [{TOML_SECTION}]?"
                )
        for key in tool:
            if key != INI_SECTION and _looks_like_ours(key):
                raise ConfigError(
                    f"[tool.{key}] in {path.name} is not read by the typing_pkg plugin; "
                    f"did you mean [{TOML_SECTION}]?"
                )
        table = tool.get(INI_SECTION, {})
        if not isinstance(table, dict):
            raise ConfigError(f"[{TOML_SECTION}] must be a table")
        _check_options(table, TOML_SECTION, path)
        value = table.get(OPTION, DEFAULT)
        if not isinstance(value, str):
            raise ConfigError(
                f'[{TOML_SECTION}] {OPTION} must be a string such as "{DEFAULT}", got {value!r}'
            )
        return cls(value.strip(), TOML_SECTION)

    @classmethod
    def _from_ini(cls, path: Path) -> PluginConfig:
        # mypy's own parser keeps inline comments; ours drops "; …" and "# …"
        # so that "promotion = jax  ; the default" reads as "jax".  No section
        # is special (a [DEFAULT] section's keys would show up in ours).
        parser = configparser.RawConfigParser(
            inline_comment_prefixes=(";", "#"), default_section="\0"
        )
        with path.open(encoding="utf-8") as file:
            parser.read_file(file)
        for section in parser.sections():
            if section != INI_SECTION and _looks_like_ours(section):
                raise ConfigError(
                    f"[{section}] in {path.name} is not read by the typing_pkg plugin; "
                    f"did you mean [{INI_SECTION}]?"
                )
        if not parser.has_section(INI_SECTION):
            return cls()
        _check_options(parser.options(INI_SECTION), INI_SECTION, path)
        if not parser.has_option(INI_SECTION, OPTION):
            return cls()
        value = parser.get(INI_SECTION, OPTION).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1].strip()
        return cls(value, INI_SECTION)

    def load_rules(self) -> RuleSet:
        """Return the configured rule set, or raise ``ConfigError`` saying why it is unusable.

        A custom rule set is the user's code: whatever importing or building it
        raises becomes the one line of the ``ConfigError``.
        """
        setting = f'[{self.section}] {OPTION} = "{self.promotion}"'
        try:
            rules = get_rules(self.promotion)
        except UnknownRulesError as error:
            if ":" in self.promotion:
                raise ConfigError(f"{setting}: {_one_line(str(error))}") from None
            valid = [n for n in names() if ":" not in n]
            hint = _did_you_mean(self.promotion, [*valid, *ALIASES])
            raise ConfigError(
                f"{setting} is not a rule set{hint}; valid names: {', '.join(valid)}"
            ) from None
        except (Exception, SystemExit) as error:  # the user's module, run by the import
            raise ConfigError(f"{setting}: cannot load the rule set: {_cause(error)}") from None
        problem = check_rules(rules)
        if problem is not None:
            raise ConfigError(f"{setting}: the rule set is not usable: {problem}")
        return rules


def _check_options(options: Iterable[str], section: str, path: Path) -> None:
    for option in options:
        if option not in OPTIONS:
            hint = _did_you_mean(option, OPTIONS)
            raise ConfigError(
                f'[{section}] in {path.name}: unknown option "{option}"{hint}; '
                f'the only option is "{OPTION}"'
            )


def _cause(error: BaseException) -> str:
    """Return ``Type: message (raised at file:line)`` on one line."""
    if isinstance(error, SystemExit):
        text = f"it called sys.exit({error.code!r})"
    else:
        text = f"{type(error).__name__}: {_one_line(str(error))}"
    import typing_pkg

    ours = (str(Path(typing_pkg.__file__).parent), str(Path(__file__).parent), "<")
    frames = traceback.extract_tb(error.__traceback__)
    outside = [f for f in frames if not f.filename.startswith(ours) and f.lineno is not None]
    if outside:
        text += f" (raised at {outside[-1].filename}:{outside[-1].lineno})"
    return text


def check_rules(rules: RuleSet) -> str | None:
    """Return what makes ``rules`` unusable by the plugin, or ``None``.

    The plugin builds ``Array[<marker>]`` from the names a rule set gives: every
    one must be a marker, every Python scalar kind must be mapped.
    """
    from typing_pkg.dtypes import BY_NAME
    from typing_pkg.rules import PY_SCALARS

    name = getattr(rules, "name", None)
    if not isinstance(name, str) or not name:
        return f"its name is {name!r}, not a non-empty string"
    try:
        types, array_types, scalars = rules.types, tuple(rules.array_types), dict(rules.scalars)
    except Exception as error:  # a user's RuleSet subclass: its properties are code
        return f"reading its types raised {_cause(error)}"
    for group, found in (("types", types), ("array_types", array_types)):
        unknown = [t for t in found if t not in BY_NAME]
        if unknown:
            return f"its {group} name {', '.join(map(repr, unknown))}, not markers"
    missing = [k for k in PY_SCALARS if scalars.get(k) not in BY_NAME]
    if missing:
        return f"its scalars do not map {', '.join(missing)} to markers"
    return None


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
