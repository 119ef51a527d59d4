"""Progress on stderr: a bar on a terminal, a line every 10 % (or every 30 s) in a log.

``make_progress(mode, total, ...)`` with ``mode``:

- ``"bar"`` (or ``True``): a tqdm bar (a terminal);
- ``"lines"``: one line ``stablefs: compare: 40% (24 of 60 fits, 12 s; about 18 s left)``
  each time another tenth of the work is done, and again whenever
  :data:`LINE_INTERVAL` seconds pass without a line (a slow fit, a busy machine), so that a
  log file shows a long run advancing at least every 30 s (``-q`` silences it);
- ``None`` / ``False``: nothing.

:func:`heartbeat` gives the same assurance to work that has no units to count (writing the
report, the pilot fits of the time estimate).
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time

__all__ = ["heartbeat", "make_progress", "progress_mode"]


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


#: the longest a log goes without a progress line (seconds); also the interval between the
#: lines of work of unknown size (a sequential search's steps)
LINE_INTERVAL = 30.0


class _Beat:
    """Calls ``say()`` from a daemon thread whenever :data:`LINE_INTERVAL` seconds pass
    since ``said()`` was last called (or since the start)."""

    def __init__(self, say):
        self.say = say
        self.lock = threading.Lock()
        self.last = time.perf_counter()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="stablefs-progress",
                                       daemon=True)
        self.thread.start()

    def said(self) -> None:
        self.last = time.perf_counter()

    def _run(self) -> None:
        poll = min(1.0, max(LINE_INTERVAL / 4, 0.05))
        # one poll and a little early, so that no gap between lines passes LINE_INTERVAL
        # (checked at LINE_INTERVAL itself, a gap of 30 s showed as 31 s in the logs)
        due = max(LINE_INTERVAL - 2 * poll, 0.0)
        while not self.stop.wait(poll):
            with self.lock:
                if time.perf_counter() - self.last >= due and not self.stop.is_set():
                    self.say()
                    self.said()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()


def _left(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


class _Lines(_Silent):
    """A line on stderr at every further tenth of the work (written directly, so that it
    shows without -v; one line per step, never a carriage return), and the same line again
    when :data:`LINE_INTERVAL` seconds pass without one (a heartbeat thread): a log never
    goes silent for longer. Once some of the work is done here, the line says how long the
    rest should take at the pace so far. Work of unknown size (``total=None``) gets a line
    every :data:`LINE_INTERVAL` seconds on its updates instead, with the caller's text:
    ``stablefs: sbs: 250 steps, 1750 features, J = 0.0925 (30 s)``."""

    def __init__(self, total, initial, desc, unit, step: float = 0.1):
        self.total = None if total is None else max(1, total)
        self.done, self.desc, self.unit = initial, desc, unit
        self.initial = initial
        self.step = step
        self.t0 = self.last = time.perf_counter()
        self.beat = None
        if self.total is not None:
            self.next = (int(initial / self.total / step) + 1) * step
            self.beat = _Beat(self._line)

    def _line(self) -> None:
        secs = time.perf_counter() - self.t0
        frac = self.done / self.total
        here = self.done - self.initial
        left = ""
        if here > 0 and self.done < self.total:
            left = f"; about {_left(secs / here * (self.total - self.done))} left"
        print(f"stablefs: {self.desc}: {frac:.0%} ({self.done} of {self.total} "
              f"{self.unit}s, {secs:.0f} s{left})", file=sys.stderr, flush=True)

    def update(self, n: int = 1, text: str | None = None) -> None:
        if self.total is None:
            self.done += n
            now = time.perf_counter()
            if now - self.last >= LINE_INTERVAL:
                self.last = now
                more = f", {text}" if text else ""
                plural = "" if self.done == 1 else "s"
                print(f"stablefs: {self.desc}: {self.done} {self.unit}{plural}{more} "
                      f"({now - self.t0:.0f} s)", file=sys.stderr, flush=True)
            return
        with self.beat.lock:
            self.done += n
            frac = self.done / self.total
            if frac + 1e-12 >= self.next:
                while self.next <= frac + 1e-12:
                    self.next += self.step
                self._line()
                self.beat.said()

    def close(self) -> None:
        if self.beat is not None:
            self.beat.close()


@contextlib.contextmanager
def heartbeat(mode, desc: str, what: str):
    """A line ``stablefs: <desc>: <what> (<seconds> s)`` every :data:`LINE_INTERVAL`
    seconds while the block runs, in ``"lines"`` mode (nothing otherwise): work without
    units to count still shows in a log that it advances."""
    if mode != "lines":
        yield
        return
    t0 = time.perf_counter()

    def say():
        print(f"stablefs: {desc}: {what} ({time.perf_counter() - t0:.0f} s)",
              file=sys.stderr, flush=True)

    beat = _Beat(say)
    try:
        yield
    finally:
        beat.close()


def make_progress(mode, *, total: int | None, initial: int = 0, desc: str = "compare",
                  unit: str = "fit"):
    """A progress reporter with ``update(n, text=None)`` and ``close()``."""
    if mode is True or mode == "bar":
        return _Bar(total, initial, desc, unit)
    if mode == "lines":
        return _Lines(total, initial, desc, unit)
    return _Silent()
