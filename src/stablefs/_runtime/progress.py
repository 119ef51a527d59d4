"""Progress on stderr: a bar on a terminal, a line every 10 % (or every 30 s) in a log.

``make_progress(mode, total, ...)`` with ``mode``:

- ``"bar"`` (or ``True``): a tqdm bar (a terminal);
- ``"lines"``: one line ``stablefs: compare: 40% (24 of 60 fits, 12 s)`` each time another
  tenth of the work is done, through the ``stablefs`` logger at INFO level and above, so
  that a log file shows a long run advancing (``-q`` silences it);
- ``None`` / ``False``: nothing.
"""

from __future__ import annotations

import sys
import time

__all__ = ["make_progress", "progress_mode"]


def progress_mode(progress: bool | None, quiet: bool = False) -> str | None:
    """The CLI's mode: ``--progress`` forces the bar, ``--no-progress`` and ``-q`` give
    none, and the default is the bar on a terminal and lines otherwise."""
    if quiet or progress is False:
        return None
    if progress:
        return "bar"
    return "bar" if sys.stderr.isatty() else "lines"


class _Silent:
    def update(self, n: int = 1, text: str | None = None) -> None:
        pass

    def close(self) -> None:
        pass


class _Bar(_Silent):
    def __init__(self, total, initial, desc, unit):
        from tqdm.auto import tqdm

        self.bar = tqdm(total=total, initial=initial, unit=unit, desc=desc, leave=False,
                        dynamic_ncols=True)

    def update(self, n: int = 1, text: str | None = None) -> None:
        if text:
            self.bar.set_postfix_str(text, refresh=False)
        self.bar.update(n)

    def close(self) -> None:
        self.bar.close()


#: seconds between the lines of work of unknown size (a sequential search's steps)
LINE_INTERVAL = 30.0


class _Lines(_Silent):
    """A line on stderr at every further tenth of the work (written directly, so that it
    shows without -v; one line per step, never a carriage return). Work of unknown size
    (``total=None``) gets a line every :data:`LINE_INTERVAL` seconds instead, with the
    caller's text: ``stablefs: sbs: 250 steps, 1750 features, J = 0.0925 (30 s)``."""

    def __init__(self, total, initial, desc, unit, step: float = 0.1):
        self.total = None if total is None else max(1, total)
        self.done, self.desc, self.unit = initial, desc, unit
        self.step = step
        self.t0 = self.last = time.perf_counter()
        if self.total is not None:
            self.next = (int(initial / self.total / step) + 1) * step

    def update(self, n: int = 1, text: str | None = None) -> None:
        self.done += n
        if self.total is None:
            now = time.perf_counter()
            if now - self.last >= LINE_INTERVAL:
                self.last = now
                more = f", {text}" if text else ""
                plural = "" if self.done == 1 else "s"
                print(f"stablefs: {self.desc}: {self.done} {self.unit}{plural}{more} "
                      f"({now - self.t0:.0f} s)", file=sys.stderr, flush=True)
            return
        frac = self.done / self.total
        if frac + 1e-12 >= self.next:
            while self.next <= frac + 1e-12:
                self.next += self.step
            secs = time.perf_counter() - self.t0
            print(f"stablefs: {self.desc}: {frac:.0%} ({self.done} of {self.total} "
                  f"{self.unit}s, {secs:.0f} s)", file=sys.stderr, flush=True)


def make_progress(mode, *, total: int | None, initial: int = 0, desc: str = "compare",
                  unit: str = "fit"):
    """A progress reporter with ``update(n, text=None)`` and ``close()``."""
    if mode is True or mode == "bar":
        return _Bar(total, initial, desc, unit)
    if mode == "lines":
        return _Lines(total, initial, desc, unit)
    return _Silent()
