"""The physics step of a tick, and the rules' decision made before it, beside it or after it.

:class:`PhysicsStep` is a base class of :class:`~rigidflock.sim.Simulation`: the decisions
(the steerer's passes, the users' behaviours) and the tick's substeps (vehicle forces, one batch
write, pymunk's step), with the work that runs beside pymunk's step in the background thread.

With ``world.neighbour_ticks = 1`` (the faster choice for large crowds; by default, "auto",
it follows ``world.reaction_ticks``) and no move order under way, the pair pass, which finds
each unit's neighbours and sums the flocking terms, runs beside the physics step on the
snapshot it starts from (in the background thread, one numba thread), and the decision after
the step reads those sums with the new snapshot: headings, obstacles, walls, the chase and the
blend are of the new snapshot, the neighbour terms one tick older. ``pairs_state`` is the
snapshot they were found on. A step that switches rules, gives orders or adds buildings decides
afresh, neighbours included, on its own snapshot; so does the first decision, and every
decision while a group is under orders (the control's queues read the gap ahead: a tick-old gap
lost two-way doorway runs). ``world.neighbour_ticks = 0`` always finds them on the snapshot
decided on.

With ``world.reaction_ticks = 1`` the rules decide beside the physics step instead of before it:
tick ``t`` writes the forces of the decision made on snapshot ``t - 1`` (the vehicle's own terms,
thrust, drag and damping, still act on snapshot ``t``), then hands the decision on snapshot ``t``
to the background thread (:mod:`rigidflock.model.background`, one numba thread) while pymunk
steps on this one, and waits for it after the step. Units react one tick late; the tick costs
about the physics step plus the read and write instead of their sum with the rules. After a step
``steering`` (and ``state.leader``) is then the decision on the snapshot before ``state``
(``steering_state``, a copy kept for what reads the two together, such as the run metrics). The
first tick uses the decision on the first snapshot. In a process told to use one numba thread
(``NUMBA_NUM_THREADS=1``: sweeps, vector environments), and with ``world.substeps`` above 1
(the later substeps' force kernel would run in parallel beside the decision's, which numba's
workqueue threading layer does not allow), the decision runs in this thread after the step
instead, with the same results.
"""

from __future__ import annotations

import time

import numba as nb
import numpy as np

from rigidflock.model import background, vehicle
from rigidflock.model.state import State

# seconds a thread may hold the GIL while another waits, while the decision runs beside the step
# (Python's default: 0.005): pymunk's contact callbacks need the GIL, which the decision's Python
# holds between its kernels; at 10,000 units the default made the step ~1.5 ms slower beside it
BESIDE_SWITCH = 1e-4


class PhysicsStep:
    """The decision and physics half of :class:`~rigidflock.sim.Simulation` (its state is the
    simulation's, set up by its ``reset``)."""

    def _decide(self, st: State, rules, flock_key=None, role=None, wall_feeler=None):
        """The behaviours' forces and throttles on ``st``, then the rules' decision with them
        (``Steering.throttle``: the behaviours' throttle caps)."""
        if flock_key is not False:  # False: the neighbour terms were found already
            self._steerer.pairs(st, rules, flock_key)
        t0 = time.perf_counter()
        force, throttle = self._behaviours(st, rules.steering_force, self._steerer.trig)
        self.timings["behaviours"] += time.perf_counter() - t0
        out = self._steerer.decide(st, rules, role, wall_feeler, force)
        out.throttle = throttle
        return out

    def _decision(self, st: State) -> background.Job:
        """The rules' decision for snapshot ``st``, to run (``job.run()``, or in the
        background)."""
        if self._behaviours is not None:
            return background.Job(self._decide, st, self.rules, *self._keys())
        return background.Job(self._steerer, st, self.rules, *self._keys())

    def _neighbours(self, st: State, key: np.ndarray | None) -> State:
        """Find the neighbour terms on a copy of ``st`` (the snapshot kept for them) beside the
        step (one numba thread: the step has the other core). Returns the copy."""
        snap = st.copy(self._snapshot)
        self._steerer.pairs(snap, self.rules, key, threads=1 if self._threaded else None)
        return snap

    def _wait(self, job: background.Job):
        """What ``job`` returned, once done (run here if no thread ran it: never handed to
        one, or its thread is gone, as in a forked child; what it raised, raised here)."""
        if not job.wait():
            self._run_here(job)
        self._pending = None
        if job.error is not None:
            raise job.error
        return job.result

    def _settle(self) -> None:
        """Wait for a decision left running by a step that raised (an error in pymunk's step,
        or Ctrl-C while waiting for it): the next decision must not share the steerer's
        buffers with it. What it decided is dropped."""
        job, self._pending = self._pending, None
        if job is not None:
            job.wait()

    def _run_here(self, job: background.Job) -> None:
        """Run ``job`` in this thread, keeping this thread's numba thread count (a decision
        beside the step sets it to 1 for its own passes)."""
        threads = nb.get_num_threads()
        job.run()
        if nb.get_num_threads() != threads:
            nb.set_num_threads(threads)

    def _adopt(self, job: background.Job) -> None:
        """Take the decision ``job`` made (see :meth:`_wait`)."""
        self.steering = self._wait(job)
        self.steering_state = self.pairs_state = job.args[0]
        self.state.leader = self.steering.leader

    def _analyse(self) -> None:
        """The rules' decision for the current snapshot, made now."""
        self._adopt(self._decision(self.state))

    def _physics(self, st: State, throttle: np.ndarray, fs: np.ndarray) -> background.Job | None:
        """The tick's substeps: vehicle forces on ``st`` with the bow forces ``fs`` (N,) and
        ``throttle`` (N,), one batch write, pymunk's step. Returns the decision on ``st`` when it
        is made beside the step, or the neighbour terms on ``st`` when they are found beside it
        (handed to the background thread if threaded, else to run)."""
        substeps = self.scene.world.substeps
        dt = self.scene.world.dt / substeps
        tm, clock = self.timings, time.perf_counter
        decision = None
        for k in range(substeps):
            inline = 0.0  # a pair pass run here before the step (timed as the wait)
            t0 = clock()
            if k:
                self.world.read(st)
            t1 = clock()
            buf, rows = self.world.force_buffer()
            vehicle.vehicle_forces_rows(
                st.angle, st.vel, st.omega, throttle, fs, self._hull, self._steerer.trig, rows, buf
            )
            t2 = clock()
            self.world.write_forces()
            if k == 0 and self._beside:
                decision = self._decision(st.copy(self._snapshot))
                if self._threaded:
                    self._pending = background.submit(decision)
            elif k == 0 and self._lag and not self.orders.groups:
                key, *self._lag_keys = self._keys()
                decision = background.Job(self._neighbours, st, key)
                if self._threaded:
                    self._pending = background.submit(decision)
                elif substeps > 1:  # now, before the later substeps read into st
                    t = clock()
                    self._run_here(decision)
                    inline = clock() - t
                    tm["wait"] += inline
                # else after the step, in this thread, when it is waited for
            elif k == 0:
                self._steerer.build_ahead()  # beside the physics step, on the idle core
            t3 = clock()
            self.world.step(dt)
            t4 = clock()
            tm["read"] += t1 - t0
            tm["forces"] += t2 - t1
            tm["write"] += t3 - t2 - inline
            tm["physics"] += t4 - t3
        return decision

    def _step_and_decide(self, st: State, throttle: np.ndarray, fs: np.ndarray) -> None:
        """Step pymunk with ``throttle`` and the bow forces ``fs`` (N,), read the new snapshot
        into ``st``, and make the decision the next tick uses: beside the step (taken once it
        is done), or after it, here, on the new snapshot (with the neighbour terms found beside
        the step, when they were)."""
        with background.switching(BESIDE_SWITCH if self._threaded else None):
            decision = self._physics(st, throttle, fs)
            if decision is not None:
                t0 = time.perf_counter()
                try:
                    if self._lag:
                        self.pairs_state = self._wait(decision)
                    else:
                        self._adopt(decision)
                except BaseException:
                    # pymunk has stepped: the state follows it, and the next step decides
                    # afresh (the decision beside the step is lost)
                    self._advance(st)
                    self._afresh = True
                    raise
                self.timings["wait"] += time.perf_counter() - t0
        self._advance(st)
        if decision is None:
            self._analyse()
        elif self._lag:  # on this snapshot, with the neighbour terms of the one before
            if self._behaviours is not None:
                self.steering = self._decide(st, self.rules, False, *self._lag_keys)
            else:
                self.steering = self._steerer.decide(st, self.rules, *self._lag_keys)
            self.steering_state = st
            st.leader = self.steering.leader

    def _advance(self, st: State) -> None:
        """The tick after pymunk's step: ``st`` read from it."""
        self.tick += 1
        st.tick = self.tick
        t0 = time.perf_counter()
        self.world.read(st)
        self.world.wrap(st)
        self.timings["read"] += time.perf_counter() - t0
