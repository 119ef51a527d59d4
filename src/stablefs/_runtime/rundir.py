"""Output folders of runs: reuse, refusal, replacement, resumption and the lock
(``docs/DESIGN.md``, "Reruns").

A run (``stablefs compare``, ``stablefs reproduce``) writes into one folder. Its *configuration*
is everything that decides its results (data fingerprint, methods, sizes, protocol, seed, ...;
not ``--n-jobs`` nor the backend, which never change results), reduced to a sha256 key. Given a
folder and a configuration, :class:`RunFolder` decides, before any work and before the folder is
touched:

* **new**: no finished run there: compute; finished fits of an interrupted run with the same
  configuration are resumed (the runner keeps them in ``.partial/<key>/``, keyed by what
  decides a fit, so fits of different configurations can never mix);
* **reuse**: a finished run with the same configuration: nothing is refitted, the caller prints
  the saved summary;
* a finished run with another configuration is refused with one line naming ``--force``
  (replace it) and ``--out`` (another folder), and the settings that differ.

While a run writes, the folder is locked (``filelock`` on ``<folder>/.lock``): a second run into
the same folder is refused at once, so two runs can never mix their results. ``run.json`` is
written last; its ``"config_key"`` marks the run as finished. ``.partial`` is removed when the run
completes. A run that fails before it finished any fit removes the folder it created, so a
corrected rerun is never blocked.

**Ownership** (``docs/DESIGN.md``, "Safety"). A run writes only into a folder that stablefs
owns: one that does not exist yet, an empty one, one whose ``run.json`` names stablefs
(``"tool": "stablefs"``; or, for runs of earlier versions, a ``"config_key"`` and
``"versions"["stablefs"]``), or the folder of an unfinished run: nothing but ``.lock``,
``.partial`` and the files that run recorded in its journal ``.partial/files.json`` before
writing them. Any other non-empty folder (a project folder, ``.``) is refused in one line,
before any work, also with ``--force``. ``run.json`` lists every file the run wrote
(``"files"``, relative paths); ``--force`` deletes exactly those (runs of earlier versions
without that list: the fixed names of :data:`RUN_FILES` and the report's figures), and first
checks every one of them (inside the folder after resolving symbolic links, a file, its folder
writable): if any check fails nothing is deleted. While a run writes, every write into the
folder (:func:`stablefs._runtime.io.atomic_path`) is checked the same way: a path that leads out of
the folder through a symbolic link, or that would replace a file stablefs did not write, is
refused in one line. A failed run removes the files it wrote (never anything else) and keeps
its finished fits for the rerun. A failure to write (disk full, file-size limit, permission)
becomes one line naming the folder and the cause (:func:`write_failure`).
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import re
import stat
from pathlib import Path, PurePosixPath

from stablefs._errors import ResourceError, StablefsError

#: files and folders that runs of earlier versions wrote (runs without a ``"files"`` list in
#: ``run.json``); ``--force`` deletes only the files among them, never a whole folder
RUN_FILES = (
    "run.json", "selections.parquet", "selections.npz", "results.csv", "stability.csv",
    "frequencies.csv", "comparisons.csv", "baseline.csv", "permutation.csv",
    "nested.csv", "signature.csv", "signature.gmt", "report.html",
    "report.md", "figures",
    "claims.csv", "tables", ".partial",
    "cells", "cells.csv", "ranks.csv", "friedman.csv", "sets.csv", "timing.csv",
    "leaderboard.html",
)
#: the report figures of ``stablefs compare`` runs of earlier versions (``figures/NAME.png``
#: and ``.svg``)
LEGACY_FIGURES = ("stability", "performance", "tradeoff", "frequency", "selections", "fit_time")
#: files that file managers put into any folder; they do not make a folder foreign
_LITTER = frozenset({".DS_Store", "Thumbs.db", "desktop.ini"})
#: the journal of an unfinished run: the files it created, recorded before each was written
JOURNAL = "files.json"
TOOL = "stablefs"
_TEMP = re.compile(r"^\.(?P<name>.+)\.[0-9a-f]{8}\.tmp")


def config_key(config: dict) -> str:
    """sha256 of the canonical JSON form of a configuration."""
    text = json.dumps(config, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def file_sha256(path) -> str:
    """sha256 of a file's bytes (input fingerprints in ``run.json``)."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def names_stablefs(info) -> bool:
    """Whether a parsed ``run.json`` is one that stablefs wrote: ``"tool": "stablefs"``, or
    (earlier versions) a 64-digit ``"config_key"`` with ``"versions"["stablefs"]``."""
    if not isinstance(info, dict):
        return False
    if "tool" in info:
        return info["tool"] == TOOL
    key, versions = info.get("config_key"), info.get("versions")
    return (isinstance(key, str) and re.fullmatch(r"[0-9a-f]{64}", key) is not None
            and isinstance(versions, dict) and TOOL in versions)


def manifest(out_dir, paths) -> list[str]:
    """The ``"files"`` list of ``run.json``: every written path relative to ``out_dir``
    (POSIX form, sorted), ``run.json`` included."""
    root = Path(os.path.abspath(out_dir))
    flat: list = []
    for p in paths:
        flat.extend(p if isinstance(p, list | tuple) else [p])
    rel = {Path(os.path.abspath(p)).relative_to(root).as_posix() for p in flat}
    return sorted(rel | {"run.json"})


_CAUSES = {
    errno.ENOSPC: ("the disk is full", "free some space there"),
    errno.EFBIG: ("a file grew past the file-size limit (ulimit -f) or the file system's "
                  "largest file", "raise the limit"),
    errno.EACCES: ("permission denied", "restore write permission"),
    errno.EPERM: ("operation not permitted", "restore write permission"),
    errno.EROFS: ("the file system is read-only", "make it writable"),
    errno.EIO: ("an input/output error of the device", "check the device"),
    errno.ELOOP: ("a loop of symbolic links in the path", "remove the looping link"),
    errno.ENOTDIR: ("a file stands where a folder of the path belongs",
                    "move the file away"),
}
if hasattr(errno, "EDQUOT"):
    _CAUSES[errno.EDQUOT] = ("the disk quota is exceeded", "free some of your quota")


def os_error_code(exc: OSError) -> int | None:
    """The errno of ``exc``, also from messages such as pyarrow's ``"[errno 28] ..."``."""
    if isinstance(exc.errno, int):
        return exc.errno
    found = re.search(r"\[errno (\d+)\]", str(exc), flags=re.IGNORECASE)
    return int(found.group(1)) if found else None


def describe_os_error(exc: OSError) -> tuple[str, str]:
    """``(cause, what to do)`` of an ``OSError``, e.g. ``("the disk is full (ENOSPC)", "free
    some space there")``."""
    code = os_error_code(exc)
    cause, fix = _CAUSES.get(code, (None, None))
    if cause is None:
        cause = exc.strerror or str(exc) or type(exc).__name__
        fix = "fix the cause"
    if code in errno.errorcode:
        cause += f" ({errno.errorcode[code]})"
    return cause, fix


def write_failure(folder, exc: OSError, option: str = "--out") -> ResourceError:
    """One line for a failed write into a run folder: the folder, the cause, what to do.

    Finished fits stay in ``.partial`` and the failed file never replaced anything (atomic
    writes), so the message says that the same command resumes.
    """
    cause, fix = describe_os_error(exc)
    if os_error_code(exc) in (errno.ELOOP, errno.ENOTDIR):
        # a link loop or a file where a folder belongs: the rerun meets it again (and refuses
        # a .partial that is not a folder), so no resume is promised
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        return ResourceError(
            f"writing to {folder} failed: {cause}{where}; nothing was written through it: "
            f"{fix}, or choose a new {option} folder (the run cannot resume until then)."
        )
    return ResourceError(
        f"writing to {folder} failed: {cause}. {fix[0].upper()}{fix[1:]} or choose another "
        f"{option} folder; the same command then resumes (finished work is kept)."
    )


def _differences(old: dict, new: dict, limit: int = 3) -> str:
    """The settings that differ, as ``key old -> new`` (nested keys dotted)."""
    diffs: list[str] = []

    def walk(a, b, prefix):
        if isinstance(a, dict) and isinstance(b, dict) and prefix not in ("inputs",):
            for k in sorted(set(a) | set(b), key=str):
                walk(a.get(k), b.get(k), f"{prefix}.{k}" if prefix else str(k))
        elif a != b:
            if prefix in ("data_digest", "inputs"):
                diffs.append(f"{prefix} changed")
            else:
                diffs.append(f"{prefix} {_short(a)} -> {_short(b)}")

    walk(old, new, "")
    if not diffs:
        return ""
    more = f" and {len(diffs) - limit} more" if len(diffs) > limit else ""
    return "; ".join(diffs[:limit]) + more


def _short(value, width: int = 40) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else value
    return text if len(text) <= width else text[: width - 3] + "..."


def _nearest_existing(path: Path) -> Path:
    p = path.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


#: suffixes of the files stablefs stores in ``.partial`` (see :meth:`RunFolder._remove_partial`)
STORED_STATE_SUFFIXES = (".npz", ".json")
#: the fit files of stablefs versions before the pickle-free cache (never read, only removed)
_LEGACY_FIT = re.compile(r"[0-9a-f]{12}-\d{5}\.pkl")


def _is_stored_state(name: str) -> bool:
    """A file name stablefs writes into ``.partial``: ``*.npz``, ``*.json``, the hidden
    temporaries of interrupted writes of them (``.<name>.<hex>.tmp<suffix>`` keeps the
    suffix, :mod:`stablefs._runtime.io`), and the ``<slug>-<resample>.pkl`` fits that earlier
    versions left there."""
    return name.endswith(STORED_STATE_SUFFIXES) or bool(_LEGACY_FIT.fullmatch(name))


def _is_link(path: Path) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def link_on_path(root: Path, rel, *, itself: bool = True) -> Path | None:
    """The first component of ``root / rel`` below ``root`` that is a symbolic link (``rel``
    itself too when ``itself``), or ``None``. Deletion never goes through a link: a journal
    entry ``link/sub`` whose ``link`` leads out of the folder must not remove ``sub`` there."""
    rel = PurePosixPath(str(rel))
    parts = rel.parts if itself else rel.parts[:-1]
    here = Path(root)
    for part in parts:
        here = here / part
        if _is_link(here):
            return here
    return None


def _listing(names, limit: int = 3) -> str:
    names = sorted(names)
    more = f" and {len(names) - limit} more" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


class RunFolder:
    """The output folder of one run (see the module docstring).

    Parameters
    ----------
    path : path-like
        The folder (``--out``).
    config : dict
        JSON-serialisable configuration; its key identifies the run.
    force : bool
        Replace a finished run with another configuration (``--force``).
    option : str
        How the user names the folder, for messages (``"--out"``).

    Attributes
    ----------
    key : str
        sha256 of ``config``.
    state : {"new", "reuse"}
        Set by :meth:`check`.
    run_info : dict or None
        The finished run's ``run.json`` when ``state == "reuse"``.
    """

    def __init__(self, path, config: dict, *, force: bool = False, option: str = "--out"):
        self.path = Path(path)
        self.config = config
        self.key = config_key(config)
        self.force = force
        self.option = option
        self.state: str | None = None
        self.run_info: dict | None = None
        self._created = False
        self._lock = None
        self._root = Path(os.path.abspath(self.path))
        self._journal: dict = {"tool": TOOL, "files": [], "dirs": []}
        self._guard_token = None
        self._lock_created = False

    # -- before any work ------------------------------------------------------------------
    def check(self) -> str:
        """Decide reuse / new without touching the disk; refuse what cannot be done."""
        self.check_path()
        self.state = "new"
        info = self._finished_info()
        if info is not None:
            if info.get("config_key") == self.key:
                self.state = "reuse"
                self.run_info = info
            elif not self.force:
                what = _differences(info.get("config", {}), self.config)
                raise StablefsError(
                    f"{self.path} holds a finished run with another configuration"
                    + (f" ({what})" if what else "")
                    + f": add --force to replace it, or choose another {self.option} folder."
                )
            else:
                self._removal_plan(info)  # every check of --force, before any work
        return self.state

    def check_path(self) -> None:
        """Refuse a folder that is a file, that cannot be created or written, or that holds
        files stablefs did not write (see the module docstring)."""
        path = self.path
        if path.exists() and not path.is_dir():
            raise StablefsError(f"{self.option} {path} is a file, not a folder: choose a folder.")
        probe = _nearest_existing(path)
        if not probe.is_dir():
            raise StablefsError(
                f"{self.option} {path}: {probe} is a file, so the folder cannot be created."
            )
        if not os.access(probe, os.W_OK | os.X_OK):
            raise StablefsError(
                f"{self.option} {path}: {probe} is not writable: choose another {self.option} "
                "folder."
            )
        self.ownership()

    def ownership(self) -> str:
        """``"absent"``, ``"empty"``, ``"finished"`` (a run of stablefs) or ``"unfinished"``
        (only what an unfinished run of stablefs wrote); a foreign folder is refused."""
        state, foreign = self._ownership()
        if foreign and self._read_run_json() is not None:
            state, foreign = self._ownership()  # a run finished meanwhile: look again
        if foreign:
            raise StablefsError(
                f"{self.option} {self.path} is not empty and was not made by stablefs "
                f"({foreign}): nothing was written; choose a new {self.option} folder, e.g. "
                f"{self._suggestion()}."
            )
        return state

    def _suggestion(self) -> Path:
        for i in range(1, 1000):
            candidate = self.path / ("stablefs-run" if i == 1 else f"stablefs-run-{i}")
            if not os.path.lexists(candidate):
                return candidate
        return self.path / "stablefs-run-new"  # pragma: no cover

    def _ownership(self) -> tuple[str, str]:
        try:
            entries = set(os.listdir(self.path)) - _LITTER
        except FileNotFoundError:
            return "absent", ""
        except OSError as exc:
            raise StablefsError(
                f"{self.option} {self.path} cannot be read ({exc.strerror or exc}): choose "
                f"another {self.option} folder."
            ) from None
        if not entries:
            return "empty", ""
        if "run.json" in entries:
            info = self._read_run_json()
            if names_stablefs(info):
                return "finished", ""
            return "", "its run.json was not written by stablefs"
        for name in (".lock", ".partial"):
            try:
                mode = os.lstat(self.path / name).st_mode
            except FileNotFoundError:
                continue
            if not (stat.S_ISREG(mode) if name == ".lock" else stat.S_ISDIR(mode)):
                return "", f"{name} is not what stablefs writes there"
        journal = self._read_journal()
        files = set(journal["files"])
        dirs = set(journal["dirs"])
        strange = []
        for name in sorted(entries - {".lock", ".partial"}):
            if not self._own_entry(PurePosixPath(name), files, dirs):
                strange.append(name)
        if strange:
            return "", f"it holds {_listing(strange)}"
        return "unfinished", ""

    def _own_entry(self, rel: PurePosixPath, files: set, dirs: set) -> bool:
        """Whether ``rel`` (and everything under it) was recorded by an unfinished run."""
        path = self.path / rel
        try:
            mode = os.lstat(path).st_mode
            if stat.S_ISLNK(mode):
                return False
            if stat.S_ISDIR(mode):
                if rel.as_posix() not in dirs:
                    return False
                return all(self._own_entry(rel / child, files, dirs)
                           for child in os.listdir(path) if child not in _LITTER)
        except FileNotFoundError:  # removed meanwhile by the run that wrote it
            return True
        if rel.as_posix() in files:
            return True
        temp = _TEMP.match(rel.name)  # a temporary file of a journaled file (killed run)
        return bool(temp) and (rel.parent / temp.group("name")).as_posix() in files

    def _read_run_json(self):
        run_json = self.path / "run.json"
        from stablefs._runtime.stored import read_json

        try:
            if not run_json.is_file():
                return None
            return read_json(run_json)
        except (OSError, ValueError):
            return {}

    def _read_journal(self) -> dict:
        """The journal of an unfinished run (empty when there is none or it does not parse)."""
        empty = {"tool": TOOL, "files": [], "dirs": []}
        path = self.path / ".partial" / JOURNAL
        if _is_link(self.path / ".partial") or _is_link(path):
            return empty
        from stablefs._runtime.stored import read_json

        try:
            data = read_json(path)
        except (OSError, ValueError):
            return empty
        if not (isinstance(data, dict) and data.get("tool") == TOOL):
            return empty
        out = dict(empty)
        for key in ("files", "dirs"):
            items = data.get(key)
            if isinstance(items, list) and all(isinstance(i, str) for i in items):
                out[key] = [i for i in items if self._relative(i) is not None]
        return out

    def _finished_info(self) -> dict | None:
        info = self._read_run_json()
        if info is None:
            return None
        return info if isinstance(info, dict) else {}

    # -- --force: what to delete, checked before anything is deleted ------------------------
    @staticmethod
    def _relative(entry: str) -> PurePosixPath | None:
        rel = PurePosixPath(entry)
        if (not entry or "\\" in entry or rel.is_absolute()
                or any(part in ("..", ".", "") for part in rel.parts)):
            return None
        return rel

    def _removal_plan(self, info: dict) -> list[Path]:
        """The files ``--force`` deletes (those the old run's ``run.json`` lists), each
        checked; raises (deleting nothing) when any check fails."""
        if not names_stablefs(info):
            raise StablefsError(
                f"{self.path}/run.json was not written by stablefs, so --force deletes "
                f"nothing there: choose a new {self.option} folder."
            )
        listed = info.get("files")
        if listed is None:  # a run of an earlier version: its fixed names only
            listed = [n for n in RUN_FILES if n not in ("figures", "tables", ".partial")]
            listed += [f"figures/{n}.{ext}" for n in LEGACY_FIGURES for ext in ("png", "svg")]
        if not (isinstance(listed, list) and all(isinstance(e, str) for e in listed)):
            raise StablefsError(
                f"{self.path}/run.json lists its files in a form stablefs does not write, so "
                f"--force deletes nothing: choose a new {self.option} folder."
            )
        plan = []
        for entry in listed:
            if os.sep == "\\":  # reproduce wrote native separators on Windows
                entry = entry.replace("\\", "/")
            rel = self._relative(entry)
            if rel is None:
                self._refuse(entry, "leads out of the folder")
            plan.append(rel)
        partial = self.path / ".partial"
        if os.path.lexists(partial):
            if not partial.is_dir() or _is_link(partial):
                self._refuse(".partial", "is not a folder")
            for folder, dirnames, filenames in os.walk(partial):
                for name in dirnames + filenames:
                    full = Path(folder) / name
                    plan.append(PurePosixPath(full.relative_to(self.path).as_posix()))
        return self._checked(plan)

    def _refuse(self, entry: str, why: str):
        raise StablefsError(
            f"--force deletes nothing in {self.path}: {entry} {why}; remove the old run "
            f"yourself or choose a new {self.option} folder."
        )

    def _checked(self, plan) -> list[Path]:
        """Existing paths of ``plan``, each inside the folder after resolving symbolic links,
        not a folder (except under ``.partial``), in a writable folder."""
        real_root = self.path.resolve()
        out = []
        for rel in plan:
            path = self.path / rel
            if not os.path.lexists(path):
                continue
            try:
                real = path.resolve()
            except (OSError, RuntimeError):  # a loop of links (Python < 3.13: RuntimeError)
                self._refuse(rel.as_posix(), "is a loop of symbolic links")
            if not (real == real_root or real.is_relative_to(real_root)):
                self._refuse(rel.as_posix(), f"leads out of the folder (to {real})")
            link = link_on_path(self.path, rel, itself=False)
            if link is not None:
                self._refuse(rel.as_posix(), f"is reached through the symbolic link {link}")
            if path.is_dir() and not _is_link(path) and rel.parts[0] != ".partial":
                self._refuse(rel.as_posix(), "is a folder, not a file stablefs wrote")
            if not os.access(path.parent, os.W_OK | os.X_OK):
                self._refuse(rel.as_posix(), "is in a folder that is not writable")
            out.append(path)
        return out

    def _delete(self, paths: list[Path]) -> None:
        """Delete checked paths: files, then the folders they leave empty, ``run.json`` last
        (an interrupted deletion still leaves a folder that stablefs owns)."""
        stamp = self.path / "run.json"
        files = [p for p in paths if (_is_link(p) or not p.is_dir()) and p != stamp]
        for p in files:
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        self._remove_empty_dirs(paths)
        if stamp in paths:
            with contextlib.suppress(FileNotFoundError):
                stamp.unlink()

    def _remove_empty_dirs(self, paths) -> None:
        parents = set()
        for p in paths:
            q = p if (p.is_dir() and not _is_link(p)) else p.parent
            while q != self.path and self.path in q.parents:
                parents.add(q)
                q = q.parent
        for d in sorted(parents, key=lambda q: len(q.parts), reverse=True):
            if link_on_path(self.path, d.relative_to(self.path)) is not None:
                continue  # never through a link, never a link
            with contextlib.suppress(OSError):
                d.rmdir()  # only when empty: files of others stay, and so does their folder

    # -- while the run writes -------------------------------------------------------------
    def __enter__(self) -> RunFolder:
        from filelock import FileLock, Timeout

        from stablefs._runtime import io as _io

        if self.state is None:
            self.check()
        self._created = not self.path.exists()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StablefsError(
                f"{self.option} {self.path} cannot be created ({exc.strerror or exc})."
            ) from None
        self._lock_created = not os.path.lexists(self.path / ".lock")
        self._lock = FileLock(str(self.path / ".lock"), timeout=0)
        try:
            self._lock.acquire()
        except Timeout:
            self._lock = None
            raise StablefsError(
                f"another stablefs run is writing to {self.path}: wait for it to finish, or "
                f"choose another {self.option} folder."
            ) from None
        except OSError as exc:
            self._lock = None
            raise write_failure(self.path, exc, self.option) from None
        try:
            # the folder may have changed between check() and the lock: decide again
            self.check()
            if self.state == "new":
                info = self._finished_info()
                if info is not None:  # --force: replace the finished run of another config
                    self._delete(self._removal_plan(info))
                else:  # an unfinished run's files are no result: start clean, keep its fits
                    self._journal = self._read_journal()
                    self._remove_journaled()
            self._guard_token = _io.set_write_guard(self._before_write)
        except OSError as exc:
            self._release()
            raise write_failure(self.path, exc, self.option) from None
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        from stablefs._runtime import io as _io

        if self._guard_token is not None:
            _io.reset_write_guard(self._guard_token)
            self._guard_token = None
        try:
            if exc_type is not None and not issubclass(exc_type, KeyboardInterrupt):
                self._cleanup_failed()
            elif exc_type is None and self._lock is not None:
                # a finished run leaves no lock file behind, also the one an interrupted
                # earlier attempt made: unlinked while still held, so a run starting now
                # locks a new file and finds the finished run
                lock = self.path / ".lock"
                if not _is_link(lock):
                    with contextlib.suppress(OSError):
                        lock.unlink()
        finally:
            self._release()
        if isinstance(exc, OSError) and self._inside(getattr(exc, "stablefs_target", None)):
            raise write_failure(self.path, exc, self.option) from None

    def _inside(self, target) -> bool:
        if target is None:
            return False
        return Path(os.path.abspath(target)).is_relative_to(self._root)

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    @property
    def partial(self) -> Path:
        """Where finished fits are kept until the run completes (the runner keys them by the
        configuration of the fits, so fits of different configurations never mix)."""
        return self.path / ".partial"

    def _before_write(self, final: Path) -> None:
        """Called by :func:`stablefs._runtime.io.atomic_path` before it writes ``final``: refuse a
        path that leaves the folder through a symbolic link or that would replace a file
        stablefs did not write; record the files and folders this run creates."""
        target = Path(os.path.abspath(final))
        if not target.is_relative_to(self._root) or target == self._root:
            return  # not in the run folder (e.g. a download cache)
        rel = target.relative_to(self._root)
        real_root = self._root.resolve()
        try:
            real_parent = target.parent.resolve()
        except (OSError, RuntimeError):  # a loop of links (Python < 3.13: RuntimeError)
            loop = link_on_path(self._root, rel, itself=False) or target.parent
            raise StablefsError(
                f"refusing to write {final}: {loop} is a loop of symbolic links; nothing was "
                f"written through it: remove the link or choose a new {self.option} folder "
                "(the run cannot resume until then)."
            ) from None
        if not real_parent.is_relative_to(real_root):
            links = [self._root / p for p in [*reversed(rel.parents)][1:]
                     if _is_link(self._root / p)]
            where = links[0] if links else target.parent
            raise StablefsError(
                f"refusing to write {final}: {where} is a symbolic link leading out of "
                f"{self.path} (to {where.resolve()}); nothing outside the folder was touched: "
                f"remove the link or choose a new {self.option} folder."
            )
        if rel.parts[0] == ".partial":
            return
        key = rel.as_posix()
        if key in self._journal["files"]:
            return
        if os.path.lexists(target):
            raise StablefsError(
                f"refusing to replace {final}: stablefs did not write it; move it away or "
                f"choose a new {self.option} folder."
            )
        created = [p.as_posix() for p in reversed(rel.parents)
                   if p.parts and not os.path.lexists(self._root / p)]
        self._journal["dirs"] += [d for d in created if d not in self._journal["dirs"]]
        self._journal["files"].append(key)
        self._write_journal()

    def _write_journal(self) -> None:
        from stablefs._runtime.io import atomic_write_text

        atomic_write_text(self.partial / JOURNAL, json.dumps(self._journal, indent=1),
                          fsync=False)

    def _remove_journaled(self) -> None:
        """Delete the files the journal records (this run's, or an unfinished earlier
        attempt's) and the folders it created, when they are empty; never anything else."""
        for key in self._journal["files"]:
            path = self.path / key
            # the entry itself may be a link (the link goes, not its target); nothing is
            # removed through a symbolic link anywhere on the way
            if os.path.lexists(path) and link_on_path(self.path, key, itself=False) is None \
                    and (_is_link(path) or not path.is_dir()):
                with contextlib.suppress(OSError):
                    path.unlink()
        for key in sorted(self._journal["dirs"], key=lambda d: d.count("/"), reverse=True):
            if link_on_path(self.path, key) is None:
                with contextlib.suppress(OSError):
                    (self.path / key).rmdir()
        self._journal = {"tool": TOOL, "files": [], "dirs": []}
        with contextlib.suppress(OSError):
            (self.partial / JOURNAL).unlink()

    def clear(self) -> None:
        """Remove a finished run's files (``--force``): only those its ``run.json`` lists,
        each checked first (see the module docstring)."""
        info = self._finished_info()
        if info is not None:
            self._delete(self._removal_plan(info))

    def complete(self) -> None:
        """The run finished (``run.json`` written): remove its leftovers."""
        self._remove_partial()

    def _remove_partial(self, warn: bool = True) -> None:
        """Remove ``.partial``: only what stablefs stores there, never through a link.

        ``.partial`` holds the resume state, every file of it written by stablefs's writers
        as ``.npz`` (fits, Monte-Carlo units) or ``.json`` (permutations, the journal, the
        benchmark's markers), plus the hidden temporaries of an interrupted atomic write
        (:mod:`stablefs._runtime.io`). A ``.partial`` that is a symbolic link, or that resolves
        outside
        the run folder, is left alone; below it, links are never followed nor removed, only
        regular files of those kinds are deleted, and a folder is removed only once empty
        (something else inside keeps it, and is named in one warning line unless ``warn`` is
        false: a failed run's error line comes alone).
        """
        partial = self.partial
        if _is_link(partial) or not partial.is_dir() \
                or not partial.resolve().is_relative_to(self.path.resolve()):
            return
        kept = []
        for dirpath, dirnames, filenames in os.walk(partial, topdown=False):
            here = Path(dirpath)
            for name in filenames + [d for d in dirnames if _is_link(here / d)]:
                path = here / name
                if _is_link(path) or not _is_stored_state(name):
                    kept.append(path)
                    continue
                with contextlib.suppress(OSError):
                    path.unlink()
            with contextlib.suppress(OSError):
                here.rmdir()  # only when empty
        if kept and warn:
            logging.getLogger("stablefs").warning(
                f"{partial} keeps {len(kept)} entr{'y' if len(kept) == 1 else 'ies'} that "
                f"stablefs did not write (e.g. {kept[0].relative_to(partial)}): nothing was "
                "deleted through a link or outside the files of the run.")

    def _has_fits(self) -> bool:
        partial = self.partial
        if not partial.is_dir() or _is_link(partial):
            return False
        return any(p.is_file() for sub in partial.iterdir() if sub.is_dir() and not _is_link(sub)
                   for p in sub.rglob("*"))

    def _cleanup_failed(self) -> None:
        """A failed run removes the files it wrote and nothing else; finished fits stay for
        the rerun. A folder it created and that is left empty is removed, so a corrected
        rerun is never blocked."""
        self._remove_journaled()
        if self._has_fits():
            return
        self._remove_partial(warn=False)  # the failure's own line says what went wrong
        self._release()
        if self._lock_created or self._created:
            with contextlib.suppress(OSError):
                (self.path / ".lock").unlink()
        if self._created:
            with contextlib.suppress(OSError):
                self.path.rmdir()
