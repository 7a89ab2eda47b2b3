"""The distributions the packaging tests install: an sdist and wheels, built once per session."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest
from envs import ROOT, Dist, build_system, new_env, pip, run

# Calls a PEP 517 backend as a front end such as pip does: argv = backend, kind, outdir.
_BUILD = """\
import importlib, sys
backend = importlib.import_module(sys.argv[1])
kind, out = sys.argv[2], sys.argv[3]
needs = getattr(backend, f"get_requires_for_build_{kind}", lambda: [])()
assert not needs, f"the backend asks for more to build the {kind}: {needs}"
print(getattr(backend, f"build_{kind}")(out))
"""


@pytest.fixture(scope="session")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Dist:
    """Build the sdist, a wheel from the checkout and one from the sdist."""
    base = tmp_path_factory.mktemp("dist")
    backend, requires = build_system()
    python = new_env(base / "builder")
    pip(python, "install", *requires)

    def build(kind: str, source: Path, out: Path) -> Path:
        out.mkdir()
        done = run(python, "-c", _BUILD, backend, kind, out, cwd=source)
        return out / done.stdout.strip().splitlines()[-1]

    sdist = build("sdist", ROOT, base / "sdist")
    with tarfile.open(sdist) as archive:
        if hasattr(tarfile, "data_filter"):
            archive.extractall(base / "unpacked", filter="data")
        else:  # Python before 3.11.4; the archive is our own
            archive.extractall(base / "unpacked")
    (unpacked,) = (base / "unpacked").iterdir()
    return Dist(
        sdist,
        build("wheel", ROOT, base / "wheel"),
        build("wheel", unpacked, base / "wheel-from-sdist"),
    )
