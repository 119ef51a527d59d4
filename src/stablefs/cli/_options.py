"""Command-line options that several commands share, declared once: the scheduler, the data
options, verbosity, ``--json`` and ``--config``."""

from __future__ import annotations

import click

from stablefs._errors import StablefsError
from stablefs.comparison._options import MISSING_CHOICES
from stablefs.evaluation._checks import SCHEDULER_TIMEOUT  # the Python functions' default


def scheduler_options(local: str):
    """``--scheduler ADDRESS`` and ``--scheduler-timeout SECONDS`` (``compare``, ``reproduce``,
    ``benchmark``); ``local`` says what runs without ``--scheduler``."""

    def decorate(command):
        command = click.option(
            "--scheduler-timeout", type=float, default=SCHEDULER_TIMEOUT, show_default=True,
            metavar="SECONDS",
            help="Time a --scheduler gets to complete the Dask handshake before the run is "
                 "refused.")(command)
        return click.option(
            "--scheduler", default=None, metavar="ADDRESS",
            help=f"Dask scheduler address, e.g. tcp://10.0.0.5:8786 (with --backend dask; "
                 f"default: {local}).")(command)

    return decorate


DATA_OPTIONS = [
    click.option("--label", default=None, help="Name of the class column (default: 'label', "
                 "or the last column of a headerless file)."),
    click.option("--labels", "labels", default=None, metavar="FILE[:COL]",
                 help="Class labels from a separate sample sheet, joined on sample IDs "
                      "(column 'label' unless :COL is given)."),
    click.option("--transpose", is_flag=True, help="The file is genes x samples (features in "
                 "rows, samples in columns), the usual layout of expression matrices."),
    click.option("--layer", default=None, metavar="NAME",
                 help="AnnData (.h5ad) only: analyse adata.layers[NAME] instead of adata.X."),
    click.option("--missing", type=click.Choice(MISSING_CHOICES), default=None,
                 help="Missing values: drop the samples or the features that have them, or "
                      "impute per-feature medians fitted on each training part [default: "
                      "refuse the file]."),
    click.option("--drop-missing", is_flag=True, help="Same as --missing drop-samples."),
    click.option("--drop-nominal", is_flag=True, help="Drop nominal (non-numeric) attributes "
                 "instead of refusing the file."),
    click.option("--encode-nominal", is_flag=True, help="Turn nominal attributes into 0/1 "
                 "indicator columns (as Weka's NominalToBinary) instead of refusing the file."),
    click.option("--scale", type=click.Choice(["auto", "raw", "log2"]), default=None,
                 help="How the values are analysed: log2(max(x, 0) + 1) when they look like "
                      "raw (unlogged) intensities, else as given (auto: said in one line and "
                      "in the report, recorded in run.json); as given (raw); or always "
                      "log2(max(x, 0) + 1) (log2; negative values, below background, count "
                      "as 0). [default: auto]"),
    click.option("--log2", is_flag=True, help="Same as --scale log2."),
    click.option("--annotation", default=None, metavar="FILE",
                 help="Probe -> gene symbol table (csv/tsv, optional header; first column "
                      "the probe IDs, second the symbols): symbols beside probe IDs in the "
                      "report, signature.csv and signature.gmt."),
]


def with_data_options(f):
    for opt in reversed(DATA_OPTIONS):
        f = opt(f)
    return f


def data_option_values(label, labels, transpose, layer, missing, drop_missing, drop_nominal,
                       encode_nominal, scale, log2, annotation) -> dict:
    """The data options as :class:`~stablefs.comparison._options.CompareOptions` fields;
    contradictions refused in one line."""
    if drop_missing and missing not in (None, "drop-samples"):
        raise StablefsError(f"--drop-missing contradicts --missing {missing}: give one of them.")
    if log2 and scale not in (None, "log2"):
        raise StablefsError(f"--log2 contradicts --scale {scale}: give one of them.")
    return {"label": label, "labels": labels, "transpose": transpose, "layer": layer,
            "missing": "drop-samples" if drop_missing else missing,
            "drop_nominal": drop_nominal, "encode_nominal": encode_nominal,
            "scale": "log2" if log2 else (scale or "auto"), "annotation": annotation}


def verbosity_options(f):
    f = click.option("-v", "--verbose", count=True,
                     help="More messages: -v the chosen options, the resamples' sizes and the "
                          "time of each method's fits; -vv also every resample's class "
                          "counts.")(f)
    f = click.option("-q", "--quiet", is_flag=True,
                     help="Only errors and the results; no progress bar.")(f)
    return f


def json_option(f):
    return click.option(
        "--json", "as_json", is_flag=True,
        help="Print one JSON object on stdout (the files written, the result, the verdict) "
             "and nothing else there; messages stay on stderr.")(f)


def allow_huge_option(command):
    """``--allow-huge``: run although the counts promise more work than 30 days on this
    machine's cores, or results beyond its memory (:mod:`stablefs.evaluation.budget`)."""
    return click.option(
        "--allow-huge", "allow_huge", is_flag=True,
        help="Run even when the counts (--repeats, --permutations, --nested, a method's "
             "n_estimators, ...) promise more than 30 days of work on this machine's cores or "
             "results beyond its memory; without it such a run is refused before any "
             "work.")(command)
