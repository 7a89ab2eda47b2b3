"""The wheel ships the runtime package, the plugin and the stub package; the sdist rebuilds it."""

from __future__ import annotations

import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest
from envs import ROOT, Dist, dist_fixture  # noqa: F401  (the fixture `dist`)

from typing_pkg.stubgen import PACKAGE

pytestmark = pytest.mark.slow


def _files(wheel: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(wheel) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def test_the_wheel_holds_the_packages_and_the_stub_package(dist: Dist) -> None:
    files = _files(dist.wheel)
    info = next(name.split("/")[0] for name in files if name.endswith(".dist-info/METADATA"))
    assert {name.split("/")[0] for name in files} == {"typing_pkg", "mypy_plugin", PACKAGE, info}
    for package in ("typing_pkg", "mypy_plugin"):
        sources = [p for p in (ROOT / package).rglob("*") if p.suffix in (".py", ".typed")]
        for path in sources:
            assert files[path.relative_to(ROOT).as_posix()] == path.read_bytes()
    assert "typing_pkg/py.typed" in files and "mypy_plugin/py.typed" in files
    # The stub package sits at the top level, where checkers look for it.
    stubs = sorted((ROOT / "stubs" / PACKAGE).iterdir())
    assert [p.name for p in stubs] == [
        "__init__.pyi",
        "dtypes.pyi",
        "promotion.pyi",
        "py.typed",
        "typing.pyi",
    ]
    for path in stubs:
        assert files[f"{PACKAGE}/{path.name}"] == path.read_bytes()


def test_the_wheel_declares_the_script_and_the_extras(dist: Dist) -> None:
    files = _files(dist.wheel)
    info = next(name.rsplit("/", 1)[0] for name in files if name.endswith(".dist-info/METADATA"))
    scripts = files[f"{info}/entry_points.txt"].decode()
    assert "[console_scripts]\ntyping-pkg = typing_pkg.cli:main" in scripts
    metadata = Parser().parsestr(files[f"{info}/METADATA"].decode())
    with (ROOT / "pyproject.toml").open("rb") as file:
        extras = tomllib.load(file)["project"]["optional-dependencies"]
    assert sorted(metadata.get_all("Provides-Extra") or []) == sorted(extras)
    required = metadata.get_all("Requires-Dist") or []
    for extra, requirements in extras.items():
        assert len([r for r in required if r.endswith(f"extra == '{extra}'")]) == len(requirements)


def test_the_sdist_builds_the_same_wheel(dist: Dist) -> None:
    assert _files(dist.wheel_from_sdist) == _files(dist.wheel)
