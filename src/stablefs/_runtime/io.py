"""Atomic file writes (``docs/DESIGN.md``, "Files a run writes").

Every output file is first written to a temporary file in the *same folder* as its final
path and then renamed over it with :func:`os.replace`, which is atomic on POSIX and on
Windows for paths on one file system. A reader therefore sees either the old complete file
or the new complete file, never a truncated one; a crash or an exception part-way leaves
the old file (if any) untouched and removes the temporary file.

Temporary files are named ``.<name>.<random>.tmp<suffix>``: hidden (so ``figures/*.png``
style globs do not pick them up) and ending in the final suffix (so writers that infer the
format from the extension, such as ``Figure.savefig`` or ``numpy.savez``, behave as for
the final path).

Inside a run folder (:class:`stablefs._runtime.rundir.RunFolder`) every write is first shown to the
folder's guard (:func:`set_write_guard`), which refuses a path that leaves the folder through a
symbolic link or that would replace a file stablefs did not write, and records the files the
run creates. A write that fails with an ``OSError`` (disk full, file-size limit, permission)
leaves the old file untouched and carries the final path as ``exc.stablefs_target``, so that
the caller can name the folder in one line.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable, Iterator
from contextvars import ContextVar, Token
from pathlib import Path

__all__ = ["atomic_path", "atomic_write_bytes", "atomic_write_text"]

#: called with the final path before every atomic write (set while a run folder is open)
_WRITE_GUARD: ContextVar[Callable[[Path], None] | None] = ContextVar(
    "stablefs_write_guard", default=None)


def set_write_guard(guard: Callable[[Path], None]) -> Token:
    """Show every following atomic write to ``guard`` first (it may raise to refuse it)."""
    return _WRITE_GUARD.set(guard)


def reset_write_guard(token: Token) -> None:
    """Undo :func:`set_write_guard`."""
    _WRITE_GUARD.reset(token)


def _current_umask() -> int:
    """The process umask, read without changing it where the platform allows."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)  # no read-only way elsewhere; restore at once
    os.umask(mask)
    return mask


def _new_temp(path: Path) -> Path:
    """Create (exclusively) an empty temporary file beside ``path`` and return its path."""
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp{path.suffix}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        except FileExistsError:
            continue
        os.close(fd)
        return tmp
    raise FileExistsError(f"could not create a temporary file beside {path}")  # pragma: no cover


def _final_mode(path: Path) -> int:
    """Permission bits for the new file: those of the file it replaces, else 0o666 & ~umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_current_umask()


def _fsync_file(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. platforms that cannot open files read-only
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - file systems without fsync
        pass
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    if os.name != "posix":  # directories cannot be opened on Windows
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str], *, fsync: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; rename it over ``path`` on success.

    Write the whole file to the yielded path inside the ``with`` block. When the block
    finishes without an exception the temporary file is renamed over ``path`` in one atomic
    step; when the block raises (including ``KeyboardInterrupt``) the temporary file is
    removed, ``path`` is left exactly as it was, and the exception propagates.

    Parameters
    ----------
    path : str or path-like
        Final location. Missing parent folders are created.
    fsync : bool, default True
        Flush the file (and, on POSIX, its folder) to disk around the rename, so that the
        new content survives a power cut once the block has returned.

    Yields
    ------
    pathlib.Path
        The temporary path. It already exists as an empty file (created exclusively, so the
        name is reserved); writers may overwrite or replace it. Its name ends in the same
        suffix as ``path``.

    Examples
    --------
    >>> with atomic_path(out_dir / "results.parquet") as tmp:  # doctest: +SKIP
    ...     df.to_parquet(tmp)
    """
    final = Path(path)
    guard = _WRITE_GUARD.get()
    if guard is not None:
        guard(final)
    tmp = None
    try:
        final.parent.mkdir(parents=True, exist_ok=True)
        tmp = _new_temp(final)
        yield tmp
        os.chmod(tmp, _final_mode(final))
        if fsync:
            _fsync_file(tmp)
        os.replace(tmp, final)
    except BaseException as exc:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
        if isinstance(exc, OSError) and getattr(exc, "stablefs_target", None) is None:
            with contextlib.suppress(AttributeError):
                exc.stablefs_target = final
        raise
    if fsync:
        _fsync_dir(final.parent)


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes, *, fsync: bool = True) -> Path:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_path`).

    Parameters
    ----------
    path : str or path-like
        Final location; missing parent folders are created.
    data : bytes
        The complete new content.
    fsync : bool, default True
        Flush to disk before the rename.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    final = Path(path)
    with atomic_path(final, fsync=False) as tmp, open(tmp, "wb") as fh:
        fh.write(data)
        if fsync:
            fh.flush()
            os.fsync(fh.fileno())
    if fsync:
        _fsync_dir(final.parent)
    return final


def atomic_write_text(
    path: str | os.PathLike[str], text: str, *, encoding: str = "utf-8", fsync: bool = True
) -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`atomic_path`).

    The text is encoded as given, with no newline translation (``"\\n"`` stays ``"\\n"`` on
    every platform, so files are byte-identical across systems).

    Parameters
    ----------
    path : str or path-like
        Final location; missing parent folders are created.
    text : str
        The complete new content.
    encoding : str, default "utf-8"
        Text encoding.
    fsync : bool, default True
        Flush to disk before the rename.

    Returns
    -------
    pathlib.Path
        ``path``.
    """
    return atomic_write_bytes(path, text.encode(encoding), fsync=fsync)
