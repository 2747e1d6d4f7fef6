"""Notebook kernels that talk to their runner over Unix sockets instead of TCP ports.

jupyter_client picks a kernel's five TCP ports by binding port 0 and letting it go again; two
processes starting kernels at once (``culturelab run --jobs 2``, or two runs side by side) can
be handed the same port, and the second kernel dies with "Address already in use" before it
answers. A kernel on the ``ipc`` transport binds socket files under a name no other kernel has,
so there is nothing to race for (and nothing is sent in plain text over the loopback).
"""

from __future__ import annotations

import os
import tempfile
import uuid

from jupyter_client.manager import AsyncKernelManager
from traitlets import default


class IPCKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels listen on socket files ``<tmp>/cl-<random>-<n>``, removed
    when the kernel shuts down.

    >>> km = IPCKernelManager(kernel_name="python3")
    >>> km.transport, km.ip.startswith(tempfile.gettempdir())
    ('ipc', True)
    """

    @default("transport")
    def _default_transport(self) -> str:
        return "ipc"

    @default("ip")
    def _default_ip(self) -> str:
        return socket_prefix(tempfile.gettempdir())


def socket_prefix(folder: str) -> str:
    """A new random path prefix for a kernel's socket files in ``folder``, or in ``/tmp`` where
    ``folder`` is too long for a Unix socket's path (104 bytes on macOS, 108 on Linux).

    >>> socket_prefix("/tmp").startswith("/tmp/cl-"), socket_prefix("/" + "x" * 120).startswith("/tmp/cl-")
    (True, True)
    """
    name = f"cl-{uuid.uuid4().hex[:12]}"
    path = os.path.join(folder, name)
    return path if len(os.fsencode(path)) + 4 <= 100 else os.path.join("/tmp", name)


def kernel_manager_class() -> str | None:
    """The kernel manager papermill should start kernels with: :class:`IPCKernelManager` where
    Unix sockets exist, else jupyter's default (``None``).

    >>> kernel_manager_class() if os.name == "posix" else "culturelab.kernels.IPCKernelManager"
    'culturelab.kernels.IPCKernelManager'
    """
    return f"{__name__}.IPCKernelManager" if os.name == "posix" else None
