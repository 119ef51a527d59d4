"""The ``stablefs`` command line (``docs/DESIGN.md``, "Command line").

Bad input ends with one line on stderr, ``stablefs: error: ...``, and exit status 2;
Ctrl-C ends with status 130 and keeps every finished fit for a resumed rerun.
"""

from __future__ import annotations

import datetime as _dt
import re
import shlex
import sys
import time
from pathlib import Path

import click

from stablefs import __version__
from stablefs._errors import StablefsError

DEFAULT_DATA = "synthetic:han2012"
DEFAULT_METHODS = "relieff,iw-relieff,en-relieff"
DEFAULT_SIZES = (10, 20, 30, 40, 50)


def split_list(text: str) -> list[str]:
    """Split a comma-separated list, keeping commas inside parentheses:
    ``"relieff(n_neighbors=5,x=1),ttest"`` -> ``["relieff(n_neighbors=5,x=1)", "ttest"]``."""
    items, depth, current = [], 0, []
    for ch in text:
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
            continue
        depth += (ch == "(") - (ch == ")")
        current.append(ch)
    items.append("".join(current).strip())
    return [i for i in items if i]


def parse_sizes(text: str | None, n_features: int) -> list[int]:
    """``"10,20,50"`` or a range ``"10:50:10"``; default 10..50 by 10 (those below p)."""
    if text is None:
        sizes = [k for k in DEFAULT_SIZES if k < n_features]
        return sizes or [max(1, n_features // 2)]
    out = []
    for part in split_list(text):
        try:
            if ":" in part:
                a, b, *step = (int(v) for v in part.split(":"))
                out.extend(range(a, b + 1, step[0] if step else 1))
            else:
                out.append(int(part))
        except ValueError:
            raise StablefsError(
                f"cannot read subset size {part!r}: use whole numbers like -k 10,20,50 or a "
                "range like -k 10:50:10."
            ) from None
    return out


def _load(data, label, drop_nominal, drop_missing, encode_nominal, data_home=None):
    from stablefs.datasets import load

    return load(data, label=label, data_home=data_home, drop_nominal=drop_nominal,
                drop_missing=drop_missing, encode_nominal=encode_nominal)


def _versions() -> dict:
    import joblib
    import numpy
    import pandas
    import scipy
    import sklearn

    return {"stablefs": __version__, "python": sys.version.split()[0], "numpy": numpy.__version__,
            "scipy": scipy.__version__, "scikit-learn": sklearn.__version__,
            "pandas": pandas.__version__, "joblib": joblib.__version__}


def _default_out(name: str) -> Path:
    return Path("stablefs-" + re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-"))


data_options = [
    click.option("--label", default=None, help="Name of the class column (default: 'label', "
                 "or the last column of a headerless file)."),
    click.option("--drop-nominal", is_flag=True, help="Drop nominal (non-numeric) attributes "
                 "of ARFF files instead of refusing the file."),
    click.option("--drop-missing", is_flag=True, help="Drop samples with missing values "
                 "instead of refusing the file."),
    click.option("--encode-nominal", is_flag=True, help="Turn nominal attributes into 0/1 "
                 "indicator columns (as Weka's NominalToBinary) instead of refusing the file."),
]


def with_data_options(f):
    for opt in reversed(data_options):
        f = opt(f)
    return f


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="stablefs")
def cli():
    """Stable feature selection: stable selectors, stability measures, and comparisons of
    stability and accuracy on your own data."""


@cli.command()
@click.argument("data", required=False, default=DEFAULT_DATA)
@click.option("-m", "--methods", default=DEFAULT_METHODS, show_default=True,
              help="Comma-separated method strings (see 'stablefs methods').")
@click.option("-k", "--sizes", default=None,
              help="Subset sizes, e.g. 10,20,50 or 10:50:10 [default: 10,20,30,40,50].")
@click.option("--protocol", default="split", show_default=True,
              help="'split' (random stratified 2/3 splits) or 'cv' (repeated 10-fold; 'cv:5').")
@click.option("--repeats", type=int, default=None,
              help="Number of splits, or of k-fold repeats [default: 20 splits, 10 repeats].")
@click.option("--classifiers", default="svm,1nn", show_default=True,
              help="Classifiers trained on each selected subset: svm, 1nn, 3nn.")
@click.option("--stability", "measures", default="kuncheva,nogueira", show_default=True,
              help="Stability measures (see 'stablefs measures').")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Output folder [default: ./stablefs-DATA]. Rerun with the same folder to "
                   "resume an interrupted run.")
@click.option("--n-jobs", type=int, default=1, show_default=True,
              help="Parallel fits (-1 = all cores). Results do not depend on it.")
@click.option("--backend", type=click.Choice(["loky", "dask"]), default="loky", show_default=True)
@click.option("--scheduler", default=None, help="Dask scheduler address (with --backend dask).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--progress/--no-progress", default=None,
              help="Progress bar [default: when stderr is a terminal].")
@click.option("--no-report", is_flag=True, help="Skip report.md / report.html.")
@with_data_options
def compare(data, methods, sizes, protocol, repeats, classifiers, measures, out, n_jobs, backend,
            scheduler, seed, progress, no_report, label, drop_nominal, drop_missing,
            encode_nominal):
    """Compare the stability and accuracy of METHODS on DATA [default: synthetic:han2012].

    DATA is a file (.csv/.tsv/.txt[.gz], .arff, .npz), a registry name (colon, leukemia,
    prostate, lung, srbct, dlbcl) or a synthetic spec such as
    'synthetic:han2012?n_samples=200'.
    """
    from stablefs.evaluation.outputs import save_result
    from stablefs.evaluation.protocols import Protocol
    from stablefs.evaluation.runner import run_experiment

    ds = _load(data, label, drop_nominal, drop_missing, encode_nominal)
    from stablefs.methods import parse_method

    method_list = split_list(methods)
    if not method_list:
        raise StablefsError("no method given: use e.g. -m relieff,iw-relieff.")
    for m in method_list:
        parse_method(m)  # a bad method string fails before any output
    size_list = parse_sizes(sizes, ds.n_features)
    proto = Protocol.parse(protocol, repeats)
    out_dir = Path(out) if out else _default_out(ds.name)
    if progress is None:
        progress = sys.stderr.isatty()
    started = _dt.datetime.now().astimezone()
    click.echo(f"{ds!r}\n{proto.describe()}; methods {', '.join(method_list)}; "
               f"k = {', '.join(map(str, sorted(set(size_list))))}; output {out_dir}", err=True)
    t0 = time.perf_counter()
    result = run_experiment(
        ds.X, ds.y, method_list, size_list, protocol=proto, classifiers=split_list(classifiers),
        measures=split_list(measures), feature_names=ds.feature_names, random_state=seed,
        n_jobs=n_jobs, backend=backend, scheduler=scheduler, out_dir=out_dir, progress=progress)
    elapsed = time.perf_counter() - t0
    run_info = {
        "command": "stablefs " + " ".join(shlex.quote(a) for a in sys.argv[1:]),
        "data": ds.name, "source": ds.source, "n_samples": ds.n_samples,
        "n_features": ds.n_features, "classes": ds.class_counts(), "data_meta": ds.meta,
        "methods": method_list, "sizes": sorted(set(size_list)),
        "protocol": proto.describe(), "protocol_config": proto.__dict__,
        "classifiers": split_list(classifiers), "measures": split_list(measures),
        "seed": seed, "n_jobs": n_jobs, "backend": backend,
        "started": started.isoformat(timespec="seconds"),
        "finished": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "wall_time_s": round(elapsed, 3), "versions": _versions(),
    }
    paths = save_result(result, out_dir, run_info, report=not no_report)
    click.echo(_summary_table(result))
    click.echo(f"\nwall time {elapsed:.1f} s; wrote "
               + ", ".join(sorted(str(Path(p).name) for k, p in paths.items()
                                  if not isinstance(p, list)))
               + f" in {out_dir}/")


def _summary_table(result) -> str:
    import pandas as pd

    lines = []
    stab = result.stability
    for measure in stab["measure"].unique():
        t = stab[stab["measure"] == measure].pivot(index="method", columns="k", values="estimate")
        t = t.reindex(stab["method"].unique())
        lines.append(f"\n{measure} stability (rows: method, columns: k)\n"
                     + t.to_string(float_format=lambda v: f"{v:.3f}"))
    res = result.results
    for metric in [m for m in res["metric"].unique() if m.startswith("accuracy_")]:
        t = (res[res["metric"] == metric].groupby(["method", "k"])["value"].mean()
             .unstack("k").reindex(res["method"].unique()))
        lines.append(f"\nmean {metric.replace('_', ' ')} on held-out samples\n"
                     + t.to_string(float_format=lambda v: f"{v:.3f}"))
    ft = res[res["metric"] == "fit_time"].groupby("method")["value"].mean()
    ft = ft.reindex(res["method"].unique())
    lines.append("\nmean fit time per resample (s)\n"
                 + pd.DataFrame({"seconds": ft}).to_string(float_format=lambda v: f"{v:.3f}"))
    return "\n".join(lines)


@cli.command()
@click.argument("data")
@click.option("-m", "--method", required=True, help="One method string, e.g. iw-relieff.")
@click.option("-k", "--size", "k", type=int, required=True, help="Number of features to select.")
@click.option("--resamples", type=int, default=0, show_default=True,
              help="Also fit on R random stratified 2/3 subsamples and report each feature's "
                   "selection frequency in their top-k.")
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="CSV file for the full ranking [default: print the top k].")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--n-jobs", type=int, default=1, show_default=True)
@with_data_options
def select(data, method, k, resamples, out, seed, n_jobs, label, drop_nominal, drop_missing,
           encode_nominal):
    """Fit METHOD on all of DATA and list the ranked features with their scores."""
    import numpy as np
    import pandas as pd

    from stablefs._io import atomic_write_text
    from stablefs.methods import make_selector

    ds = _load(data, label, drop_nominal, drop_missing, encode_nominal)
    if resamples < 0:
        raise StablefsError(f"--resamples must be 0 or more, not {resamples}.")
    selector = make_selector(method, random_state=seed, n_jobs=n_jobs)
    selector.set_params(n_features_to_select=k)
    selector.fit(ds.X, ds.y)
    table = pd.DataFrame({"rank": selector.ranking_, "feature": ds.feature_names,
                          "score": selector.scores_, "selected": selector.support_})
    if resamples:
        from stablefs.evaluation.protocols import Protocol
        from stablefs.evaluation.runner import run_experiment

        res = run_experiment(ds.X, ds.y, [method], [k], protocol=Protocol("split", resamples),
                             classifiers=["1nn"], measures=["kuncheva"],
                             feature_names=ds.feature_names, random_state=seed, n_jobs=n_jobs)
        rankings = np.stack(res.selections["ranking"].to_list())
        freq = (rankings <= k).mean(axis=0)
        table["frequency"] = freq
        kun = res.stability["estimate"].iloc[0]
        click.echo(f"Kuncheva stability of the top {k} over {resamples} subsamples: {kun:.3f}",
                   err=True)
    table = table.sort_values("rank").reset_index(drop=True)
    if out:
        atomic_write_text(Path(out), table.to_csv(index=False))
        click.echo(f"wrote {len(table)} ranked features to {out}", err=True)
    else:
        click.echo(table.head(k).to_string(index=False))


@cli.command()
def datasets():
    """List the named data sets and where each file was found."""
    import pandas as pd

    from stablefs.datasets import registry_table

    click.echo(pd.DataFrame(registry_table()).to_string(index=False))


@cli.command()
def methods():
    """List the method strings with one-line descriptions."""
    from stablefs.methods import describe_methods

    rows = describe_methods()
    width = max(len(n) for n, _ in rows)
    for name, desc in rows:
        click.echo(f"{name:<{width}}  {desc}")
    click.echo("\nParameters go in parentheses, e.g. relieff(n_neighbors=5), "
               "en-relieff(n_estimators=40).")


@cli.command()
def measures():
    """List the stability measures usable with --stability."""
    from stablefs.stability import MEASURES

    for name in sorted(MEASURES):
        doc = (getattr(MEASURES[name], "description", None)
               or (getattr(MEASURES[name], "__doc__", "") or "").strip().splitlines()[0:1])
        if isinstance(doc, list):
            doc = doc[0] if doc else ""
        click.echo(f"{name:<14}  {doc}")


def main(argv=None) -> int:
    """Entry point: run the command; bad input gives one line and exit status 2."""
    try:
        cli.main(args=argv, prog_name="stablefs", standalone_mode=False)
    except StablefsError as exc:
        click.echo(f"stablefs: error: {exc}", err=True)
        return 2
    except click.exceptions.Abort:
        click.echo("stablefs: interrupted; finished fits are kept: rerun the same command "
                   "to resume.", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("stablefs: interrupted; finished fits are kept: rerun the same command "
                   "to resume.", err=True)
        return 130
    except click.exceptions.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
