"""The registry of named microarray data sets and where their files are found.

The six sets are those of ``../shared/datasets/MANIFEST.md`` (gzip CSV, first column ``label``).
A named set is looked for, in this order, in

1. ``data_home`` (the argument of :func:`stablefs.datasets.load`),
2. each folder of the environment variable ``STABLEFS_DATA`` (``os.pathsep``-separated),
3. the user cache: ``STABLEFS_CACHE`` if set, else ``$XDG_CACHE_HOME/stablefs``, else
   ``~/.cache/stablefs``,

and is downloaded into the cache only when it is missing everywhere and a download URL is known
(urllib, to a temporary file, sha256-checked, then renamed into place). Every registry file is
checked against its sha256 before it is read; the check is remembered per (path, size, mtime)
for the life of the process, so repeated loads do not hash the file again.

Download sources: no public mirror holding these exact files (same bytes, same sha256) is
known, so every entry has ``url=None`` and a missing file is reported with the folder to put it
in. Filling in ``url`` enables the download path, which is tested with a fake transport.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from stablefs._errors import StablefsError


@dataclass(frozen=True)
class RegistryEntry:
    """One named data set: its file, checksum, shape, classes and provenance."""

    name: str
    filename: str
    sha256: str
    size: int
    n_samples: int
    n_features: int
    classes: dict = field(default_factory=dict)
    description: str = ""
    url: str | None = None

    @property
    def classes_text(self) -> str:
        return ", ".join(f"{c} {n}" for c, n in self.classes.items())


REGISTRY: dict[str, RegistryEntry] = {
    e.name: e
    for e in [
        RegistryEntry(
            "colon",
            "colon.csv.gz",
            "70955f843a84c2a25912ff9352f84736e726479b72646584d89587ef2483af97",
            346904,
            62,
            2000,
            {"t": 40, "n": 22},
            "Colon tumour vs normal tissue, 2000 genes (Alon et al. 1999, PNAS 96:6745-6750).",
        ),
        RegistryEntry(
            "leukemia",
            "leukemia.csv.gz",
            "db62f7e08fe01543d36de6da7d9298d24a6f93a0e43066a0aa7e0fb0020f41b9",
            961819,
            72,
            7129,
            {"ALL": 47, "AML": 25},
            "Acute lymphoblastic vs myeloid leukaemia, 7129 probes "
            "(Golub et al. 1999, Science 286:531-537).",
        ),
        RegistryEntry(
            "prostate",
            "prostate.csv.gz",
            "90c8256dd998ee95e9f72b75d1e017dcacbd30648702d2ae7c78d5ba926ffc22",
            1538641,
            102,
            12600,
            {"Tumor": 52, "Normal": 50},
            "Prostate tumour vs normal tissue, 12600 probes "
            "(Singh et al. 2002, Cancer Cell 1:203-209).",
        ),
        RegistryEntry(
            "lung",
            "lung.csv.gz",
            "4abe6ac390538d1b80f14550130504e84a4f5caaa3d8901c848129d58f870e92",
            4627884,
            181,
            12533,
            {"adenocarcinoma": 150, "mesothelioma": 31},
            "Lung adenocarcinoma vs malignant pleural mesothelioma, 12533 probes "
            "(Gordon et al. 2002, Cancer Research 62:4963-4967).",
        ),
        RegistryEntry(
            "srbct",
            "srbct.csv.gz",
            "01cd59269036fd7c9affc23b755a61d755ffa3afaef41d4a97455bde2c28fd3c",
            755620,
            63,
            2308,
            {"EWS": 23, "RMS": 20, "NB": 12, "BL": 8},
            "Small round blue cell tumours of childhood, 4 classes, 2308 genes "
            "(Khan et al. 2001, Nature Medicine 7:673-679).",
        ),
        RegistryEntry(
            "dlbcl",
            "dlbcl.csv.gz",
            "a9b94502047549c1dbb8179a3deec95722a258199dbc95e2aa21a80022485b92",
            1042263,
            77,
            7129,
            {"DLBCL": 58, "FL": 19},
            "Diffuse large B-cell vs follicular lymphoma, 7129 probes "
            "(Shipp et al. 2002, Nature Medicine 8:68-74).",
        ),
    ]
}

# (resolved path, size, mtime_ns) -> sha256 hex digest, for the life of the process
_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def cache_dir() -> Path:
    """The user download cache (``STABLEFS_CACHE``, else ``$XDG_CACHE_HOME/stablefs``, else
    ``~/.cache/stablefs``). Not created here."""
    env = os.environ.get("STABLEFS_CACHE")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg).expanduser() / "stablefs"
    return Path("~/.cache/stablefs").expanduser()


def search_dirs(data_home=None) -> list[Path]:
    """Folders searched for registry files, in order: data_home, STABLEFS_DATA, cache."""
    dirs: list[Path] = []
    if data_home is not None:
        dirs.append(Path(data_home).expanduser())
    for part in os.environ.get("STABLEFS_DATA", "").split(os.pathsep):
        if part.strip():
            dirs.append(Path(part.strip()).expanduser())
    dirs.append(cache_dir())
    return dirs


def find_local(name: str, data_home=None) -> Path | None:
    """First existing copy of registry set ``name`` in the search folders (unchecked)."""
    entry = REGISTRY[name]
    for d in search_dirs(data_home):
        candidate = d / entry.filename
        if candidate.is_file():
            return candidate
    return None


def file_sha256(path: Path) -> str:
    """sha256 of ``path``, remembered per (path, size, mtime) for the life of the process."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    digest = _SHA_CACHE.get(key)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        digest = h.hexdigest()
        _SHA_CACHE[key] = digest
    return digest


def verify(entry: RegistryEntry, path: Path) -> None:
    """Raise StablefsError when ``path`` does not have the registry checksum."""
    try:
        found = file_sha256(path)
    except OSError as exc:
        raise StablefsError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    if found != entry.sha256:
        size = path.stat().st_size
        raise StablefsError(
            f"{path}: checksum mismatch for registry set {entry.name!r}: expected sha256 "
            f"{entry.sha256} ({entry.size} bytes), found {found} ({size} bytes); the file is "
            "corrupt or another version: replace it (or pass its path to load it unchecked)."
        )


def _download(url: str, dest: Path, *, sha256: str, name: str, timeout: float = 60.0) -> Path:
    """Download ``url`` to ``dest`` atomically (temporary file, sha256 check, rename)."""
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StablefsError(
            f"cannot create the cache folder {dest.parent} ({exc.strerror or exc}): set "
            "STABLEFS_CACHE to a writable folder."
        ) from None
    fd, tmp_name = tempfile.mkstemp(dir=dest.parent, prefix=dest.name + ".", suffix=".part")
    tmp = Path(tmp_name)
    try:
        h = hashlib.sha256()
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=timeout) as resp:
                for chunk in iter(lambda: resp.read(1 << 20), b""):
                    out.write(chunk)
                    h.update(chunk)
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise StablefsError(
                f"could not download {name!r} from {url} ({reason}): check the network, or put "
                f"{dest.name} in a folder named in STABLEFS_DATA."
            ) from None
        if h.hexdigest() != sha256:
            raise StablefsError(
                f"the download of {name!r} from {url} has sha256 {h.hexdigest()}, expected "
                f"{sha256}: the source changed; put a correct {dest.name} in a folder named in "
                "STABLEFS_DATA."
            )
        os.replace(tmp, dest)
    finally:
        if tmp.exists():
            tmp.unlink()
    return dest


def fetch(name: str, data_home=None, *, download: bool = True) -> Path:
    """Path of a verified local copy of registry set ``name``, downloading it if needed.

    Parameters
    ----------
    name : str
        A registry name (``"colon"``, ``"leukemia"``, ...).
    data_home : path-like, optional
        Folder searched first.
    download : bool
        When False, a set missing everywhere is an error instead of a download.
    """
    key = name.strip().lower()
    if key not in REGISTRY:
        raise StablefsError(
            f"unknown registry data set {name!r}: known sets are {', '.join(REGISTRY)}."
        )
    entry = REGISTRY[key]
    local = find_local(key, data_home)
    if local is not None:
        verify(entry, local)
        return local
    if entry.url is None or not download:
        raise StablefsError(
            f"data set {key!r} not found locally and no download source is known: put "
            f"{entry.filename} in a folder named in STABLEFS_DATA (searched: "
            f"{', '.join(str(d) for d in search_dirs(data_home))})."
        )
    dest = cache_dir() / entry.filename
    _download(entry.url, dest, sha256=entry.sha256, name=key)
    return dest


def registry_table(data_home=None) -> list[dict]:
    """One row per named data set, for ``stablefs datasets``.

    Returns
    -------
    list of dict
        Keys ``name``, ``description``, ``n_samples``, ``n_features``, ``classes`` (text such as
        ``"t 40, n 22"``) and ``location``: the path where the file was found (not checked
        against its sha256 here), ``"not found (will download from URL)"``, or ``"not found
        (no download source: put FILE in a folder named in STABLEFS_DATA)"``. Two rows for the
        synthetic generators follow, with ``location`` ``"generated on demand"``.
    """
    rows = []
    for name, entry in REGISTRY.items():
        local = find_local(name, data_home)
        if local is not None:
            location = str(local)
        elif entry.url:
            location = f"not found (will download from {entry.url})"
        else:
            location = (
                f"not found (no download source: put {entry.filename} in a folder named in "
                "STABLEFS_DATA)"
            )
        rows.append(
            {
                "name": name,
                "description": entry.description,
                "n_samples": entry.n_samples,
                "n_features": entry.n_features,
                "classes": entry.classes_text,
                "location": location,
            }
        )
    rows.append(
        {
            "name": "synthetic:han2012",
            "description": "Two-Gaussian mixture, 100 correlated blocks of 10, 50 relevant "
            "features, label = sign(r*'x) (Han 2012, seed 000 sec. 6.1).",
            "n_samples": 100,
            "n_features": 1000,
            "classes": "1, -1",
            "location": "generated on demand",
        }
    )
    rows.append(
        {
            "name": "synthetic:xiao2007",
            "description": "Equal / unequal covariance or bimodal Gaussian model, blocks of 20, "
            "10 best features (Xiao et al. 2007, seed 004 sec. 2.2).",
            "n_samples": 100,
            "n_features": 200,
            "classes": "0 50, 1 50",
            "location": "generated on demand",
        }
    )
    return rows
