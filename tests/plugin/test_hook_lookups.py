"""The hook lookups: answered by dictionaries, and asked again at each new build."""

from __future__ import annotations

from mypy.options import Options

from mypy_plugin import TypingPkgPlugin, names


def test_call_lookups_are_dictionaries_until_the_next_build() -> None:
    plugin = TypingPkgPlugin(Options())
    # The lookups mypy asks for every name are the dictionaries' own methods: no Python call.
    assert vars(plugin)["get_type_analyze_hook"] == plugin._type_hooks.get
    assert plugin.get_type_analyze_hook(names.JAX_ARRAY) is not None
    assert plugin.get_type_analyze_hook("builtins.int") is None
    # The call hooks join them once NumPy's arrays are promoted in the build ...
    assert "get_function_hook" not in vars(plugin)
    plugin._answer_calls_from_lookups()
    assert vars(plugin)["get_function_hook"] == plugin._found_functions.__getitem__
    assert vars(plugin)["get_method_hook"] == plugin._found_methods.__getitem__
    # ... and a new build (a daemon's next one) promotes again before answering from them.
    plugin._found_functions["f"] = None
    plugin.set_modules({})
    assert "get_function_hook" not in vars(plugin)
    assert "get_method_hook" not in vars(plugin)
    assert "f" not in plugin._found_functions
