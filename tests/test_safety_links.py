"""Every file a run reads is read as itself (issue 35, finding 1; ``docs/security.md``, "Files
that point elsewhere").

An ``.h5ad`` may hold values that live in other files (external links, virtual datasets,
external storage): each is refused in one line before AnnData opens the file. The other
formats are audited for the same: an ARFF file has no include directive, an ``.npz`` member is
its own bytes (a zip "symlink" entry is not followed), a Parquet column chunk that names another
file is not read from it, and a data file reached through a symbolic link is fingerprinted by
what it points to.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_helpers import run, write_toy
from stablefs import StablefsError
from stablefs._errors import EXIT_DATA
from stablefs.datasets import load

h5py = pytest.importorskip("h5py")


def one_line(info, *needles) -> str:
    msg = str(info.value)
    assert "\n" not in msg, msg
    for n in needles:
        assert n in msg, (n, msg)
    return msg


@pytest.fixture
def elsewhere(tmp_path) -> Path:
    """A file outside the data's folder whose values must never reach a run."""
    other = tmp_path / "private" / "secret.h5"
    other.parent.mkdir()
    with h5py.File(other, "w") as f:
        f["data"] = np.full((4, 3), 7.0)
    return other


def _h5ad(path: Path, build) -> Path:
    with h5py.File(path, "w") as f:
        f.create_group("obs")
        f.create_group("var")
        build(f)
    return path


def test_external_link_is_refused_naming_its_target(tmp_path, elsewhere):
    path = _h5ad(tmp_path / "d.h5ad",
                 lambda f: f.__setitem__("X", h5py.ExternalLink(str(elsewhere), "/data")))
    with h5py.File(path, "r") as f:  # h5py itself follows it without a word
        assert f["X"][0, 0] == 7.0
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, str(path), "/X is an external link to", str(elsewhere), "the file itself")


def test_external_link_deep_in_a_group_is_refused(tmp_path, elsewhere):
    def build(f):
        f["X"] = np.zeros((4, 3))
        f["obs"]["deep"] = h5py.ExternalLink(str(elsewhere), "/data")

    with pytest.raises(StablefsError) as info:
        load(_h5ad(tmp_path / "d.h5ad", build))
    one_line(info, "/obs/deep is an external link")


def test_virtual_dataset_is_refused(tmp_path, elsewhere):
    def build(f):
        layout = h5py.VirtualLayout(shape=(4, 3), dtype="f8")
        layout[:] = h5py.VirtualSource(str(elsewhere), "data", shape=(4, 3))
        f.create_virtual_dataset("X", layout)

    with pytest.raises(StablefsError) as info:
        load(_h5ad(tmp_path / "d.h5ad", build))
    one_line(info, "/X is a virtual dataset mapped from", str(elsewhere))


def test_external_storage_is_refused(tmp_path):
    raw = tmp_path / "private.bin"
    raw.write_bytes(np.full(12, 7.0).tobytes())

    def build(f):
        f.create_dataset("X", shape=(4, 3), dtype="f8", external=[(str(raw), 0, 96)])

    path = _h5ad(tmp_path / "d.h5ad", build)
    with h5py.File(path, "r") as f:
        assert f["X"][0, 0] == 7.0  # the bytes of any file, read as values
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "/X keeps its values in external file(s)", str(raw))


def test_cli_refuses_the_linked_h5ad_before_any_work(tmp_path, elsewhere, capsys):
    path = _h5ad(tmp_path / "d.h5ad",
                 lambda f: f.__setitem__("X", h5py.ExternalLink(str(elsewhere), "/data")))
    out = tmp_path / "run"
    code, stdout, err = run(["compare", path, "--out", out], capsys)
    assert code == EXIT_DATA and err.count("\n") == 1 and "external link" in err, err
    assert not out.exists() and stdout == ""


def test_soft_links_and_hard_link_cycles_inside_the_file_pass(tmp_path):
    from stablefs.datasets._h5ad import check_h5ad_sizes

    def build(f):
        f["X"] = np.arange(12.0).reshape(4, 3)
        f["obs"]["alias"] = h5py.SoftLink("/X")  # a path inside the same file
        f["obs"]["dangling"] = h5py.SoftLink("/nowhere")
        g = f.create_group("a/b")
        g["up"] = f["a"]  # a hard-link cycle: visited once

    check_h5ad_sizes(_h5ad(tmp_path / "ok.h5ad", build))


def test_anndata_written_file_passes_the_check(tmp_path):
    anndata = pytest.importorskip("anndata")
    from stablefs.datasets._h5ad import check_h5ad_sizes

    adata = anndata.AnnData(X=np.arange(12.0).reshape(4, 3),
                            obs=pd.DataFrame({"label": list("abab")},
                                             index=[f"s{i}" for i in range(4)]))
    adata.write_h5ad(tmp_path / "a.h5ad")
    check_h5ad_sizes(tmp_path / "a.h5ad")


# ---------------------------------------------------------------------- the other formats


def test_arff_has_no_include_directive(tmp_path):
    secret = tmp_path / "secret.arff"
    secret.write_text("@relation s\n@attribute g numeric\n@attribute c {a,b}\n@data\n1,a\n")
    path = tmp_path / "d.arff"
    path.write_text(f"@relation r\n@include {secret}\n@attribute g numeric\n"
                    "@attribute c {a,b}\n@data\n1,a\n2,b\n3,a\n")
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "line 2", "expected @relation, @attribute or @data")
    path.write_text("@relation r\n@attribute g relational\n@attribute c {a,b}\n@data\n1,a\n")
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "'relational'", "not supported")


def test_npz_symlink_member_is_read_as_its_own_bytes(tmp_path):
    """A zip entry flagged as a Unix symbolic link holds the target's path as its bytes;
    ``np.load`` reads those bytes, never the target."""
    target = tmp_path / "X.npy"
    np.save(target, np.full((4, 3), 7.0))
    path = tmp_path / "d.npz"
    with zipfile.ZipFile(path, "w") as zf:
        link = zipfile.ZipInfo("X.npy")
        link.external_attr = (0o120777 << 16)  # S_IFLNK
        zf.writestr(link, str(target))
        zf.writestr("y.npy", b"")
    with pytest.raises(StablefsError) as info:
        load(path)
    one_line(info, "not a valid .npz")


def test_parquet_column_chunk_naming_another_file_is_not_read_from_it(tmp_path):
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    from stablefs.evaluation.outputs import read_selections

    other = tmp_path / "other.parquet"
    table = pa.table({"method": ["secret"], "resample": [0], "fit_time": [0.0],
                      "train": [[1, 2]], "ranking": [[1, 2]], "scores": [[0.5, 0.5]]})
    pq.write_table(table, other)
    meta = pq.read_metadata(other)
    meta.set_file_path(str(other))  # every column chunk "lives in" other.parquet
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    pq.write_metadata(table.schema, run_dir / "selections.parquet", metadata_collector=[meta])
    with pytest.raises(StablefsError) as info:
        read_selections(run_dir)
    one_line(info, "selections.parquet", "cannot be read")


def test_symlinked_input_is_fingerprinted_by_what_it_points_to(tmp_path, capsys):
    from stablefs._runtime.rundir import file_sha256
    from stablefs.comparison._inputs import input_fingerprints

    real = write_toy(tmp_path / "real.csv")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    prints = input_fingerprints(load(link), {})
    assert prints == input_fingerprints(load(real), {}) == {"data": file_sha256(real)}
    args = ["compare", link, "-m", "ttest", "-k", "3", "--repeats", "3", "--classifiers",
            "1nn", "--no-report", "--no-progress", "--permutations", "0", "--nested", "0",
            "--out", tmp_path / "run", "-q"]
    assert run(args, capsys)[0] == 0
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["config"]["inputs"] == prints
    # the file the link points to changes (same shape and digest of X would not matter):
    # the finished run is another configuration, never reused
    write_toy(real, seed=1)
    code, _, err = run(args, capsys)
    assert code == 2 and "another configuration" in err, err
