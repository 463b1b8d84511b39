"""The vehicle model (DESIGN.md section 3): thrust, drag, angular damping and the bow force.

All inputs are per-unit arrays; all outputs are world-frame force (N, 2) in newtons and torque (N,)
in newton-metres about the centre of mass, ready for one batch write to pymunk.
:func:`vehicle_forces` is the numpy definition; :func:`vehicle_forces_into` its compiled twin.
"""

from __future__ import annotations

import math

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
    c, s = np.cos(angle), np.sin(angle)
    fs = np.clip(steer_force, -max_steer, max_steer)
    thrust_mag = thrust * throttle

    # Velocity of the drag centre r = -a * forward: v + omega x r.
    arm = DRAG_CENTRE * length
    rx, ry = -arm * c, -arm * s
    ux = vel[:, 0] - omega * ry
    uy = vel[:, 1] + omega * rx
    k = drag_k * np.hypot(ux, uy)
    dx, dy = -k * ux, -k * uy

    force = np.empty((len(angle), 2))
    force[:, 0] = thrust_mag * c + dx - fs * s
    force[:, 1] = thrust_mag * s + dy + fs * c
    torque = (rx * dy - ry * dx) - angular_damping * omega + 0.5 * length * fs
    return force, torque


@nb.njit(cache=True, parallel=True)
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
    """Compiled :func:`vehicle_forces` writing into ``force`` (N, 2) and ``torque`` (N,): the
    same arithmetic, unit by unit, without temporaries (the simulation's per-tick path)."""
    for u in nb.prange(angle.shape[0]):
        c, s = math.cos(angle[u]), math.sin(angle[u])
        fs = min(max(steer_force[u], -max_steer[u]), max_steer[u])
        thrust_mag = thrust[u] * throttle[u]
        arm = DRAG_CENTRE * length[u]
        rx, ry = -arm * c, -arm * s
        ux = vel[u, 0] - omega[u] * ry
        uy = vel[u, 1] + omega[u] * rx
        k = drag_k[u] * math.hypot(ux, uy)
        dx, dy = -k * ux, -k * uy
        force[u, 0] = thrust_mag * c + dx - fs * s
        force[u, 1] = thrust_mag * s + dy + fs * c
        torque[u] = (rx * dy - ry * dx) - angular_damping[u] * omega[u] + 0.5 * length[u] * fs
