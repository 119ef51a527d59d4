"""Helpers shared by the CLI tests: a small two-class table, running ``stablefs`` in-process,
and a snapshot of a folder's files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from stablefs.cli import main


def write_toy(path: Path, seed: int = 0, n: int = 30, p: int = 12) -> Path:
    """A ``label`` + ``g0..g{p-1}`` CSV with signal in the first three features."""
    rng = np.random.default_rng(seed)
    y = np.repeat(["a", "b"], n // 2)
    X = rng.normal(size=(n, p))
    X[:, :3] += 1.2 * (y == "b")[:, None]
    df = pd.DataFrame(X, columns=[f"g{j}" for j in range(p)])
    df.insert(0, "label", y)
    df.to_csv(path, index=False)
    return path


def run(args, capsys):
    """``stablefs ARGS`` in-process: ``(exit code, stdout, stderr)``."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def snapshot(folder: Path) -> dict:
    """The bytes of every file under ``folder`` but the lock, by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != ".lock"}
