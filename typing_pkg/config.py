"""A project's choice of rule set: the ``[tool.typing_pkg]`` or ``[typing_pkg]`` section.

The mypy plugin reads it from mypy's configuration file
(:mod:`mypy_plugin.config` documents the forms and the mistakes it
refuses); ``typing-pkg stubs --config FILE`` reads it from the same file to
generate the stubs pyright reads, so that both checkers apply one rule set.
Every mistake is a ``ConfigError`` whose message is one line.
"""

from __future__ import annotations

import configparser
import difflib
import traceback
from collections.abc import Iterable
from pathlib import Path
from typing import Final, cast

from typing_pkg.rules import ALIASES, DEFAULT, RuleSet, UnknownRulesError, get_rules, names

__all__ = [
    "INI_SECTION",
    "OPTION",
    "TOML_SECTION",
    "ConfigError",
    "ProjectConfig",
    "check_rules",
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


class ProjectConfig:
    """A project's settings, as read from its configuration file (mypy's, for the plugin)."""

    # A plain class: a dataclass would compile code at every mypy start.
    __slots__ = ("promotion", "section")

    def __init__(self, promotion: str = DEFAULT, section: str = INI_SECTION) -> None:
        self.promotion = promotion
        """The configured rule set (a name or a ``module:ATTRIBUTE`` reference)."""
        self.section = section
        """Where it was (or would be) read: ``[typing_pkg]`` or ``[tool.typing_pkg]``."""

    @classmethod
    def from_file(cls, config_file: str | None) -> ProjectConfig:
        """Read the settings from a configuration file (defaults when there is none).

        Raise ``ConfigError`` for a file that cannot be read, an unknown option
        in the section, or a section spelt nearly as typing_pkg's.
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
    def _from_toml(cls, path: Path) -> ProjectConfig:
        import tomllib

        with path.open("rb") as file:
            data = tomllib.load(file)
        found: object = data.get("tool", {})
        if not isinstance(found, dict):
            return cls(section=TOML_SECTION)  # not a pyproject.toml mypy could read either
        tool = cast("dict[str, object]", found)  # a TOML table's keys are strings
        for key in data:
            if key != "tool" and _looks_like_ours(key):
                raise ConfigError(
                    f"[{key}] in {path.name} is not read by typing_pkg; "
                    f"did you mean [{TOML_SECTION}]?"
                )
        for key in tool:
            if key != INI_SECTION and _looks_like_ours(key):
                raise ConfigError(
                    f"[tool.{key}] in {path.name} is not read by typing_pkg; "
                    f"did you mean [{TOML_SECTION}]?"
                )
        found = tool.get(INI_SECTION, {})
        if not isinstance(found, dict):
            raise ConfigError(f"[{TOML_SECTION}] must be a table")
        table = cast("dict[str, object]", found)
        _check_options(table, TOML_SECTION, path)
        value = table.get(OPTION, DEFAULT)
        if not isinstance(value, str):
            raise ConfigError(
                f'[{TOML_SECTION}] {OPTION} must be a string such as "{DEFAULT}", got {value!r}'
            )
        return cls(value.strip(), TOML_SECTION)

    @classmethod
    def _from_ini(cls, path: Path) -> ProjectConfig:
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
                    f"[{section}] in {path.name} is not read by typing_pkg; "
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
    ours = (str(Path(__file__).parent), "<")
    frames = traceback.extract_tb(error.__traceback__)
    outside = [f for f in frames if not f.filename.startswith(ours) and f.lineno is not None]
    if outside:
        text += f" (raised at {outside[-1].filename}:{outside[-1].lineno})"
    return text


def check_rules(rules: RuleSet) -> str | None:
    """Return what makes ``rules`` unusable by the plugin and the stubs, or ``None``.

    Both build ``Array[<marker>]`` from the names a rule set gives: every one
    must be a marker, every Python scalar kind must be mapped.
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
