"""The mypy plugin (``plugins = mypy_plugin``): not written yet.

It will infer the dtype of every operator's result from the rule sets in
``typing_pkg.rules``; until then this entry point registers no hooks.
"""

from __future__ import annotations

from mypy.plugin import Plugin

__all__ = ["plugin"]


class TypingPkgPlugin(Plugin):
    """Placeholder: no hooks yet."""


def plugin(version: str) -> type[Plugin]:
    """Return the plugin class for mypy ``version``."""
    return TypingPkgPlugin
