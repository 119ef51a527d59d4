"""Atomic writes: complete files or nothing, never a stray temporary file."""

from __future__ import annotations

import os
import stat

import pytest

from stablefs._runtime.io import atomic_path, atomic_write_bytes, atomic_write_text


def _names(folder):
    return sorted(p.name for p in folder.iterdir())


def test_write_text_creates_file_and_leaves_no_temp(tmp_path):
    path = tmp_path / "sub" / "results.csv"
    out = atomic_write_text(path, "a,b\n1,2\n")
    assert out == path
    assert path.read_bytes() == b"a,b\n1,2\n"  # no newline translation
    assert _names(path.parent) == ["results.csv"]


def test_write_bytes_replaces_existing_file(tmp_path):
    path = tmp_path / "fig.png"
    path.write_bytes(b"old")
    atomic_write_bytes(path, b"\x89PNG new")
    assert path.read_bytes() == b"\x89PNG new"
    assert _names(tmp_path) == ["fig.png"]


def test_write_text_encoding(tmp_path):
    path = tmp_path / "r.md"
    atomic_write_text(path, "µ × ±", encoding="utf-8")
    assert path.read_text(encoding="utf-8") == "µ × ±"


def test_atomic_path_renames_on_success(tmp_path):
    path = tmp_path / "data.npz"
    with atomic_path(path) as tmp:
        assert tmp.parent == tmp_path
        assert tmp.suffix == ".npz"  # writers that infer the format keep working
        assert tmp.name.startswith(".")  # hidden from globs such as *.npz
        assert not path.exists()  # nothing visible until the block succeeds
        tmp.write_bytes(b"payload")
    assert path.read_bytes() == b"payload"
    assert _names(tmp_path) == ["data.npz"]


def test_failure_inside_atomic_path_leaves_original_untouched(tmp_path):
    path = tmp_path / "run.json"
    path.write_text('{"finished": true}')
    with pytest.raises(RuntimeError, match="boom"), atomic_path(path) as tmp:
        tmp.write_text('{"trunc')
        raise RuntimeError("boom")
    assert path.read_text() == '{"finished": true}'
    assert _names(tmp_path) == ["run.json"]


def test_failure_without_original_leaves_nothing(tmp_path):
    path = tmp_path / "report.html"
    with pytest.raises(KeyboardInterrupt), atomic_path(path) as tmp:
        tmp.write_text("<html>")
        raise KeyboardInterrupt
    assert _names(tmp_path) == []


def test_failure_inside_writer_of_write_bytes(tmp_path, monkeypatch):
    path = tmp_path / "x.bin"
    path.write_bytes(b"keep")

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        atomic_write_bytes(path, b"new")
    assert path.read_bytes() == b"keep"
    assert _names(tmp_path) == ["x.bin"]


def test_temp_names_do_not_collide(tmp_path):
    path = tmp_path / "a.txt"
    with atomic_path(path) as t1, atomic_path(path) as t2:
        assert t1 != t2
        t1.write_text("first")
        t2.write_text("second")
    assert path.read_text() == "first"  # t1's block exits last, so its content wins
    assert _names(tmp_path) == ["a.txt"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_new_file_gets_normal_permissions_and_replacement_keeps_them(tmp_path):
    path = tmp_path / "new.txt"
    atomic_write_text(path, "x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    os.chmod(path, 0o640)
    atomic_write_text(path, "y")
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
