"""The options of a comparison, with the command line's defaults, and the checks that need no
data: every option is refused in one line before the data are read and before an output
folder is touched (``docs/DESIGN.md``, "Errors")."""

from __future__ import annotations

import difflib
import numbers
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING

from stablefs._errors import StablefsError
from stablefs.comparison._inputs import as_list, check_scale, names_of

if TYPE_CHECKING:
    import os
    from typing import Literal

    from stablefs.comparison._trust import TrustSettings

#: the data of ``stablefs compare`` without DATA: Han 2012's synthetic benchmark (sec. 6.1)
DEFAULT_DATA = "synthetic:han2012"
#: the methods of ``stablefs compare`` without ``-m``
DEFAULT_METHODS = ("relieff", "iw-relieff", "en-relieff")
#: classifiers trained on each selected subset
DEFAULT_CLASSIFIERS = ("svm", "1nn")
#: stability measures reported
DEFAULT_MEASURES = ("nogueira",)
#: missing-value handling (``--missing``)
MISSING_CHOICES = ("drop-samples", "drop-features", "impute")


@dataclass
class CompareOptions:
    """Every option of a comparison (:func:`stablefs.compare`, ``stablefs compare``).

    The defaults are the command line's; :meth:`check` refuses a bad value in one line.
    """

    methods: list = field(default_factory=lambda: list(DEFAULT_METHODS))
    sizes: object = None
    protocol: object = "split"
    repeats: int | None = None
    standardize: bool = False
    prefilter: int | None = None
    classifiers: list = field(default_factory=lambda: list(DEFAULT_CLASSIFIERS))
    measures: list = field(default_factory=lambda: list(DEFAULT_MEASURES))
    seed: int = 0
    n_jobs: int = 1
    backend: Literal["loky", "dask"] = "loky"
    scheduler: str | None = None
    scheduler_timeout: float = 30.0
    permutations: int = 100
    permutation_resamples: int = 3
    nested: tuple[int, int] | str | int | None = (5, 3)
    report: bool = True
    svg: bool = False
    #: run although the counts promise more work or memory than the machine allows
    #: (:mod:`stablefs.evaluation.budget`; CLI ``--allow-huge``)
    allow_huge: bool = False
    # data options
    label: str | None = None
    labels: object = None
    layer: str | None = None
    feature_names: object = None
    transpose: bool = False
    missing: str | None = None
    drop_nominal: bool = False
    encode_nominal: bool = False
    scale: str = "auto"
    annotation: str | os.PathLike[str] | None = None

    def check(self) -> CompareOptions:
        """Normalise and check every option that needs no data nor network; returns
        ``self`` (:meth:`check_backend` asks the scheduler)."""
        from stablefs.evaluation._checks import _method_templates, check_n_jobs
        from stablefs.evaluation.classifiers import check_classifiers

        _whole("seed", self.seed, 0)
        self.methods = as_list(self.methods, "methods")
        _method_templates(self.methods)
        self.measures = check_measures(as_list(self.measures, "measures"))
        self.classifiers = list(check_classifiers(as_list(self.classifiers, "classifiers")))
        check_n_jobs(self.n_jobs)
        if self.repeats is not None:
            _whole("repeats", self.repeats, 2, why=" (stability compares resamples)")
        self.protocol_ = _protocol(self.protocol, self.repeats)
        self.nested = parse_nested(self.nested)
        _whole("permutations", self.permutations, 0, why=" (0 skips the test)")
        _whole("permutation_resamples", self.permutation_resamples, 2,
               why=" (the choice compares stability across resamples)")
        if self.prefilter is not None:
            _whole("prefilter", self.prefilter, 1)
        if self.missing is not None and self.missing not in MISSING_CHOICES:
            raise StablefsError(f"missing = {self.missing!r}: use one of "
                                f"{', '.join(MISSING_CHOICES)}.")
        self.scale = check_scale(self.scale)
        if self.annotation is not None:
            from stablefs.datasets._annotation import check_annotation

            check_annotation(self.annotation)  # missing or unreadable: refused before any work
        return self

    def check_backend(self) -> None:
        """Dask installed and the scheduler answering, when asked for."""
        from stablefs.evaluation._checks import check_backend

        check_backend(self.backend, self.scheduler, self.scheduler_timeout)

    @property
    def method_names(self) -> list[str]:
        return names_of(self.methods)

    def data_options(self) -> dict:
        """The options that shape the data, as :func:`~._inputs.load_data` takes them."""
        keys = ("label", "labels", "layer", "feature_names", "transpose", "missing",
                "drop_nominal", "encode_nominal", "scale", "annotation")
        return {k: getattr(self, k) for k in keys}

    def recorded_data_options(self, applied_scale: str | None = None) -> dict:
        """The data options for ``run.json``'s configuration: the ones in use, as text.

        ``scale`` enters as the scale *applied* (``applied_scale``, from
        :func:`~stablefs.comparison._inputs.apply_scale`), and only when it is ``log2``: the
        same values analysed the same way are the same configuration whichever option asked
        for them (``--log2``, or ``--scale auto`` on raw-looking data), and runs of the
        earlier default (``raw``) on log-scale data stay reusable."""
        out = {}
        for k, v in self.data_options().items():
            if k == "scale":
                v = applied_scale if applied_scale is not None else v
                if v != "log2":
                    continue
            if v in (None, False):
                continue
            out[k] = v if isinstance(v, (str, bool, int, float)) else repr(v)
        return out

    def trust_settings(self) -> TrustSettings:
        from stablefs.comparison._trust import TrustSettings

        # (outer, inner) once check() ran
        outer, inner = self.nested if isinstance(self.nested, tuple) else parse_nested(self.nested)
        return TrustSettings(int(self.permutations), int(self.permutation_resamples),
                             outer, inner)

    def as_dict(self) -> dict:
        """Every option by name (``--print-config``, the API's record)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def _whole(name: str, value, minimum: int, *, why: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise StablefsError(f"{name} = {value!r}: must be a whole number of at least "
                            f"{minimum}{why}.")


def _protocol(protocol, repeats):
    from stablefs.evaluation.protocols import Protocol

    if isinstance(protocol, Protocol):
        return protocol
    if isinstance(protocol, str):
        return Protocol.parse(protocol, repeats)
    if hasattr(protocol, "split"):
        return protocol  # a scikit-learn splitter (Python only)
    raise StablefsError(f"protocol must be a protocol string such as 'split' or 'cv:5', a "
                        f"Protocol or a scikit-learn splitter, not {type(protocol).__name__}.")


def check_measures(measures: list) -> list:
    """The stability measures, each known (an unknown one lists the close matches)."""
    from stablefs.stability import available_measures

    if not measures:
        raise StablefsError("--stability is empty: name at least one measure, e.g. "
                            "--stability kuncheva (see 'stablefs measures').")
    known = available_measures()
    for m in measures:
        if m not in known:
            close = difflib.get_close_matches(str(m), known, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise StablefsError(f"unknown stability measure {m!r}.{hint} Run 'stablefs "
                                "measures' for the full list.")
    return list(measures)


def parse_nested(nested) -> tuple[int, int]:
    """``"OUTER:INNER"``, ``(outer, inner)`` or 0 / ``"0"`` / None (skip) as ``(outer,
    inner)``."""
    if nested in (None, 0, False) or (isinstance(nested, str)
                                      and nested.strip().lower() in ("0", "none", "off")):
        return 0, 0
    try:
        if isinstance(nested, str):
            outer, inner = (int(v) for v in nested.strip().split(":"))
        else:
            outer, inner = (int(v) for v in nested)
    except (ValueError, TypeError):
        raise StablefsError(f"cannot read --nested {nested!r}: write OUTER:INNER, e.g. "
                            "--nested 10:5, or --nested 0 to skip it.") from None
    if outer < 1 or inner < 2:
        raise StablefsError(f"--nested {nested}: OUTER must be at least 1 and INNER at least "
                            "2 (stability compares resamples), or 0 to skip.")
    return outer, inner


def options_dict(options: CompareOptions) -> dict:
    """A plain dict of the options (dataclass fields only)."""
    return asdict(options)
