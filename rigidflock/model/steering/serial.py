"""One-thread twins of the parallel kernels: the same Python function compiled without
``parallel=True``.

A kernel compiled with ``parallel=True`` takes numba several times as long to compile as the
same loop compiled plainly, and buys nothing in a world too small for a second thread to pay
(most scenes a newcomer runs). :func:`serial_twin` compiles the kernel's own Python function a
second time, plainly, under a name of its own (``<name>_serial``, so the two keep separate
cache entries): ``prange`` runs as ``range``, in the same order, so the twin writes the same
bits as the parallel kernel on any thread count (every parallel loop in these kernels writes
each unit's own outputs and sums nothing across units). Only the variant a run calls is
compiled: numba compiles on the first call.
"""

from __future__ import annotations

import types

import numba as nb

# target options of a parallel kernel that a plain njit does not take or must not get
_DROPPED = ("parallel", "nopython")


def serial_twin(kernel):
    """The plain (one-thread) compilation of ``kernel`` (a ``numba.njit(cache=True,
    parallel=True)`` dispatcher), cached like it, named ``<kernel name>_serial``."""
    py = kernel.py_func
    name = f"{py.__name__}_serial"
    twin = types.FunctionType(py.__code__, py.__globals__, name, py.__defaults__, py.__closure__)
    twin.__qualname__ = f"{py.__qualname__}_serial"
    twin.__module__ = py.__module__
    twin.__doc__ = f"{py.__name__} on one thread (compiled without ``parallel=True``)."
    twin.__kwdefaults__ = py.__kwdefaults__
    options = {k: v for k, v in kernel.targetoptions.items() if k not in _DROPPED}
    dispatcher = nb.njit(**options)(twin)
    dispatcher.enable_caching()  # where the kernel's own cache is (rigidflock.kernel_cache)
    return dispatcher
