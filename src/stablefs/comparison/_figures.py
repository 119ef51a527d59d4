"""The report's figures drawn ahead, while the permutation test and the nested estimate run.

With ``--n-jobs N`` the main process of ``compare`` only waits during those phases: its
worker processes do the fits. Every figure of the report depends on the comparison's fits
alone, but the trade-off, which rings the recommendation unless the permutation test
withdraws it; :class:`FiguresAhead` draws them all then, in a thread of the main process, the
trade-off as the fits alone recommend (its ring shown when the recommendation beats the
majority-class baseline). The report (:func:`stablefs.report.write_report`, ``draw=``) uses
each drawn job that is equal (same function, same arguments: :func:`joblib.hash`) to one of
its own, and draws the others: the trade-off again only when the permutation test took the
ring away (issue 36). The bytes are those drawn at the end: the same function on the same
arguments.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class FiguresAhead:
    """Draw ``jobs`` (:class:`stablefs.report.FigureJob`) in a background thread, now."""

    def __init__(self, jobs) -> None:
        self._drawn: dict[str, object] = {}
        self._thread = threading.Thread(target=self._draw_all, args=(jobs,), daemon=True,
                                        name="stablefs-figures")
        self._thread.start()

    def _draw_all(self, jobs) -> None:
        import joblib

        from stablefs.report import draw_figure

        for job in jobs:
            try:
                self._drawn[joblib.hash(job)] = draw_figure(job)
            except Exception:  # drawn again with the report, where the error shows
                continue

    def draw(self, jobs, rest: Callable[[list], list]) -> list:
        """The drawn figures of ``jobs``, in order: those drawn ahead, the others by
        ``rest(missing_jobs)``."""
        import joblib

        self._thread.join()
        keys = [joblib.hash(job) for job in jobs]
        missing = [job for job, key in zip(jobs, keys, strict=True) if key not in self._drawn]
        late = iter(rest(missing) if missing else [])
        return [self._drawn[key] if key in self._drawn else next(late) for key in keys]
