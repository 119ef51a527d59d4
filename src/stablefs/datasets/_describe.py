"""``stablefs datasets NAME``: what a named set predicts, on what platform, on what scale."""

from __future__ import annotations

from stablefs.datasets._registry import entry_for, fetch, find_local, tilde
from stablefs.datasets._scale import value_scale

#: array platform of each registry set, as its publication describes it (registry name ->
#: text); sets whose platform the project has not checked are absent ("not recorded")
PLATFORMS: dict[str, str] = {
    "alon": "Affymetrix Hum6000 oligonucleotide arrays (the 2000 genes of highest minimal "
            "intensity)",
    "golub": "Affymetrix Hu6800 (HuGeneFL) oligonucleotide arrays",
    "shipp": "Affymetrix Hu6800 (HuGeneFL) oligonucleotide arrays",
    "pomeroy": "Affymetrix Hu6800 (HuGeneFL) oligonucleotide arrays",
    "west": "Affymetrix Hu6800 (HuGeneFL) oligonucleotide arrays",
    "singh": "Affymetrix HG-U95Av2 oligonucleotide arrays",
    "gordon": "Affymetrix HG-U95A oligonucleotide arrays",
    "borovecki": "Affymetrix HG-U133A oligonucleotide arrays (22283 probe sets)",
    "chowdary": "Affymetrix HG-U133A oligonucleotide arrays (22283 probe sets)",
    "nakayama": "Affymetrix HG-U133A oligonucleotide arrays (22283 probe sets)",
    "khan": "two-colour cDNA microarrays (6567 genes, filtered to 2308)",
    "sorlie": "two-colour cDNA microarrays (Stanford)",
    "christensen": "Illumina GoldenGate methylation arrays (CpG loci, not expression)",
    "gravier": "array CGH, BAC clones (DNA copy number, not expression)",
}


def describe_dataset(name: str, data_home=None) -> str:
    """A few lines on registry set ``name``: what is predicted (class names and counts), the
    number of samples and features, the platform, the source, and, when a copy is on this
    machine, the value scale (min/median/max and whether it looks like raw intensities,
    :func:`stablefs.datasets._scale.value_scale`). Nothing is downloaded."""
    entry = entry_for(name)
    counts = ", ".join(f"{c} {n}" for c, n in entry.classes.items())
    lines = [
        f"{entry.label}: {entry.description}",
        f"  predicts     {len(entry.classes)} classes: {counts}",
        f"  size         {entry.n_samples} samples x {entry.n_features} features",
        f"  platform     {PLATFORMS.get(entry.name, 'not recorded')}",
        f"  source       {entry.full_reference}; datamicroarray collection",
    ]
    if find_local(entry.name, data_home) is None:
        lines.append(f"  values       not on this machine: 'stablefs datasets --download "
                     f"{entry.name}' fetches it")
        return "\n".join(lines)
    from stablefs.datasets._readers import ReadOptions, read_file

    path = fetch(entry.name, data_home, download=False)
    ds = read_file(path, ReadOptions.make())
    lines.append(f"  values       {value_scale(ds.X).describe()}")
    lines.append(f"  file         {tilde(path)}")
    return "\n".join(lines)
