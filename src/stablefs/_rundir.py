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
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
from pathlib import Path

from stablefs._errors import StablefsError

#: files and folders that a run may write; only these are ever deleted by ``--force``
RUN_FILES = (
    "run.json", "selections.parquet", "selections.npz", "results.csv", "stability.csv",
    "frequencies.csv", "comparisons.csv", "signature.csv", "signature.gmt", "report.html",
    "report.md", "figures",
    "claims.csv", "tables", ".partial",
    "cells", "cells.csv", "ranks.csv", "friedman.csv", "sets.csv", "timing.csv",
    "leaderboard.html",
)


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
        return self.state

    def check_path(self) -> None:
        """Refuse a folder that is a file, or that cannot be created or written."""
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

    def _finished_info(self) -> dict | None:
        run_json = self.path / "run.json"
        if not run_json.is_file():
            return None
        try:
            info = json.loads(run_json.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # unreadable: treated as another configuration, never reused
        return info if isinstance(info, dict) else {}

    # -- while the run writes -------------------------------------------------------------
    def __enter__(self) -> RunFolder:
        from filelock import FileLock, Timeout

        if self.state is None:
            self.check()
        self._created = not self.path.exists()
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StablefsError(
                f"{self.option} {self.path} cannot be created ({exc.strerror or exc})."
            ) from None
        self._lock = FileLock(str(self.path / ".lock"), timeout=0)
        try:
            self._lock.acquire()
        except Timeout:
            self._lock = None
            raise StablefsError(
                f"another stablefs run is writing to {self.path}: wait for it to finish, or "
                f"choose another {self.option} folder."
            ) from None
        try:
            # the folder may have changed between check() and the lock: decide again
            self.check()
            if self.state == "new" and self._finished_info() is not None:
                self.clear()  # --force: replace the finished run of another configuration
        except BaseException:
            self._release()
            raise
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        try:
            if exc_type is not None and not issubclass(exc_type, KeyboardInterrupt):
                self._cleanup_failed()
        finally:
            self._release()

    def _release(self) -> None:
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    @property
    def partial(self) -> Path:
        """Where finished fits are kept until the run completes (the runner keys them by the
        configuration of the fits, so fits of different configurations never mix)."""
        return self.path / ".partial"

    def clear(self) -> None:
        """Remove a previous run's files (only the files a run writes; nothing else)."""
        for name in RUN_FILES:
            target = self.path / name
            if target.is_dir():
                shutil.rmtree(target)
            elif target.exists():
                target.unlink()

    def complete(self) -> None:
        """The run finished (``run.json`` written): remove its leftovers."""
        shutil.rmtree(self.path / ".partial", ignore_errors=True)

    def _cleanup_failed(self) -> None:
        """A failed run leaves nothing that blocks the corrected rerun: a folder it created
        is removed unless it holds finished fits worth resuming."""
        if not self._created:
            return
        has_fits = self.partial.is_dir() and any(p.is_file() for p in self.partial.rglob("*"))
        if has_fits:
            return
        with contextlib.suppress(OSError):
            self._release()
            shutil.rmtree(self.path)
