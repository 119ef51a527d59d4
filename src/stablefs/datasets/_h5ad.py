"""An ``.h5ad`` file is read as itself: its links, storage and declared sizes are checked
before AnnData opens it (``docs/security.md``, "Files that point elsewhere").

HDF5 lets a file hold values that live elsewhere on the machine, and ``h5py`` (so
``anndata.read_h5ad``) follows them without a word:

* an **external link** (``h5py.ExternalLink``) makes ``/X`` the dataset of another HDF5 file;
* a **virtual dataset** maps its values from datasets of other files;
* **external storage** keeps a dataset's raw bytes in other (any) files, at given offsets;
* a **user-defined link** runs a link class registered in the HDF5 library.

Each would put another file's values into a run's results while ``run.json`` fingerprints only
the ``.h5ad``, so each is refused in one line naming the object and where it points. Soft links
(paths inside the same file) and hard links are read as usual. AnnData writes none of the
refused kinds, so a file it wrote is never refused.

The links are listed by the HDF5 library's own walk (``H5Lvisit``), which never follows a soft
or external link and visits an object reached by several hard links once.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from stablefs._errors import StablefsError
from stablefs.datasets._limits import check_fits, finish_bytes

__all__ = ["audit_h5ad", "check_h5ad_sizes"]


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]


def _name(raw) -> str:
    return "/" + (raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw))


def _refuse(path: Path, what: str) -> StablefsError:
    return StablefsError(
        f"{path}: {what}; stablefs reads only the values stored in the file itself (a run "
        "fingerprints that file alone): save a self-contained copy, e.g. with "
        "anndata.read_h5ad(...).write_h5ad(...) from a trusted session."
    )


def audit_h5ad(path: Path, h5py) -> None:
    """Refuse an ``.h5ad`` (open HDF5) file that reads values from elsewhere (see the module
    docstring); ``h5py`` is the imported module."""
    from h5py import h5l

    problems: list[str] = []

    with h5py.File(path, "r") as f:
        def link(raw, info):
            if info.type == h5l.TYPE_EXTERNAL:
                try:
                    target = f.get(_name(raw)[1:], getlink=True)
                    where = f"{target.filename}:{target.path}"
                except (KeyError, OSError, ValueError, TypeError, RuntimeError):
                    where = "another file"
                problems.append(f"{_name(raw)} is an external link to {where}")
            elif info.type not in (h5l.TYPE_HARD, h5l.TYPE_SOFT):
                problems.append(f"{_name(raw)} is a user-defined link (class {info.type})")
            return 1 if len(problems) else None  # stop at the first problem

        f.id.links.visit(link, info=True)
        if problems:
            raise _refuse(path, problems[0])

        def storage(name, obj):
            if not isinstance(obj, h5py.Dataset):
                return None
            if obj.is_virtual:
                sources = {s.file_name for s in obj.virtual_sources()}
                problems.append(f"/{name} is a virtual dataset mapped from "
                                f"{', '.join(sorted(sources)) or 'other files'}")
            elif obj.external:
                files = sorted({str(e[0]) for e in obj.external})
                problems.append(f"/{name} keeps its values in external file(s) "
                                f"{', '.join(files)}")
            return 1 if problems else None

        f.visititems(storage)
        if problems:
            raise _refuse(path, problems[0])


def check_h5ad_sizes(path: Path) -> None:
    """Refuse an ``.h5ad`` file that reads values from other files (:func:`audit_h5ad`), or
    whose datasets, as the HDF5 file declares them, cannot be loaded in the memory available
    (``anndata.read_h5ad`` reads every one), plus ``X`` as dense float64, before anything is
    read. Needs ``h5py`` (installed with ``anndata``)."""
    try:
        import h5py  # noqa: PLC0415
    except ImportError:
        return
    total = 0
    try:
        audit_h5ad(path, h5py)
        with h5py.File(path, "r") as f:
            def visit(_name, obj):
                nonlocal total
                if isinstance(obj, h5py.Dataset):
                    total += int(np.prod(obj.shape, dtype=object)) * max(1, obj.dtype.itemsize)

            f.visititems(visit)
            x = f.get("X")
            shape = None
            if isinstance(x, h5py.Dataset):
                shape = x.shape
            elif x is not None:
                shape = x.attrs.get("shape", x.attrs.get("h5sparse_shape"))
    except StablefsError:
        raise
    except (OSError, ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise StablefsError(
            f"{path}: is not a readable .h5ad file ({_first_line(exc)}).") from None
    what = "the datasets it declares"
    if shape is not None and len(shape) == 2:
        values = int(shape[0]) * int(shape[1])
        total = max(total + 8 * values, finish_bytes(values))
        what += f" (X {int(shape[0])} x {int(shape[1])}, as dense float64)"
    check_fits(total, str(path), what)
