"""Arrays that a run stores and reads back (resume state, caches), as NumPy ``.npz`` files
that can never execute code (``docs/DESIGN.md``, "Safety").

A run folder is something people copy, share and download, so whatever a run reads back from
it is untrusted. Files are written by :func:`write_arrays` (plain ``.npy`` members, no object
arrays) and read back by :func:`read_arrays`, which never unpickles (``allow_pickle=False``)
and checks every member's header *before* it allocates: the dtype (no Python objects), the
shape against what the caller expects, and that the declared size is the size the zip
directory gives for the member, so a header that declares 10^12 values is refused rather than
allocated. Anything that does not parse or does not match raises :class:`StoredFileError`;
callers recompute what such a file held.

Each file also stores a sha256 **digest** of its arrays (member ``__digest__``: every other
member's name, dtype, shape and bytes), recorded when it is written and checked when it is read
back, so that accidental corruption (a flipped bit, a file cut short and padded, the arrays of
another file under this name) is caught cheaply. The digest is no signature: whoever edits a
file can recompute it, which is why callers also check what the arrays *mean* (a ranking is a
permutation of the features, an accuracy lies in [0, 1], ...: :mod:`stablefs.evaluation.runner`).
"""

from __future__ import annotations

import hashlib
import math
import struct
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import numpy.lib.format as npy_format

from stablefs._runtime.memory import available_memory, check_fits

__all__ = ["DIGEST", "StoredFileError", "check_table_size", "digest", "read_arrays",
           "read_json", "write_arrays"]

#: the member holding the digest of the other members
DIGEST = "__digest__"

#: the largest JSON file of a run folder that is read back (``run.json``, the journal of an
#: unfinished run, a permutation unit, a benchmark marker): stablefs writes kilobytes there,
#: so anything larger is not its file and is never loaded
MAX_JSON_BYTES = 16 << 20

#: memory per byte of a CSV table of a finished run read back (pandas' frame of its numbers and
#: text cells; a guard against a planted multi-gigabyte table, not an estimate to the byte)
TABLE_BYTES_PER_BYTE = 10


class StoredFileError(ValueError):
    """A stored file that does not parse, or whose content is not what the run expects."""


#: ``name -> (dtype kinds, shape)``; a kind string such as ``"iu"`` (``numpy.dtype.kind``
#: letters), a shape tuple whose ``None`` entries match any length, or ``None`` for any shape
Expectation = Mapping[str, tuple[str, tuple | None]]


def _header(fh, name: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    version = npy_format.read_magic(fh)
    if version == (1, 0):
        return npy_format.read_array_header_1_0(fh)
    if version == (2, 0):
        return npy_format.read_array_header_2_0(fh)
    raise StoredFileError(f"member {name!r} has an unsupported .npy version {version}")


def _check(name: str, shape, dtype: np.dtype, expect: Expectation | None) -> None:
    if dtype.hasobject:
        raise StoredFileError(f"member {name!r} stores Python objects")
    if expect is None:
        return
    kinds, want = expect[name]
    if dtype.kind not in kinds:
        raise StoredFileError(f"member {name!r} has dtype {dtype}, expected kind {kinds!r}")
    if want is not None and (len(shape) != len(want) or any(
            w is not None and s != w for s, w in zip(shape, want))):
        raise StoredFileError(f"member {name!r} has shape {shape}, expected {want}")


def digest(arrays: Mapping[str, np.ndarray]) -> str:
    """sha256 (hex) of the arrays: every member's name, dtype, shape and bytes, by name."""
    h = hashlib.sha256()
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def read_arrays(path, expect: Expectation | None = None, *,
                require_digest: bool = False) -> dict[str, np.ndarray]:
    """The arrays of an ``.npz`` file, read without unpickling and checked before allocation.

    Parameters
    ----------
    path : path-like
    expect : mapping, optional
        ``{name: (kinds, shape)}``. When given, the file must hold exactly these members, each
        of a dtype whose ``kind`` is in ``kinds`` and of the given shape (``None`` entries match
        any length; a shape of ``None`` matches any shape). The digest member is not part of
        it.
    require_digest : bool
        Refuse a file without the digest member (files of earlier versions); a digest that is
        present is always checked.

    Returns
    -------
    dict of str to ndarray

    Raises
    ------
    StoredFileError
        The file is not an ``.npz`` of plain arrays, or does not match ``expect``.
    """
    try:
        with zipfile.ZipFile(path) as zf:
            infos = {}
            for info in zf.infolist():
                if not info.filename.endswith(".npy"):
                    raise StoredFileError(f"member {info.filename!r} is not a .npy array")
                infos[info.filename[:-4]] = info
            members = set(infos) - {DIGEST}
            if expect is not None and members != set(expect):
                raise StoredFileError(
                    f"holds {sorted(members)}, expected {sorted(expect)}")
            if require_digest and DIGEST not in infos:
                raise StoredFileError("has no digest (written by an earlier version)")
            total = sum(info.file_size for info in infos.values())
            memory = available_memory()
            if memory is not None and total > memory:
                raise StoredFileError(
                    f"declares {total} bytes, more than the {memory} bytes of memory available")
            out = {}
            for name, info in infos.items():
                with zf.open(info) as fh:
                    shape, fortran, dtype = _header(fh, name)
                    if name == DIGEST:
                        if dtype.kind != "U" or shape != ():
                            raise StoredFileError("its digest is not a text")
                    else:
                        _check(name, shape, dtype, expect)
                    declared = math.prod(shape) * dtype.itemsize
                    if declared != info.file_size - fh.tell():
                        raise StoredFileError(
                            f"member {name!r} declares {declared} bytes of data but holds "
                            f"{info.file_size - fh.tell()}")
                    data = fh.read(declared)
                    if len(data) != declared:
                        raise StoredFileError(f"member {name!r} is truncated")
                    array = np.frombuffer(data, dtype=dtype).copy()
                    out[name] = array.reshape(shape, order="F" if fortran else "C")
            stored = out.pop(DIGEST, None)
            if stored is not None and stored.item() != digest(out):
                raise StoredFileError("its arrays do not match the digest recorded when it "
                                      "was written (a damaged or edited file)")
            return out
    except StoredFileError:
        raise
    except (OSError, EOFError, ValueError, KeyError, TypeError, OverflowError, MemoryError,
            RuntimeError, zipfile.BadZipFile, NotImplementedError, zlib.error,
            struct.error) as exc:
        # RuntimeError: zipfile's encrypted members; NotImplementedError: unknown compression
        raise StoredFileError(f"does not parse ({type(exc).__name__}: {exc})") from None


def write_arrays(path, arrays: Mapping[str, np.ndarray], *, compress: bool = False) -> Path:
    """Write ``arrays`` as an ``.npz`` atomically (:func:`stablefs._runtime.io.atomic_path`), with
    their digest (member ``__digest__``, checked by :func:`read_arrays`).

    Object arrays are refused (they would need a pickle to be read back).
    """
    from stablefs._runtime.io import atomic_path

    arrays = {k: np.asarray(v) for k, v in arrays.items()}
    for name, a in arrays.items():
        if a.dtype.hasobject:
            raise TypeError(f"array {name!r} holds Python objects; store plain arrays")
    if DIGEST in arrays:
        raise ValueError(f"{DIGEST!r} is reserved for the digest of the arrays")
    arrays[DIGEST] = np.asarray(digest(arrays))
    final = Path(path)
    with atomic_path(final, fsync=False) as tmp, open(tmp, "wb") as fh:
        (np.savez_compressed if compress else np.savez)(fh, **arrays)
    return final


def read_json(path, limit: int = MAX_JSON_BYTES):
    """The parsed JSON of a file a run stored, read only when it is at most ``limit`` bytes.

    Raises
    ------
    StoredFileError
        Larger than ``limit``, not UTF-8 or not JSON.
    OSError
        The file cannot be read.
    """
    import json

    with open(path, "rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise StoredFileError(f"is larger than the {limit} bytes of a file stablefs stores")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise StoredFileError(f"does not parse ({type(exc).__name__})") from None


def check_table_size(path) -> None:
    """Refuse (one line) a table of a finished run whose reading cannot fit in memory
    (:data:`TABLE_BYTES_PER_BYTE` per byte of the file), before pandas reads it."""
    size = Path(path).stat().st_size
    check_fits(size * TABLE_BYTES_PER_BYTE, str(path), f"reading this table back "
               f"({size:,} bytes)", hint="a run writes small tables: this one was not "
               "written by stablefs, so rerun into a new --out folder")
