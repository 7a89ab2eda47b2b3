"""Exporting a project's pinned commit into the sources directory with ``git archive``.

The commit comes from a git directory on this machine (``--mirror DIR``, bare
or with a work tree; ``--mirrors ROOT`` looks for each project's under
``ROOT``) or from a clone URL (``--url URL``, by default
``https://github.com/OWNER/NAME.git``), fetched into a temporary bare
repository.  The export goes to ``SOURCES/NAME/`` (written beside it, then
moved into place) with a ``.primer-commit`` file naming the commit; files whose
contents the git directory lacks (a snapshot may list its largest files
without holding them) are left out and named; a folder
that is already there is left alone unless ``--force`` is given.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import tarfile
from pathlib import Path

from tools.primer.projects import MARKER, Project

__all__ = ["PrepareError", "export", "find_mirror", "github_url"]


class PrepareError(RuntimeError):
    """An export that could not be made: the message says why in one line."""


def github_url(project: Project) -> str:
    """Return the project's clone URL on GitHub."""
    return f"https://github.com/{project.repo}.git"


def find_mirror(root: Path, project: Project) -> Path | None:
    """Return the git directory of ``project`` under ``root``, None if there is none."""
    # OWNER+NAME/repo is this machine's layout of mirrors; NAME is the project's name.
    owner, name = project.repo.split("/")
    for candidate in (
        root / f"{owner}+{name}",
        root / f"{owner}+{name}" / "repo",
        root / owner / f"{name}.git",
        root / owner / name,
        root / f"{project.name}.git",
        root / project.name,
    ):
        if _is_git_dir(candidate):
            return candidate
    return None


def _is_git_dir(path: Path) -> bool:
    return ((path / "HEAD").is_file() and (path / "objects").is_dir()) or (path / ".git").exists()


def _git(*args: str, timeout: float = 1800.0) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], capture_output=True, check=False, timeout=timeout)


def _failure(what: str, done: subprocess.CompletedProcess[bytes]) -> PrepareError:
    lines = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return PrepareError(f"{what}: {lines[-1] if lines else f'status {done.returncode}'}")


def _absent_files(git_dir: Path, commit: str) -> list[str]:
    """Return the paths of the commit's files whose contents the git directory lacks.

    A snapshot may list its largest files without holding them (a partial clone's
    missing blobs): ``git archive`` refuses the whole commit for one of them.
    """
    listed = _git("-C", str(git_dir), "ls-tree", "-r", "-z", commit)
    if listed.returncode:  # no such commit: git archive's own message says so
        return []
    blobs: dict[str, list[str]] = {}
    for entry in listed.stdout.decode("utf-8", errors="surrogateescape").split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            blobs.setdefault(parts[2], []).append(path)
    checked = subprocess.run(
        ["git", "-C", str(git_dir), "cat-file", "--batch-check"],
        input="\n".join(blobs).encode(),
        capture_output=True,
        check=False,
        timeout=600,
    )
    missing = [
        line.split()[0]
        for line in checked.stdout.decode().splitlines()
        if line.endswith(" missing")
    ]
    return sorted(path for sha in missing for path in blobs.get(sha, []))


def _archive(git_dir: Path, commit: str) -> tuple[bytes, list[str]]:
    """Return the commit's files as a tar archive, and the absent files left out of it."""
    done = _git("-C", str(git_dir), "archive", "--format=tar", commit)
    if not done.returncode:
        return done.stdout, []
    absent = _absent_files(git_dir, commit)
    if not absent:
        raise _failure(f"git archive {commit[:12]} in {git_dir}", done)
    excluded = [f":(exclude,literal){path}" for path in absent]
    done = _git("-C", str(git_dir), "archive", "--format=tar", commit, "--", ".", *excluded)
    if done.returncode:
        raise _failure(f"git archive {commit[:12]} in {git_dir}", done)
    return done.stdout, absent


def _fetch(url: str, commit: str, scratch: Path) -> Path:
    """Fetch ``commit`` from ``url`` into a bare repository at ``scratch``; return it."""
    shutil.rmtree(scratch, ignore_errors=True)
    done = _git("init", "--quiet", "--bare", str(scratch))
    if done.returncode:
        raise _failure("git init", done)
    done = _git("-C", str(scratch), "fetch", "--quiet", "--depth", "1", url, commit)
    if done.returncode:  # a server that refuses to fetch a commit by its id: everything
        done = _git("-C", str(scratch), "fetch", "--quiet", url, "+refs/heads/*:refs/heads/*")
        if done.returncode:
            raise _failure(f"git fetch {url}", done)
    return scratch


def export(
    project: Project,
    sources: Path,
    *,
    mirror: Path | None = None,
    url: str | None = None,
    force: bool = False,
) -> str:
    """Export the project's commit into ``sources/NAME``; return what was done, in a line."""
    target = sources / project.name
    if target.exists() and not force:
        marker = target / MARKER
        at = marker.read_text(encoding="utf-8").strip() if marker.is_file() else "unknown"
        state = "the pinned commit" if at == project.commit else f"commit {at}"
        return f"{project.name}: kept {target} ({state}; --force exports afresh)"
    sources.mkdir(parents=True, exist_ok=True)
    scratch = sources / f".{project.name}.fetch"
    partial = sources / f".{project.name}.part"
    try:
        if mirror is not None:
            data, absent = _archive(mirror, project.commit)
            origin = str(mirror)
        else:
            origin = url or github_url(project)
            data, absent = _archive(_fetch(origin, project.commit, scratch), project.commit)
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        with tarfile.open(fileobj=io.BytesIO(data)) as archive:
            archive.extractall(partial, filter="data")
        (partial / MARKER).write_text(project.commit + "\n", encoding="utf-8")
        shutil.rmtree(target, ignore_errors=True)
        partial.rename(target)
    except subprocess.TimeoutExpired as exc:
        raise PrepareError(f"{project.name}: git timed out ({exc.timeout:g} s)") from None
    except PrepareError as exc:
        raise PrepareError(f"{project.name}: {exc}") from None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(partial, ignore_errors=True)
    done = f"{project.name}: exported {project.commit[:12]} from {origin} into {target}"
    if absent:
        shown = ", ".join(absent[:3]) + (", …" if len(absent) > 3 else "")
        done += f" ({len(absent)} files the git directory lacks left out: {shown})"
    return done
