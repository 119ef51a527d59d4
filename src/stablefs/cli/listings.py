"""The listing commands: ``stablefs datasets`` (the registry, and downloads), ``stablefs
methods`` and ``stablefs measures``."""

from __future__ import annotations

import click

from stablefs._errors import StablefsError

__all__ = ["datasets", "measures", "methods"]


@click.command()
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.option("--download", is_flag=True,
              help="Download (and convert) the named sets now, one line per set.")
def datasets(names, download):
    """List the named data sets and where each file is, or download some.

    The 16 microarray sets of the datamicroarray collection (Ramey 2016), with the names the
    reproduced papers use as aliases (colon, leukemia, prostate, lung, srbct, dlbcl). NAMEs
    alone describe those sets (classes and counts, features, platform, value scale: raw
    intensities or log scale); with --download they are fetched into the cache (sha256-checked,
    then converted).
    """
    from stablefs.datasets import _registry as reg

    names = [n.strip() for part in names for n in part.split(",") if n.strip()]
    entries = [reg.entry_for(n) for n in names]  # every name checked before any download
    if not download:
        if names:  # what each named set predicts, its platform and value scale
            from stablefs.datasets._describe import describe_dataset

            click.echo("\n\n".join(describe_dataset(e.name) for e in
                                    {e.name: e for e in entries}.values()))
            return
        click.echo(reg.format_registry_table(names=None))
        return
    if not entries:
        raise StablefsError("--download needs set names, e.g. 'stablefs datasets --download "
                            "alon golub'; 'stablefs datasets' lists them.")
    entries = list({e.name: e for e in entries}.values())  # "alon colon" is one set
    width = max(len(e.label) for e in entries)
    shapes = [f"{e.n_samples} x {e.n_features}" for e in entries]
    for entry, shape in zip(entries, shapes):
        res = reg.fetch_dataset(entry.name)
        what = {"found": "present", "converted": "converted from " + reg.tilde(res.source or ""),
                "downloaded": "downloaded and converted"}[res.action]
        click.echo(f"{entry.label:<{width}}  {shape:<{max(map(len, shapes))}}  {what}: "
                   f"{reg.tilde(res.path)}")


@click.command()
def methods():
    """List the method strings with one-line descriptions."""
    from stablefs.methods import describe_methods

    rows = describe_methods()
    width = max(len(n) for n, _ in rows)
    for name, desc in rows:
        click.echo(f"{name:<{width}}  {desc}")
    click.echo("\nParameters go in parentheses, e.g. relieff(n_neighbors=5), "
               "en-relieff(n_estimators=40).")


@click.command()
def measures():
    """List the stability measures usable with --stability."""
    from stablefs.stability import MEASURES

    for name in sorted(MEASURES):
        doc = (getattr(MEASURES[name], "description", None)
               or (getattr(MEASURES[name], "__doc__", "") or "").strip().splitlines()[0:1])
        if isinstance(doc, list):
            doc = doc[0] if doc else ""
        click.echo(f"{name:<14}  {doc}")
