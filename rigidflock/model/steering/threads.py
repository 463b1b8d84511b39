"""How many numba threads the tick's parallel kernels use: chosen by timing, not by unit count.

A parallel region pays only when its threads get a core: on a machine whose cores are busy with
other work, a two-thread region can wait milliseconds for its second thread (measured: 1,000
units at 23 ms a tick on two threads beside two busy processes, 0.32 ms on one). So
:class:`ThreadPolicy` measures. It times the steering's pair and unit passes (the bulk of the
parallel work) on one thread and on all of them, interleaved, and keeps the faster; it probes
again after a while
(less often while the answer stays the same), and drops to one thread at once when a parallel
tick stalls (takes several times the one-thread time; while running, two ticks in a row).
Results do not depend on the choice:
every kernel sums each unit's terms in a fixed order whatever the thread count.

With ``NUMBA_NUM_THREADS=1`` (what sweeps and vector environments set in their workers, so
several simulations can share the machine) there is nothing to choose: one thread always.
"""

from __future__ import annotations

import statistics

import numba as nb

# The probe: thread counts to time, in order ("1" one thread, "N" all of them); the first tick of
# each is a warm-up and not counted.
PROBE = ("1", "N", "1", "N", "1", "N", "1", "N")
STALL = 3.0  # a parallel tick this many times the one-thread time is a stall
# stalls in a row, while running, before dropping to one thread: one alone is a hiccup (a page
# fault burst, the collector, another process's time slice), and dropping for it cost ~30% of
# the speed until the next probe (1 of 6 300-tick runs of 10,000 units did, at tick 60)
STALLS = 2


class ThreadPolicy:
    """Chooses the thread count before each steering pass (:meth:`begin`) from the times the
    passes took (:meth:`end`). ``threads``: the count in use; ``probes``: probes made;
    ``max_threads``: the most it will use (default numba's configured count)."""

    def __init__(self, max_threads: int | None = None, period: int = 250, max_period: int = 4000):
        self.max_threads = int(nb.config.NUMBA_NUM_THREADS if max_threads is None else max_threads)
        self.base_period = period
        self.max_period = max_period
        self.period = period
        self.threads = 1
        self.probes = 0
        self._times: dict[str, list[float]] = {"1": [], "N": []}
        self._left = 0  # ticks until the next probe
        self._serial = float("inf")  # the last measured one-thread time
        self._stalls = 0  # stalled parallel ticks in a row, while running
        self._step = 0 if self.max_threads > 1 else -1  # position in the probe; -1: not probing

    @property
    def probe_kind(self) -> str | None:
        """The :data:`PROBE` entry the next pass is timed on while a probe is under way ("1"
        one thread, "N" all of them); None while not probing."""
        return PROBE[self._step] if self._step >= 0 else None

    def begin(self) -> None:
        """Set numba's thread count for the pass about to run."""
        if self._step >= 0:
            want = 1 if PROBE[self._step] == "1" else self.max_threads
        else:
            want = self.threads
        want = min(want, nb.config.NUMBA_NUM_THREADS)  # a max_threads above numba's: its all
        if nb.get_num_threads() != want:
            nb.set_num_threads(want)

    def end(self, seconds: float) -> None:
        """Fold in how long the pass took."""
        if self._step < 0:
            if self.max_threads <= 1:
                return
            if self.threads > 1 and seconds > STALL * self._serial:
                self._stalls += 1
                if self._stalls >= STALLS:
                    self._choose(1)  # the cores got busy: one thread until the probe
                    return
            else:
                self._stalls = 0
            self._left -= 1
            if self._left <= 0:
                self._step = 0
                self._times = {"1": [], "N": []}
            return
        kind = PROBE[self._step]
        seen = PROBE[: self._step].count(kind)
        if seen:  # not the warm-up tick of this kind
            self._times[kind].append(seconds)
        self._step += 1
        serial = self._times["1"]
        if kind == "N" and seen and serial and seconds > STALL * min(serial):
            self._serial = statistics.median(serial)
            self._choose(1)
            return
        if self._step == len(PROBE):
            one = statistics.median(self._times["1"])
            many = statistics.median(self._times["N"])
            self._serial = one
            self._choose(self.max_threads if many < one else 1)

    def _choose(self, threads: int) -> None:
        same = threads == self.threads and self.probes > 0
        self.probes += 1
        self.threads = threads
        self._step = -1
        self._stalls = 0
        # the same answer again: probe less often; a change or a stall: probe again soon
        self.period = min(2 * self.period, self.max_period) if same else self.base_period
        self._left = self.period
