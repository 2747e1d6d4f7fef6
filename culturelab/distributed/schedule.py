"""The wall time of a batch of notebooks on N workers (``culturelab plan FILE --executor ray --workers N``).

The Ray executor hands a notebook to the cluster once the notebooks it depends on have finished
(:func:`culturelab.runner.depends_on`), longest chains first; :func:`wall_seconds` replays that
order with each notebook's estimated seconds (``plan``'s ``est_seconds``, from the measured
per-token costs) on ``workers`` workers, each running one notebook at a time.

>>> wall_seconds({"a": 4.0, "b": 3.0, "c": 3.0}, workers=2)
6.0
"""

from __future__ import annotations

import heapq

from culturelab.runner import chain_seconds, depends_on


def wall_seconds(seconds: dict[str, float], workers: int) -> float:
    """When the last of the notebooks (name → seconds) finishes on ``workers`` workers: each starts
    once the notebooks it depends on have finished and a worker is free, the longest chain first.

    >>> wall_seconds({"p/task": 4.0, "captex/05_aggregate": 1.0, "profile": 1.0}, workers=1)
    6.0
    >>> wall_seconds({"captex/02_reordering": 4.0, "captex/05_aggregate": 1.0, "fmlama/02_probing": 2.0}, workers=8)
    5.0
    """
    if workers < 1:
        raise ValueError(f"workers must be ≥ 1, not {workers}")
    names = list(seconds)
    waits = {name: depends_on(name, names) for name in names}
    chain = chain_seconds(names, seconds)
    pending, running, done, now = set(names), [], set(), 0.0
    while pending or running:
        ready = sorted((n for n in pending if waits[n] <= done), key=lambda n: (-chain[n], names.index(n)))
        for name in ready[: workers - len(running)]:
            pending.remove(name)
            heapq.heappush(running, (now + float(seconds[name]), name))
        if not running:
            raise RuntimeError(f"notebooks wait for each other: {sorted(pending)}")
        now, name = heapq.heappop(running)
        done.add(name)
    return now


def wall_line(est_seconds: dict[str, float], workers: int) -> str:
    """The line ``plan`` prints for ``--executor ray --workers N``.

    >>> wall_line({"a": 4.0, "b": 3.0, "c": 3.0}, 2)
    'wall time on 2 Ray workers: 6 s (one worker: 10 s; each notebook a task, started once those it depends on are done, longest chain first)'
    """
    return (f"wall time on {workers} Ray workers: {wall_seconds(est_seconds, workers):.0f} s "
            f"(one worker: {sum(est_seconds.values()):.0f} s; each notebook a task, started once those it "
            "depends on are done, longest chain first)")
