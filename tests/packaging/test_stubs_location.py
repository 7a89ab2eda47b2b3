"""Where ``typing-pkg stubs`` reads and writes: the checkout's ``stubs/``, or ``--out``.

An installed copy is simulated here by pointing the generator at a
``site-packages`` of its own; ``test_installed.py`` runs a real wheel.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from envs import ROOT

from typing_pkg import stubgen
from typing_pkg.cli import main


def _snapshot(root: Path) -> dict[Path, bytes]:
    """Return the files under ``root`` and their bytes (not those of the linked package)."""
    return {
        p: p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and "typing_pkg" not in p.relative_to(root).parts
    }


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Return a ``site-packages`` where ``typing_pkg`` seems installed, with its stubs."""
    site = tmp_path / "site-packages"
    site.mkdir()
    (site / "typing_pkg").symlink_to(ROOT / "typing_pkg", target_is_directory=True)
    stubgen.write(site)
    monkeypatch.setattr(stubgen.paths, "SOURCE", site / "typing_pkg")
    return site


def test_a_checkout_keeps_its_stubs_beside_the_package() -> None:
    assert stubgen.in_checkout()
    assert stubgen.stubs_dir() == ROOT / "stubs"


def test_an_installed_copy_has_its_stub_package_beside_it(site: Path) -> None:
    assert not stubgen.in_checkout()
    assert stubgen.stubs_dir() == site
    (site / "pyproject.toml").write_text('[project]\nname = "another"\n')
    assert not stubgen.in_checkout()
    with pytest.raises(ValueError, match="give a directory"):
        stubgen.write()


def test_an_installed_copy_checks_its_stubs_and_writes_only_with_out(
    site: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stubs", "--check"]) == 0
    assert capsys.readouterr().out == f"the stubs under {site} are fresh\n"
    before = _snapshot(tmp_path)
    assert main(["stubs"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.split(": error: ")[1] == (
        "typing_pkg is installed, not run from its source checkout: "
        "give the directory to write the stubs to with --out DIR "
        f"(the installed stub package is {site / stubgen.PACKAGE})\n"
    )
    assert _snapshot(tmp_path) == before
    assert main(["stubs", "--out", str(tmp_path / "typings")]) == 0
    assert (tmp_path / "typings" / stubgen.PACKAGE / "typing.pyi").is_file()


def test_the_checkout_stubs_hold_the_default_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _snapshot(ROOT / "stubs")
    assert main(["stubs", "--rules", "numpy"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--out DIR" in err
    assert _snapshot(ROOT / "stubs") == before


def test_check_out_names_the_command_that_regenerates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["stubs", "--check", "--rules", "numpy", "--dir", str(tmp_path)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        f"{len(stubgen.generate('numpy'))} generated stub file(s) under {tmp_path} are stale; "
        f"regenerate them with: python -m typing_pkg stubs --rules numpy --out {tmp_path}"
    )
    assert f"+++ {stubgen.PACKAGE}/typing.pyi" in err  # a diff from nothing


def test_an_unwritable_out_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "file").write_text("")
    assert main(["stubs", "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert err.split(": error: ")[1].startswith(f"cannot write the stubs under {tmp_path}/file: ")
    assert len(err.splitlines()) == 1
