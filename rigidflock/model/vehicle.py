"""The vehicle model of *AI for Game Developers*, chapter 4 (AIDemo4): thrust, drag, angular
damping and the bow force.

All inputs are per-unit arrays; all outputs are world-frame force (N, 2) in newtons and torque (N,)
in newton-metres about the centre of mass, ready for one batch write to pymunk.
:func:`_unit_forces` is the one definition of the arithmetic (compiled, per unit):
:func:`vehicle_forces_rows` runs it for the simulation (into pymunk's batch buffer),
:func:`vehicle_forces_into` into arrays, :func:`vehicle_forces` is its allocating
numpy-facing form, and :func:`force_vectors` gives the forces one by one for drawing.
The loops are plain, not parallel: a few dozen flops a unit (0.04 ms for 1,000 units on one
thread) never paid for waking a second thread, and cost a parallel compile.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba as nb
import numpy as np

DRAG_CENTRE = 0.12  # drag acts this fraction of L behind the centre of mass (weathervaning)


def drag_constant(length, width, drag_coefficient: float, air_density: float):
    """k such that drag = -k |u| u: 0.5 * rho * Cd * A with A = L * W."""
    return 0.5 * air_density * drag_coefficient * np.asarray(length) * np.asarray(width)


def cruise_speed(thrust, drag_k):
    """Speed where thrust equals drag, sqrt(T / k), world units / s."""
    return np.sqrt(np.asarray(thrust) / np.asarray(drag_k))


def auto_angular_damping(mass, thrust, drag_k, length):
    """k_w = m * v_cruise * L / 2: the heading follows the track instead of spinning or sliding."""
    return np.asarray(mass) * cruise_speed(thrust, drag_k) * np.asarray(length) / 2.0


@nb.njit(cache=True, inline="always")
def _unit_forces(c, s, vx, vy, omega, throttle, steer, length, thrust, max_steer, drag_k):
    """The force model for one unit, the one definition of its arithmetic; (c, s): the cos and
    sin of its angle.

    Returns (c, s) the bow direction, fs the bow force clamped to +-max_steer (newtons, + to
    port), thrust_mag (newtons along the bow), (rx, ry) the drag centre relative to the centre
    of mass, and (dx, dy) the drag force (newtons) acting there."""
    fs = min(max(steer, -max_steer), max_steer)
    thrust_mag = thrust * throttle
    # Velocity of the drag centre r = -a * forward: v + omega x r.
    arm = DRAG_CENTRE * length
    rx, ry = -arm * c, -arm * s
    ux = vx - omega * ry
    uy = vy + omega * rx
    k = drag_k * math.hypot(ux, uy)
    return c, s, fs, thrust_mag, rx, ry, -k * ux, -k * uy


@nb.njit(cache=True, inline="always")
def _net(c, s, fs, thrust_mag, rx, ry, dx, dy, omega, length, angular_damping):
    """Net force (fx, fy), newtons, and torque about the centre of mass from the parts
    :func:`_unit_forces` returns: thrust along the bow, drag at the drag centre, the bow force at
    +L/2, less the angular damping."""
    fx = thrust_mag * c + dx - fs * s
    fy = thrust_mag * s + dy + fs * c
    return fx, fy, (rx * dy - ry * dx) - angular_damping * omega + 0.5 * length * fs


@nb.njit(cache=True)
def vehicle_forces_into(
    angle,
    vel,
    omega,
    throttle,
    steer_force,
    length,
    thrust,
    max_steer,
    drag_k,
    angular_damping,
    force,
    torque,
):
    """:func:`vehicle_forces` writing into ``force`` (N, 2) and ``torque`` (N,), unit by unit
    without temporaries."""
    for u in range(angle.shape[0]):
        c, s, fs, thrust_mag, rx, ry, dx, dy = _unit_forces(
            math.cos(angle[u]), math.sin(angle[u]), vel[u, 0], vel[u, 1], omega[u], throttle[u],
            steer_force[u], length[u], thrust[u], max_steer[u], drag_k[u],
        )  # fmt: skip
        force[u, 0], force[u, 1], torque[u] = _net(
            c, s, fs, thrust_mag, rx, ry, dx, dy, omega[u], length[u], angular_damping[u]
        )


class Hull(NamedTuple):
    """The per-unit constants of the vehicle model, (N,) each: ``length`` (world units),
    ``thrust`` (N), ``max_steer`` (N), ``drag_k`` (kg / world unit), ``angular_damping``
    (N m s)."""

    length: np.ndarray
    thrust: np.ndarray
    max_steer: np.ndarray
    drag_k: np.ndarray
    angular_damping: np.ndarray


@nb.njit(cache=True)
def vehicle_forces_rows(angle, vel, omega, throttle, steer_force, hull, trig, rows, out):
    """:func:`vehicle_forces_into` writing unit u's force and torque into ``out[rows[u]]``
    (``out`` (B, 3): force x, force y, torque per row of pymunk's batch buffer; ``rows`` (N,)),
    the same arithmetic: the simulation fills the batch write straight from the kernel.
    ``hull``: the units' constants (:class:`Hull`).
    ``trig`` (N, 3): cos, sin and the angle they are of (the steering passes' cache), used when
    it holds the unit's angle (never for a zero angle: ``-0.0 == 0.0``), else computed."""
    length, thrust, max_steer, drag_k, angular_damping = hull
    for u in range(angle.shape[0]):
        a = angle[u]
        if a == trig[u, 2] and a != 0.0:
            c, s = trig[u, 0], trig[u, 1]
        else:
            c, s = math.cos(a), math.sin(a)
        c, s, fs, thrust_mag, rx, ry, dx, dy = _unit_forces(
            c, s, vel[u, 0], vel[u, 1], omega[u], throttle[u], steer_force[u], length[u],
            thrust[u], max_steer[u], drag_k[u],
        )  # fmt: skip
        r = rows[u]
        out[r, 0], out[r, 1], out[r, 2] = _net(
            c, s, fs, thrust_mag, rx, ry, dx, dy, omega[u], length[u], angular_damping[u]
        )


def vehicle_forces(
    angle: np.ndarray,
    vel: np.ndarray,
    omega: np.ndarray,
    throttle: np.ndarray,
    steer_force: np.ndarray,
    length: np.ndarray,
    thrust: np.ndarray,
    max_steer: np.ndarray,
    drag_k: np.ndarray,
    angular_damping: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Net force and torque on each unit.

    angle (N,) rad; vel (N, 2) world units/s; omega (N,) rad/s; throttle (N,) in [-1, 1];
    steer_force (N,) newtons, positive to port, clamped here to +-max_steer and applied at the bow
    (+L/2 on the body x axis). Returns force (N, 2) and torque (N,).
    """
    args = [np.ascontiguousarray(a, dtype=np.float64) for a in
            (angle, vel, omega, throttle, steer_force, length, thrust, max_steer, drag_k,
             angular_damping)]  # fmt: skip
    force = np.empty((len(args[0]), 2))
    torque = np.empty(len(args[0]))
    vehicle_forces_into(*args, force, torque)
    return force, torque


@nb.njit(cache=True)
def _parts_into(angle, vel, omega, throttle, steer_force, length, thrust, max_steer, drag_k, out):
    """Each force's vector and where it acts, into ``out`` (N, 5, 2): thrust, drag, its
    anchor (the drag centre), bow force, its anchor (the bow)."""
    for u in range(angle.shape[0]):
        c, s, fs, thrust_mag, rx, ry, dx, dy = _unit_forces(
            math.cos(angle[u]), math.sin(angle[u]), vel[u, 0], vel[u, 1], omega[u], throttle[u],
            steer_force[u], length[u], thrust[u], max_steer[u], drag_k[u],
        )  # fmt: skip
        out[u, 0, 0], out[u, 0, 1] = thrust_mag * c, thrust_mag * s
        out[u, 1, 0], out[u, 1, 1] = dx, dy
        out[u, 2, 0], out[u, 2, 1] = rx, ry
        out[u, 3, 0], out[u, 3, 1] = -fs * s, fs * c
        out[u, 4, 0], out[u, 4, 1] = 0.5 * length[u] * c, 0.5 * length[u] * s


def force_vectors(angle, vel, omega, throttle, steer_force, units) -> dict:
    """The forces of :func:`vehicle_forces` one by one, for drawing: name ("thrust", "drag",
    "bow") -> (anchor offset (N, 2) from the centre of mass, force vector (N, 2) newtons).
    ``units``: anything with per-unit ``length``, ``thrust``, ``max_steer``, ``drag_k``; the bow
    force is clamped as the simulation clamps it. Their sum is :func:`vehicle_forces`'s force."""
    f64 = np.float64
    n = len(angle)
    out = np.empty((n, 5, 2))
    _parts_into(
        np.ascontiguousarray(angle, f64), np.ascontiguousarray(vel, f64),
        np.ascontiguousarray(omega, f64), np.ascontiguousarray(throttle, f64),
        np.ascontiguousarray(steer_force, f64), np.ascontiguousarray(units.length, f64),
        np.ascontiguousarray(units.thrust, f64), np.ascontiguousarray(units.max_steer, f64),
        np.ascontiguousarray(units.drag_k, f64), out,
    )  # fmt: skip
    return {
        "thrust": (np.zeros((n, 2)), out[:, 0]),
        "drag": (out[:, 2], out[:, 1]),
        "bow": (out[:, 4], out[:, 3]),
    }
