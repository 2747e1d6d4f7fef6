"""Beyond one machine, on Ray — optional (``pip install -e '.[ray]'``), never needed on one machine.

* :mod:`culturelab.distributed.executor` — ``culturelab run FILE --executor ray``: each notebook of a
  batch is a Ray task (a GPU where its ``device`` asks for one), retried when it fails or its node
  dies; its answers go to a cache shard of its own, which the driver merges into the run's cache.
* :mod:`culturelab.models.ray_backend` — ``ray:N:<spec>``: one notebook's model requests over N
  Ray actors, with the single process's numbers.
* :mod:`culturelab.distributed.schedule` — ``culturelab plan FILE --executor ray --workers N``: the
  wall time of a batch on N workers.

>>> INSTALL_HINT.startswith("Ray is not installed")
True
"""

from __future__ import annotations

import os
from typing import Any

#: tries to start a local cluster (Ray gives its node 30 s to register, which a loaded machine can miss)
LOCAL_STARTS = 3
#: what to do without Ray, in one line
INSTALL_HINT = "Ray is not installed: pip install -e '.[ray]' (or pip install 'ray>=2.40,<3')"


class RayMissing(ImportError):
    """Ray is needed (``--executor ray``, a ``ray:`` model) but not installed."""


def require_ray() -> Any:
    """The ``ray`` module, or :class:`RayMissing` saying in one line how to install it.

    >>> import sys, unittest.mock
    >>> with unittest.mock.patch.dict(sys.modules, {"ray": None}):
    ...     require_ray()
    Traceback (most recent call last):
    ...
    culturelab.distributed.RayMissing: Ray is not installed: pip install -e '.[ray]' (or pip install 'ray>=2.40,<3')
    """
    try:
        import ray
    except ImportError:
        raise RayMissing(INSTALL_HINT) from None
    return ray


def connect(address: str | None = None, *, num_cpus: int | None = None) -> bool:
    """Connect this process to Ray: to the cluster at ``address`` (``auto``: the one ``ray start``
    began on this machine; default ``$RAY_ADDRESS``), else to a local cluster started now with
    ``num_cpus`` CPUs (default: all). ``True`` when this call connected (the caller disconnects with
    ``ray.shutdown()`` when done), ``False`` when the process already was."""
    ray = require_ray()
    if ray.is_initialized():
        return False
    local = not (address or os.environ.get("RAY_ADDRESS"))
    tries = LOCAL_STARTS if local else 1
    for attempt in range(1, tries + 1):
        try:
            ray.init(address=address, **({"num_cpus": num_cpus, "include_dashboard": False} if local else {}))
            break
        except Exception:  # a local node that did not register in Ray's 30 s (an overloaded machine)
            ray.shutdown()
            if attempt == tries:
                raise
    return True
