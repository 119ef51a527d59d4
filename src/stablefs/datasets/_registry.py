"""The registry of named microarray data sets: where their files are found, download, convert.

The named sets are the 16 microarray classification sets of the public ``datamicroarray``
collection (``ramhiser/datamicroarray`` on GitHub, MIT licence) at the pinned commit
``a95f6f68ed3debf48ee54f198435fa12aa655b16``; the six data sets of the papers stablefs
reproduces are aliases: ``colon`` = alon, ``leukemia`` = golub, ``prostate`` = singh,
``lung`` = gordon, ``srbct`` = khan, ``dlbcl`` = shipp (``docs/DESIGN.md``, Data → Registry).

Where a set is found
--------------------
The folders searched, in order, are

1. ``data_home`` (the argument of :func:`stablefs.datasets.load`),
2. each folder of the environment variable ``STABLEFS_DATA`` (``os.pathsep``-separated),
3. the user cache: ``STABLEFS_CACHE`` if set, else ``$XDG_CACHE_HOME/stablefs``, else
   ``~/.cache/stablefs``.

In each folder the converted form ``<alias>.csv.gz`` or ``<name>.csv.gz`` (a gzip CSV with
``label`` first, then the features) is taken first, then the original ``<name>.RData``. The
first folder holding either wins; a corrupt file there is an error, never skipped.

* A ``.csv.gz`` is checked against the registry: its sha256 equals that of the shared
  ``../shared/datasets`` file (the six seed sets), or the sha256 of its uncompressed CSV text
  equals the registry's ``content_sha256`` (any set; this accepts the same table compressed
  by another zlib or at another level).
* An ``.RData`` is checked against the sha256 of the pinned file, then converted once
  (:mod:`stablefs.datasets._rdata`) into the cache as ``<name>.csv.gz``; the converted table
  must have the registry's ``content_sha256``.
* A set missing everywhere is downloaded: ``<base>/<name>.RData`` with pooch (sha256-checked,
  a progress bar when stderr is a terminal) into the cache, then converted as above. The base
  is the pinned GitHub address, or the environment variable ``STABLEFS_REGISTRY_URL`` (a
  mirror, or a loopback server in tests).

Every check is remembered per (path, size, mtime) for the life of the process. Files reach
their final name only complete (pooch and :func:`stablefs._runtime.io.atomic_path` write to a
temporary file and rename it), so processes fetching the same set at the same time each
rename a whole, identical file into place; nothing is ever half-written under a final name.

Shapes and class counts of all 16 sets, and every ``content_sha256``, were read from the
pinned ``.RData`` files themselves (each matching the sha256 below) with the converter of
:mod:`stablefs.datasets._rdata`; journals are given where the collection's scripts or the
shared MANIFEST name them, or the paper is unambiguous (Su et al. 2002 is given without one).
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import os
import re
import sys
import textwrap
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stablefs._errors import StablefsError

if TYPE_CHECKING:
    from typing import Any

#: pinned source of the ``.RData`` files (``../shared/datasets/rdata/README.md``)
DEFAULT_REGISTRY_URL = (
    "https://github.com/ramhiser/datamicroarray/raw/a95f6f68ed3debf48ee54f198435fa12aa655b16/data/"
)
#: environment variable that replaces :data:`DEFAULT_REGISTRY_URL`
REGISTRY_URL_ENV = "STABLEFS_REGISTRY_URL"


@dataclass(frozen=True)
class RegistryEntry:
    """One named data set of the ``datamicroarray`` collection, with its checksums.

    The values of :data:`REGISTRY`; the fields were read from the pinned ``.RData`` files.

    Parameters
    ----------
    name : str
        The collection's name (first author of the paper): ``"alon"``.
    sha256, size : str, int
        sha256 and byte size of ``<name>.RData`` at the pinned commit.
    n_samples, n_features : int or None
        Shape of ``x`` (None when not known).
    classes : dict
        Class label -> number of samples, in the order shown.
    reference : str
        ``"Alon et al. 1999"``: first author and year.
    journal : str
        ``"PNAS"``; empty when not certain.
    description : str
        What is classified, in one sentence.
    alias : str or None
        The name the reproduced papers use (``"colon"``); also the stem of the shared ``.csv.gz``.
    csv_sha256, csv_size : str or None, int or None
        sha256 and size of the shared ``<alias>.csv.gz`` (``../shared/datasets/MANIFEST.md``).
    content_sha256 : str or None
        sha256 of the uncompressed ``label`` + features CSV text of the converted set.

    Attributes
    ----------
    filename : str
        ``<name>.RData``, the file downloaded from the collection.
    csv_filenames : tuple of str
        The converted forms accepted in a folder, in order of preference.
    url : str
        The download address (``STABLEFS_REGISTRY_URL`` replaces the pinned base).
    full_reference : str
        Reference and journal, ``"Alon et al. 1999, PNAS"``.
    label : str
        The name and its alias, ``"alon (colon)"``.
    classes_text : str
        The class counts as text, ``"t 40, n 22"``.

    References
    ----------
    .. [1] J. A. Ramey, "datamicroarray: Collection of Data Sets for Classification", R package
       version 0.2.3, 2016, https://github.com/ramhiser/datamicroarray (the pinned commit a95f6f6).
    .. [2] U. Alon, N. Barkai, D. A. Notterman, K. Gish, S. Ybarra, D. Mack and A. J. Levine,
       "Broad patterns of gene expression revealed by clustering analysis of tumor and normal
       colon tissues probed by oligonucleotide arrays", PNAS 96(12), 6745–6750, 1999 (the
       ``alon`` set).

    Examples
    --------
    >>> from stablefs.datasets import REGISTRY
    >>> entry = REGISTRY["colon"]
    >>> entry.label, entry.n_samples, entry.n_features
    ('alon (colon)', 62, 2000)
    >>> entry.classes_text, entry.full_reference
    ('t 40, n 22', 'Alon et al. 1999, PNAS')
    """

    name: str
    sha256: str
    size: int
    n_samples: int | None = None
    n_features: int | None = None
    classes: dict = field(default_factory=dict)
    reference: str = ""
    journal: str = ""
    description: str = ""
    alias: str | None = None
    csv_sha256: str | None = None
    csv_size: int | None = None
    content_sha256: str | None = None

    @property
    def filename(self) -> str:
        """``<name>.RData``: the file downloaded from the collection."""
        return f"{self.name}.RData"

    @property
    def csv_filenames(self) -> tuple[str, ...]:
        """Converted forms accepted in a folder, in order: ``<alias>.csv.gz``, ``<name>.csv.gz``."""
        stems = [s for s in (self.alias, self.name) if s]
        return tuple(f"{s}.csv.gz" for s in stems)

    @property
    def url(self) -> str:
        """Download address: ``$STABLEFS_REGISTRY_URL/<name>.RData`` or the pinned GitHub one."""
        return f"{registry_url()}/{self.filename}"

    @property
    def full_reference(self) -> str:
        """``"Alon et al. 1999, PNAS"``."""
        return f"{self.reference}, {self.journal}" if self.journal else self.reference

    @property
    def label(self) -> str:
        """``"alon (colon)"``: the name and its alias, for messages."""
        return f"{self.name} ({self.alias})" if self.alias else self.name

    @property
    def classes_text(self) -> str:
        """``"t 40, n 22"``."""
        return ", ".join(f"{c} {n}" for c, n in self.classes.items())


def _e(name, sha, size, n, p, classes, reference, journal, description, content, *, alias=None,
       csv=None, csv_size=None) -> RegistryEntry:
    return RegistryEntry(name, sha, size, n, p, classes, reference, journal, description, alias,
                         csv, csv_size, content)


_ENTRIES = [
    _e("alon", "76ea2ffa6226e29237bbe3f41a68ec42ca9ec3bbdbf3f19613cd254fd5fcc1c7", 296180,
       62, 2000, {"t": 40, "n": 22}, "Alon et al. 1999", "PNAS",
       "Colon tumour vs normal tissue, 2000 genes.",
       "fb9f5358f45bf899aa59301eb194729d684f9d10944498c2b914b54ce9706e1f", alias="colon",
       csv="70955f843a84c2a25912ff9352f84736e726479b72646584d89587ef2483af97", csv_size=346904),
    _e("borovecki", "717835c9be3fb16b4b2bb0f6e82816fde6c3ad15111bda591651d8e6163c9fff", 1141396,
       31, 22283, {"symptomatic": 17, "control": 14}, "Borovecki et al. 2005", "PNAS",
       "Huntington's disease (symptomatic and presymptomatic) vs healthy controls, blood, "
       "22283 probes.",
       "e79c17362394cde8800516a3ef7c64e61cc4484e7414c5a7600ae62d8f1e21f4"),
    _e("chowdary", "2613b06506074469d1aec9e8fbe313fa65aa75ba6720ad925c5edbc2f690d983", 3251872,
       104, 22283, {"breast": 62, "colon": 42}, "Chowdary et al. 2006", "J Mol Diagn",
       "Breast vs colon tumours, 22283 probes.",
       "9923aa7feab217a3a83d592f02dc39bfcf7e9df2907f6a394c770fd944f473dd"),
    _e("christensen", "9cdb95961f9529014db156af5cba41c8da0d25e93318ceca69ae696caaacb532", 710724,
       217, 1413, {"blood": 85, "placenta": 19, "other": 113}, "Christensen et al. 2009",
       "PLoS Genet", "DNA methylation of blood vs placenta vs other tissues, 1413 CpG loci.",
       "df82cf5f0ea50288acd2a2ed04f456ba98dcdd829b572b5d8a0270de354d9d7b"),
    _e("golub", "594f5507597fb2352d210c803a88a218fbf6d1f2705372029e5738815216747b", 1191760,
       72, 7129, {"ALL": 47, "AML": 25}, "Golub et al. 1999", "Science",
       "Acute lymphoblastic vs myeloid leukaemia, 7129 probes.",
       "47f699b144e54aff65fd803b3ac336ec3717b5f400fe8c738534f49b2264d124", alias="leukemia",
       csv="db62f7e08fe01543d36de6da7d9298d24a6f93a0e43066a0aa7e0fb0020f41b9", csv_size=961819),
    _e("gordon", "09173f9c7b7d30bbbeca08b945755a03ad7601f4560bb185d47e3e441fc096f3", 3857348,
       181, 12533, {"adenocarcinoma": 150, "mesothelioma": 31}, "Gordon et al. 2002",
       "Cancer Res",
       "Lung adenocarcinoma vs malignant pleural mesothelioma, 12533 probes.",
       "c29e56750ad589d4e1ea45ab49ba7274bfe126b4ccc8362810b97c0b4823929d", alias="lung",
       csv="4abe6ac390538d1b80f14550130504e84a4f5caaa3d8901c848129d58f870e92", csv_size=4627884),
    _e("gravier", "6e84756200a8cc3032d18c7d60a60cf79b4236d5e19ac51413d15faf434d68ee", 812452,
       168, 2905, {"good": 111, "poor": 57}, "Gravier et al. 2010", "Genes Chromosomes Cancer",
       "Small node-negative breast tumours, good vs poor outcome (metastasis within 5 years), "
       "array CGH, 2905 BACs.",
       "7ec046ac9f3151d316159e4f93d98d112a3ece11a2bba514a96e0fc4c185cd7a"),
    _e("khan", "06ecda9812126eb72e1a254b07b90aa8eea4cef9639d8511082c1e15bfdee802", 462216,
       63, 2308, {"EWS": 23, "RMS": 20, "NB": 12, "BL": 8}, "Khan et al. 2001", "Nat Med",
       "Small round blue cell tumours of childhood, 4 classes, 2308 genes.",
       "3f213fdb900e4a49254777a80315fd4d18b0f02a538b4519d8c6e052df89823d", alias="srbct",
       csv="01cd59269036fd7c9affc23b755a61d755ffa3afaef41d4a97455bde2c28fd3c", csv_size=755620),
    _e("nakayama", "f2fc92aeb9c1d31d73096299f95f5ceba4a99598eb04cc5b46d0fad2d4a7477b", 3655880,
       105, 22283,
       {"malignant fibrous histiocytoma": 21, "myxoid liposarcoma": 19, "synovial sarcoma": 16,
        "dedifferentiated liposarcoma": 15, "myxofibrosarcoma": 15, "leiomyosarcoma": 6,
        "fibrosarcoma": 4, "lipoma": 3, "malignant peripheral nerve sheath tumor": 3,
        "well-differentiated liposarcoma": 3},
       "Nakayama et al. 2007", "Mod Pathol",
       "Soft-tissue sarcoma subtypes, 10 classes, 22283 probes.",
       "9047aa5649f9703ef0e0e8c68f3952d4295ed9d4d99f396ea3f8ef758e30c1f1"),
    _e("pomeroy", "858568f28dcf4453db9036c35eb186ac1ab1f7a1afa4452996ccdda551d3939f", 1391756,
       60, 7128, {"survived": 39, "died": 21}, "Pomeroy et al. 2002", "Nature",
       "Medulloblastoma (CNS embryonal tumour) outcome, survived vs died, 7128 probes.",
       "6ccedf2a1877e65df3bd4da0ff267dc632adde7924dee6e9bf18afdf4ae0c602"),
    _e("shipp", "2f7b5fcb6dd874a67f7b463a5fc17d7e6b2ba69bd30277f8ec953b6b0b681e65", 828180,
       77, 7129, {"DLBCL": 58, "FL": 19}, "Shipp et al. 2002", "Nat Med",
       "Diffuse large B-cell vs follicular lymphoma, 7129 probes.",
       "9e6346f2aa8aece27240cf11ea2b3f5c009f983d44269b9616846ec5ca095763", alias="dlbcl",
       csv="a9b94502047549c1dbb8179a3deec95722a258199dbc95e2aa21a80022485b92", csv_size=1042263),
    _e("singh", "5197cdae41c6e25b9a59cfda23fd9434c25b7406ed1942c5ca074e140e5c2cff", 1234368,
       102, 12600, {"Tumor": 52, "Normal": 50}, "Singh et al. 2002", "Cancer Cell",
       "Prostate tumour vs normal tissue, 12600 probes.",
       "4d364ddb0608fe9135cb54af724e54b8b3b49b6889e53757e7f0abee2cebad70", alias="prostate",
       csv="90c8256dd998ee95e9f72b75d1e017dcacbd30648702d2ae7c78d5ba926ffc22", csv_size=1538641),
    _e("sorlie", "bdba4227e67866862c6055528e9520fd7d082e07abf1f97215f3227d80c93ef4", 58092,
       85, 456, {"1": 14, "2": 11, "3": 13, "4": 15, "5": 32}, "Sorlie et al. 2001", "PNAS",
       "Breast tumour subtypes (5 expression clusters, labelled 1-5), 456 genes.",
       "8e36ebd906db383b1b59a0dfd5d633b723830ea9d8ee8b921bc7b375ac2f5324"),
    _e("su", "b265bcdc8019e6216d3f9e700650b8fccc4a71c50b8e0bbf9aae55d9bc7cdcb7", 3519464,
       102, 5565, {"1": 25, "2": 26, "3": 28, "4": 23}, "Su et al. 2002", "",
       "Novartis multi-tissue set: 4 tissue types (labelled 1-4), 5565 genes.",
       "1d8621ae646dfb536203c2416cde0a08af8452a5967ef625c53a5826bb6d99ed"),
    _e("subramanian", "82f551738e3e3dbf6d92d1b757dc2fdfd00fcbd29362f35354d12c42ee5dc2bd", 1425228,
       50, 10100, {"MUT": 33, "WT": 17}, "Subramanian et al. 2005", "PNAS",
       "NCI-60 cancer cell lines, p53 mutant vs wild type, 10100 genes.",
       "bef778971058dba250db21bb870670965a6f97c8b9bcd1975746b6c869d3d56d"),
    _e("west", "2fad08fcf9f481f03235f33146046193f3e7eaf08887badc4b28542890d3e3bd", 942736,
       49, 7129, {"negative": 25, "positive": 24}, "West et al. 2001", "PNAS",
       "Breast tumours, positive vs negative clinical status (the phenotype mboost ships as "
       "Westbc), 7129 probes.",
       "f09515048b2a7e2ad58a4e5a06166d1cce60cc67398c269a10905eae20b7c27e"),
]

#: registry name or alias (lower case) -> entry; the 16 names first, then the 6 aliases
REGISTRY: dict[str, RegistryEntry] = {e.name: e for e in _ENTRIES}
REGISTRY.update({e.alias: e for e in _ENTRIES if e.alias})

#: alias -> registry name
ALIASES: dict[str, str] = {e.alias: e.name for e in _ENTRIES if e.alias}


def entries() -> list[RegistryEntry]:
    """The distinct entries of :data:`REGISTRY` (an alias and its name give one), in order."""
    return list({id(e): e for e in REGISTRY.values()}.values())

# (resolved path, size, mtime_ns) -> sha256 hex digest, for the life of the process
_SHA_CACHE: dict[tuple[str, int, int], str] = {}
# the same for the sha256 of a gzip file's uncompressed content ("" when not valid gzip)
_CONTENT_CACHE: dict[tuple[str, int, int], str] = {}


# --------------------------------------------------------------------------------------------
# folders
# --------------------------------------------------------------------------------------------


def registry_url() -> str:
    """Base address of the ``.RData`` files: ``STABLEFS_REGISTRY_URL`` or the pinned one."""
    env = os.environ.get(REGISTRY_URL_ENV, "").strip()
    return (env or DEFAULT_REGISTRY_URL).rstrip("/")


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
    return [d for d, _ in _search_dirs_with_roles(data_home)]


def _search_dirs_with_roles(data_home=None) -> list[tuple[Path, str]]:
    dirs: list[tuple[Path, str]] = []
    if data_home is not None:
        dirs.append((Path(data_home).expanduser(), "data_home"))
    for part in os.environ.get("STABLEFS_DATA", "").split(os.pathsep):
        if part.strip():
            dirs.append((Path(part.strip()).expanduser(), "STABLEFS_DATA"))
    dirs.append((cache_dir(), "cache"))
    return dirs


def tilde(path: str | os.PathLike[str]) -> str:
    """``path`` with the home folder written ``~``."""
    text = str(path)
    home = str(Path.home())
    if home not in ("", "/") and (text == home or text.startswith(home + os.sep)):
        return "~" + text[len(home):]
    return text


def _shorten(items, limit: int = 4) -> str:
    items = [str(i) for i in items]
    if len(items) <= limit:
        return ", ".join(items)
    return f"{', '.join(items[:limit])} and {len(items) - limit} more"


# --------------------------------------------------------------------------------------------
# names
# --------------------------------------------------------------------------------------------


def entry_for(name: str) -> RegistryEntry:
    """The entry of registry name or alias ``name`` (any letter case).

    Raises
    ------
    StablefsError
        Unknown name, with the close matches.
    """
    key = str(name).strip().lower()
    if key in REGISTRY:
        return REGISTRY[key]
    close = difflib.get_close_matches(key, list(REGISTRY), n=3, cutoff=0.6)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    raise StablefsError(
        f"unknown registry data set {str(name)!r}{hint}: run 'stablefs datasets' for the "
        f"{len(entries())} named sets and their aliases."
    )


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------


def _key(path: Path) -> tuple[str, int, int]:
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


def file_sha256(path: Path) -> str:
    """sha256 of ``path``, remembered per (path, size, mtime) for the life of the process."""
    key = _key(path)
    digest = _SHA_CACHE.get(key)
    if digest is None:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        digest = h.hexdigest()
        _SHA_CACHE[key] = digest
    return digest


def content_sha256(path: Path) -> str:
    """sha256 of the uncompressed content of gzip file ``path`` (``""`` when it is not a valid
    gzip file), remembered per (path, size, mtime)."""
    key = _key(path)
    digest = _CONTENT_CACHE.get(key)
    if digest is None:
        h = hashlib.sha256()
        try:
            with gzip.open(path, "rb") as fh:
                for chunk in iter(lambda: fh.read(1 << 20), b""):
                    h.update(chunk)
            digest = h.hexdigest()
        except (OSError, EOFError, zlib.error):
            digest = ""
        _CONTENT_CACHE[key] = digest
    return digest


def verify(entry: RegistryEntry, path: Path) -> None:
    """Raise StablefsError when ``path`` (an ``.RData`` or a converted ``.csv.gz`` of
    ``entry``) does not have the registry checksum."""
    try:
        found = file_sha256(path)
        is_rdata = path.name.endswith(".RData")
        if is_rdata and found == entry.sha256:
            return
        if not is_rdata:
            if entry.csv_sha256 is None and entry.content_sha256 is None:
                return  # nothing to check against
            if found == entry.csv_sha256:
                return
            if entry.content_sha256 and content_sha256(path) == entry.content_sha256:
                return
        size = path.stat().st_size
    except OSError as exc:
        raise StablefsError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    if is_rdata:
        expected = f"sha256 {entry.sha256} ({entry.size} bytes)"
    elif entry.csv_sha256:
        expected = f"sha256 {entry.csv_sha256} ({entry.csv_size} bytes)"
        if entry.content_sha256:
            expected += f", or uncompressed content sha256 {entry.content_sha256}"
    else:
        expected = f"uncompressed content sha256 {entry.content_sha256}"
    raise StablefsError(
        f"{path}: checksum mismatch for registry set {entry.label}: expected {expected}, found "
        f"sha256 {found} ({size} bytes); the file is corrupt or another version: delete or "
        "replace it (or pass its path to load it unchecked)."
    )


# --------------------------------------------------------------------------------------------
# finding, converting, downloading
# --------------------------------------------------------------------------------------------


def find_local(name: str, data_home=None) -> Path | None:
    """First copy of registry set ``name`` in the search folders (unchecked): in each folder
    ``<alias>.csv.gz``, ``<name>.csv.gz``, then ``<name>.RData``."""
    entry = entry_for(name)
    for d in search_dirs(data_home):
        for fn in (*entry.csv_filenames, entry.filename):
            candidate = d / fn
            if candidate.is_file():
                return candidate
    return None


@dataclass(frozen=True)
class FetchResult:
    """What :func:`fetch_dataset` did to provide a verified local file of a registry set.

    Parameters
    ----------
    entry : RegistryEntry
        The registry set.
    path : pathlib.Path
        The verified ``label`` + features ``.csv.gz``.
    action : {"found", "converted", "downloaded"}
        Whether the ``.csv.gz`` was already there, converted from a local ``.RData``, or
        converted from a downloaded one.
    source : str, optional
        The ``.RData`` path or URL used; None when a ``.csv.gz`` was found.

    References
    ----------
    .. [1] J. A. Ramey, "datamicroarray: Collection of Data Sets for Classification", R package
       version 0.2.3, 2016, https://github.com/ramhiser/datamicroarray.

    Examples
    --------
    >>> from pathlib import Path
    >>> from stablefs.datasets import REGISTRY, FetchResult
    >>> result = FetchResult(REGISTRY["colon"], Path("colon.csv.gz"), "found")
    >>> result.entry.name, result.action, result.source
    ('alon', 'found', None)
    """

    entry: RegistryEntry
    path: Path
    action: str
    source: str | None = None


def _where_to_put(entry: RegistryEntry, data_home=None) -> str:
    folders = _shorten(tilde(d) for d in search_dirs(data_home))
    return (
        f"put {entry.filename} (or {entry.csv_filenames[0]}) in one of the folders searched "
        f"({folders})"
    )


def _writable_cache() -> Path:
    cache = cache_dir()
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StablefsError(
            f"cannot create the cache folder {cache} ({exc.strerror or exc}): set "
            "STABLEFS_CACHE to a writable folder."
        ) from None
    if not os.access(cache, os.W_OK):
        raise StablefsError(
            f"the cache folder {cache} is not writable: set STABLEFS_CACHE to a writable folder."
        )
    return cache


def _convert_into_cache(entry: RegistryEntry, src: Path) -> tuple[Path, bool]:
    """Convert the verified ``src`` (.RData) to ``<cache>/<name>.csv.gz`` unless a valid one is
    there already; return the path and whether a conversion ran."""
    from stablefs.datasets._rdata import read_rdata, write_csv_gz

    dest = _writable_cache() / f"{entry.name}.csv.gz"
    if dest.is_file():
        try:
            verify(entry, dest)
            return dest, False
        except StablefsError:
            pass  # our own cache file, damaged: replaced by a fresh conversion of the source
    data = read_rdata(src, entry.name)
    write_csv_gz(dest, data, expected_content_sha256=entry.content_sha256, name=entry.label)
    return dest, True


def _reason(exc: BaseException) -> str:
    """A short, one-line reason for a failed download."""
    response = getattr(exc, "response", None)
    if response is not None and getattr(response, "status_code", None):
        return f"HTTP {response.status_code} {response.reason or ''}".strip()
    text = str(exc)
    m = re.search(r"\[Errno -?\d+\][^'\")]*", text)
    if m:
        return m.group(0).strip()
    if "timed out" in text.lower() or "timeout" in type(exc).__name__.lower():
        return "timed out"
    first = text.splitlines()[0] if text else type(exc).__name__
    return first if len(first) <= 120 else first[:117] + "..."


#: total seconds a download may take (``STABLEFS_DOWNLOAD_TIMEOUT`` changes it)
DOWNLOAD_DEADLINE = 600.0
DOWNLOAD_DEADLINE_ENV = "STABLEFS_DOWNLOAD_TIMEOUT"
#: seconds one wait for bytes may take, within the total deadline
_READ_TIMEOUT = 30.0


class _DownloadRefused(Exception):
    """The server sent more than the registry declares, or took longer than the deadline."""


def download_deadline() -> float:
    """:data:`DOWNLOAD_DEADLINE`, or the seconds ``STABLEFS_DOWNLOAD_TIMEOUT`` gives."""
    text = os.environ.get(DOWNLOAD_DEADLINE_ENV, "").strip()
    if not text:
        return DOWNLOAD_DEADLINE
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value != value or value == float("inf"):
        raise StablefsError(f"{DOWNLOAD_DEADLINE_ENV}={text!r}: give a positive number of "
                            "seconds, e.g. 600.")
    return value


class CappedDownloader:
    """A pooch downloader with a size cap and a total deadline.

    ``requests`` bounds each wait for bytes (``timeout``), not the whole transfer: a server
    that sends one byte every few seconds would never time out, and one that sends endless
    bytes would fill the disk. This downloader reads whatever has arrived (``read1``), stops
    as soon as more than ``max_bytes`` arrived (the registry's declared size of the file) or
    ``deadline`` seconds have passed since the request, and then pooch never sees a file.
    """

    def __init__(self, max_bytes: int, deadline: float, progressbar: bool = False):
        self.max_bytes = int(max_bytes)
        self.deadline = float(deadline)
        self.progressbar = progressbar

    def __call__(self, url, output_file, pooch_obj=None, check_only=False):
        import time

        import requests

        start = time.monotonic()

        def left() -> float:
            remaining = self.deadline - (time.monotonic() - start)
            if remaining <= 0:
                raise _DownloadRefused(f"it took more than {self.deadline:g} s, the deadline "
                                       f"({DOWNLOAD_DEADLINE_ENV} changes it)")
            return remaining

        wait = min(_READ_TIMEOUT, left())
        with requests.get(url, stream=True, timeout=(wait, wait)) as response:
            response.raise_for_status()
            declared = response.headers.get("Content-Length", "")
            if declared.isdigit() and int(declared) > self.max_bytes:
                raise _DownloadRefused(f"the server announces {int(declared):,} bytes, more "
                                       f"than the {self.max_bytes:,} bytes of the registry's file")
            bar = None
            if self.progressbar:
                from tqdm.auto import tqdm

                bar = tqdm(total=self.max_bytes, unit="B", unit_scale=True, leave=False)
            raw = response.raw
            got = 0
            close = not hasattr(output_file, "write")
            fh = open(output_file, "wb") if close else output_file  # noqa: SIM115
            try:
                while True:
                    left()
                    chunk = raw.read1(1 << 16) if hasattr(raw, "read1") else raw.read(1 << 12)
                    if not chunk:
                        break
                    got += len(chunk)
                    if got > self.max_bytes:
                        raise _DownloadRefused(f"the server sent more than the "
                                               f"{self.max_bytes:,} bytes of the registry's file")
                    fh.write(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
            finally:
                if close:
                    fh.close()
                if bar is not None:
                    bar.close()


def _download(entry: RegistryEntry, data_home=None) -> Path:
    """Download ``<name>.RData`` into the cache with pooch (sha256-checked), capped at the
    registry's size of the file and within :func:`download_deadline` seconds in all
    (:class:`CappedDownloader`); return its path."""
    import pooch
    import requests

    url = entry.url
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in ("http", "https"):
        raise StablefsError(
            f"{REGISTRY_URL_ENV}={os.environ.get(REGISTRY_URL_ENV, '')!s} is not an http(s) "
            "address: give the address of the folder that holds the .RData files, e.g. "
            "http://host/datamicroarray/data."
        )
    cache = _writable_cache()
    logger = pooch.get_logger()
    level = logger.level
    logger.setLevel("WARNING")  # the CLI prints its own line per set
    downloader = CappedDownloader(entry.size, download_deadline(),
                                  bool(getattr(sys.stderr, "isatty", lambda: False)()))
    try:
        path = pooch.retrieve(
            url,
            known_hash=f"sha256:{entry.sha256}",
            fname=entry.filename,
            path=cache,
            downloader=downloader,
        )
    except _DownloadRefused as exc:
        raise StablefsError(
            f"the download of {entry.label} from {url} was stopped ({exc}) and nothing was "
            f"kept: {_where_to_put(entry, data_home)}, or set {REGISTRY_URL_ENV} to a mirror "
            "of the pinned files."
        ) from None
    except requests.exceptions.RequestException as exc:
        raise StablefsError(
            f"could not download {entry.label} from {url} ({_reason(exc)}): "
            f"{_where_to_put(entry, data_home)}, or set {REGISTRY_URL_ENV} to a reachable "
            "mirror of the datamicroarray files."
        ) from None
    except ValueError as exc:
        got = re.search(r"got ([0-9a-fA-F]{64})", str(exc))
        if "hash" not in str(exc).lower():
            raise StablefsError(
                f"could not download {entry.label} from {url} ({_reason(exc)}): "
                f"{_where_to_put(entry, data_home)}, or set {REGISTRY_URL_ENV} to a reachable "
                "mirror of the datamicroarray files."
            ) from None
        raise StablefsError(
            f"the download of {entry.label} from {url} has sha256 "
            f"{got.group(1) if got else '(another)'}, expected {entry.sha256}: the file was "
            f"changed or damaged in transfer and was not kept; {_where_to_put(entry, data_home)}, "
            f"or set {REGISTRY_URL_ENV} to a mirror of the pinned files."
        ) from None
    except OSError as exc:
        raise StablefsError(
            f"could not save the download of {entry.label} in {cache} "
            f"({exc.strerror or exc}): set STABLEFS_CACHE to a writable folder."
        ) from None
    finally:
        logger.setLevel(level)
    return Path(path)


def fetch_dataset(name: str, data_home: str | os.PathLike[str] | None = None, *,
                  download: bool = True) -> FetchResult:
    """Find, check, and if needed download and convert registry set ``name``.

    Parameters
    ----------
    name : str
        A registry name (``"alon"``) or alias (``"colon"``), any letter case.
    data_home : path-like, optional
        Folder searched first.
    download : bool
        When False, a set missing everywhere is an error instead of a download.

    Returns
    -------
    FetchResult
        ``path`` is a verified ``label`` + features ``.csv.gz``; ``action`` says whether it
        was found, converted or downloaded.

    Raises
    ------
    StablefsError
        As :func:`fetch`.

    See Also
    --------
    fetch : The same, returning the path only.

    References
    ----------
    .. [1] J. A. Ramey, "datamicroarray: Collection of Data Sets for Classification", R package
       version 0.2.3, 2016, https://github.com/ramhiser/datamicroarray.

    Examples
    --------
    A file found in ``data_home`` is checked against the registry's sha256 before use:

    >>> import os, tempfile
    >>> from stablefs.datasets import fetch_dataset
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "alon.RData"), "wb") as f:
    ...     _ = f.write(b"not the real file")
    >>> fetch_dataset("colon", data_home=folder)
    Traceback (most recent call last):
    ...
    stablefs._errors.StablefsError: ...alon.RData: checksum mismatch for registry set
    alon (colon)...

    With the real file (downloaded on first use, then cached):

    >>> fetch_dataset("colon").action  # doctest: +SKIP
    'found'
    """
    entry = entry_for(name)
    local = find_local(entry.name, data_home)
    if local is not None:
        verify(entry, local)
        if not local.name.endswith(".RData"):
            return FetchResult(entry, local, "found")
        path, converted = _convert_into_cache(entry, local)
        return FetchResult(entry, path, "converted" if converted else "found", str(local))
    if not download:
        raise StablefsError(
            f"data set {entry.label} not found and downloads are off: "
            f"{_where_to_put(entry, data_home)}."
        )
    raw = _download(entry, data_home)
    verify(entry, raw)
    path, _ = _convert_into_cache(entry, raw)
    return FetchResult(entry, path, "downloaded", entry.url)


def fetch(name: str, data_home: str | os.PathLike[str] | None = None, *,
          download: bool = True) -> Path:
    """Path of a verified local ``.csv.gz`` of registry set ``name``, downloading it if needed.

    Parameters
    ----------
    name : str
        A registry name (``"alon"``, ``"golub"``, ...) or alias (``"colon"``, ``"leukemia"``,
        ...), any letter case.
    data_home : path-like, optional
        Folder searched first.
    download : bool
        When False, a set missing everywhere is an error instead of a download.

    Returns
    -------
    pathlib.Path
        A gzip CSV: ``label`` first, then the features.

    Raises
    ------
    StablefsError
        Unknown name, checksum mismatch, a failed download (saying where to put the file and
        naming ``STABLEFS_REGISTRY_URL``), or a file that cannot be converted.

    See Also
    --------
    stablefs.datasets.load : Reads the file (``load("colon")`` calls this function).

    References
    ----------
    .. [1] J. A. Ramey, "datamicroarray: Collection of Data Sets for Classification", R package
       version 0.2.3, 2016, https://github.com/ramhiser/datamicroarray.
    .. [2] U. Alon, N. Barkai, D. A. Notterman, K. Gish, S. Ybarra, D. Mack and A. J. Levine,
       "Broad patterns of gene expression revealed by clustering analysis of tumor and normal
       colon tissues probed by oligonucleotide arrays", PNAS 96(12), 6745–6750, 1999.

    Examples
    --------
    Names are checked before anything is searched:

    >>> from stablefs.datasets import fetch
    >>> fetch("colonn")
    Traceback (most recent call last):
    ...
    stablefs._errors.StablefsError: unknown registry data set 'colonn' (did you mean colon
    or alon?): ...

    The colon cancer set of Alon et al. (1999), downloaded on first use (needs the network):

    >>> path = fetch("colon")  # doctest: +SKIP
    >>> path.name  # doctest: +SKIP
    'colon.csv.gz'
    """
    return fetch_dataset(name, data_home, download=download).path


# --------------------------------------------------------------------------------------------
# the table of ``stablefs datasets``
# --------------------------------------------------------------------------------------------

SYNTHETIC_ROWS: list[dict[str, Any]] = [
    {
        "name": "synthetic:han2012",
        "alias": "",
        "n_samples": 100,
        "n_features": 1000,
        "classes": "1, -1",
        "class_counts": None,
        "reference": "Han 2012",
        "description": "Two-Gaussian mixture, 100 correlated blocks of 10, 50 relevant "
        "features, label = sign(r*'x) (Han 2012, sec. 6.1).",
        "location": "generated on demand",
        "kind": "synthetic",
    },
    {
        "name": "synthetic:xiao2007",
        "alias": "",
        "n_samples": 100,
        "n_features": 200,
        "classes": "0 50, 1 50",
        "class_counts": None,
        "reference": "Xiao, Hua and Dougherty 2007",
        "description": "Equal / unequal covariance or bimodal Gaussian model, blocks of 20, "
        "10 best features (Xiao, Hua and Dougherty 2007, sec. 2.2).",
        "location": "generated on demand",
        "kind": "synthetic",
    },
]


def registry_table(data_home: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
    """List the named data sets and where their files are, one row per set (``stablefs datasets``).

    Parameters
    ----------
    data_home : path-like, optional
        Folder searched first, as in :func:`fetch`.

    Returns
    -------
    list of dict
        Keys ``name``, ``alias`` (``""`` if none), ``n_samples``, ``n_features`` (None when
        unknown), ``classes`` (text such as ``"t 40, n 22"``), ``class_counts`` (dict),
        ``reference`` (author, year, journal), ``description``, ``location`` (the path where
        a file was found, not checked here, or ``"not downloaded"``) and ``kind``
        (``"csv.gz"``, ``"RData"``, None, or ``"synthetic"``). The two synthetic generators
        follow the 16 sets, with ``location`` ``"generated on demand"``.

    References
    ----------
    .. [1] J. A. Ramey, "datamicroarray: Collection of Data Sets for Classification", R package
       version 0.2.3, 2016, https://github.com/ramhiser/datamicroarray.

    Examples
    --------
    >>> from stablefs.datasets import registry_table
    >>> rows = registry_table()
    >>> [(row["name"], row["alias"]) for row in rows[:2]]
    [('alon', 'colon'), ('borovecki', '')]
    >>> rows[-1]["name"], rows[-1]["location"]
    ('synthetic:xiao2007', 'generated on demand')
    """
    rows = []
    for entry in entries():
        local = find_local(entry.name, data_home)
        kind = None if local is None else ("RData" if local.name.endswith(".RData") else "csv.gz")
        rows.append(
            {
                "name": entry.name,
                "alias": entry.alias or "",
                "n_samples": entry.n_samples,
                "n_features": entry.n_features,
                "classes": entry.classes_text,
                "class_counts": dict(entry.classes),
                "reference": entry.full_reference,
                "description": entry.description,
                "location": str(local) if local is not None else "not downloaded",
                "kind": kind,
            }
        )
    rows.extend(dict(r) for r in SYNTHETIC_ROWS)
    return rows


def _middle(text: str, width: int) -> str:
    """``text`` cut in the middle with ``...`` to at most ``width`` characters."""
    if len(text) <= width:
        return text
    keep = max(width - 3, 2)
    head = keep // 2
    return text[:head] + "..." + text[len(text) - (keep - head):]


def _classes_cell(counts: dict | None, limit: int) -> str:
    if not counts:
        return "?"
    text = "/".join(str(n) for n in counts.values())
    return text if len(text) <= limit else f"{len(counts)} classes"


def format_registry_table(data_home=None, *, names=None, width: int = 100) -> str:
    """The text of ``stablefs datasets``: every line at most ``width`` characters.

    One row per set: name, alias, shape (samples x genes), class sizes, first author and year, and
    where the file is (``[k] file`` with the folders listed below the table, so long paths
    are written once, with ``~`` for the home folder), or ``not downloaded``. The synthetic
    generators and the download source follow.

    Parameters
    ----------
    data_home : path-like, optional
        Folder searched first, as in :func:`fetch`.
    names : sequence of str, optional
        Only these sets (names or aliases).
    width : int
        Maximum line length.
    """
    wanted = None if not names else {entry_for(n).name for n in names}
    dirs = _search_dirs_with_roles(data_home)
    by_name = {e.name: e for e in entries()}
    rows = [r for r in registry_table(data_home) if r["kind"] != "synthetic"
            and (wanted is None or r["name"] in wanted)]
    # folders holding a file, numbered in search order
    parents = {Path(r["location"]).parent for r in rows if r["kind"] is not None}
    order = [d for d, _ in dirs if d in parents]
    used = {d: i + 1 for i, d in enumerate(dict.fromkeys(order))}
    body = []
    for row in rows:
        entry = by_name[row["name"]]
        if row["kind"] is None:
            where = "not downloaded"
        else:
            loc = Path(row["location"])
            where = f"[{used[loc.parent]}] {loc.name}"  # an .RData is converted on first use
        shape = (row["n_samples"], row["n_features"])
        body.append([row["name"], row["alias"] or "-", shape,
                     _classes_cell(row["class_counts"], 14), entry.reference, where])
    # "n x p" with the x of every row in one column; "?" for an unknown size
    wn = max([len(str(r[2][0])) for r in body if r[2][0] is not None], default=1)
    wp = max([len(str(r[2][1])) for r in body if r[2][1] is not None], default=1)
    for r in body:
        n, p = r[2]
        r[2] = f"{'?' if n is None else n:>{wn}} x {'?' if p is None else p:<{wp}}"
    header = ["name", "alias", "shape", "classes", "reference", "where"]
    cols = list(zip(header, *body)) if body else [(h,) for h in header]
    widths = [max(len(c) for c in col) for col in cols]
    fixed = sum(widths[:-1]) + 2 * (len(widths) - 1)
    widths[-1] = max(min(widths[-1], width - fixed), 4)

    def line(cells):
        out = []
        for c, w in zip(cells, widths):
            c = _middle(c, w)
            out.append(c.ljust(w))
        return "  ".join(out).rstrip()

    lines = [line(header)] + [line(r) for r in body]
    roles: dict[Path, str] = {}
    for d, role in dirs:
        roles.setdefault(d, role)
    for folder, tag in used.items():
        role = roles.get(folder, "")
        prefix = f"[{tag}] "
        suffix = f"  ({role})" if role else ""
        lines.append(prefix + _middle(tilde(folder), width - len(prefix) - len(suffix)) + suffix)
    lines.append("")
    lines.append("synthetic data (generated on demand; options after '?', e.g. "
                 "synthetic:han2012?n_samples=200):")
    for syn in SYNTHETIC_ROWS:
        lines.append(_middle(f"  {syn['name']:<19} {syn['n_samples']} x {syn['n_features']:<6} "
                             f"{syn['reference']}", width))
    lines.append("")
    prose = (
        f"Sets not found are downloaded on first use (or with 'stablefs datasets --download "
        f"NAME...') into {tilde(cache_dir())}, from:"
    )
    lines.extend(textwrap.wrap(prose, width, break_on_hyphens=False))
    lines.append(_middle("  " + registry_url() + "/", width))
    note = (
        f"{REGISTRY_URL_ENV} replaces this address; data_home and the folders of STABLEFS_DATA "
        "are searched before the cache."
    )
    lines.extend(textwrap.wrap(note, width, break_on_hyphens=False))
    return "\n".join(lines)
