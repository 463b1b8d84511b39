"""The force model of *AI for Game Developers*, chapter 4 (AIDemo4) (``model.vehicle``)."""

from types import SimpleNamespace

import numpy as np

from rigidflock.model import vehicle
from rigidflock.model.state import Units


def forces(angle=0.0, vel=(0.0, 0.0), omega=0.0, throttle=1.0, steer=0.0, kw=0.0):
    return vehicle.vehicle_forces(
        np.array([angle]),
        np.array([vel], dtype=float),
        np.array([omega]),
        np.array([throttle]),
        np.array([steer]),
        length=np.array([4.0]),
        thrust=np.array([10.0]),
        max_steer=np.array([40.0]),
        drag_k=np.array([0.2]),
        angular_damping=np.array([kw]),
    )


def test_thrust_balances_drag_at_cruise_speed():
    v = float(vehicle.cruise_speed(10.0, 0.2))
    assert np.isclose(v, np.sqrt(50.0))
    f, t = forces(vel=(v, 0.0))
    np.testing.assert_allclose(f, [[0.0, 0.0]], atol=1e-12)
    np.testing.assert_allclose(t, [0.0], atol=1e-12)


def test_thrust_points_along_the_bow():
    f, _ = forces(angle=np.pi / 2)
    np.testing.assert_allclose(f, [[0.0, 10.0]], atol=1e-12)


def test_bow_force_turns_to_port_and_is_clamped():
    f, t = forces(throttle=0.0, steer=100.0)  # clamped to 40
    np.testing.assert_allclose(f, [[0.0, 40.0]], atol=1e-12)
    np.testing.assert_allclose(t, [0.5 * 4.0 * 40.0])  # (L/2) * Fs, counter-clockwise
    _, t = forces(throttle=0.0, steer=-5.0)
    assert t[0] < 0


def test_drag_centre_behind_the_mass_centre_weathervanes():
    # moving sideways (+y) while facing +x: drag at the stern pushes the stern back, so the bow
    # swings into the direction of travel (counter-clockwise, positive torque)
    _, t = forces(vel=(0.0, 5.0), throttle=0.0)
    assert t[0] > 0


def test_angular_damping_opposes_spin():
    _, t = forces(omega=2.0, throttle=0.0, kw=141.0)
    assert t[0] < -280.0  # -k_w * omega, plus the drag centre's small share


def test_auto_angular_damping_is_m_vc_l_over_2():
    kw = vehicle.auto_angular_damping(10.0, 10.0, 0.2, 4.0)
    assert np.isclose(kw, 10.0 * np.sqrt(50.0) * 4.0 / 2)


def numpy_oracle(angle, vel, omega, throttle, steer, length, thrust, max_steer, drag_k, kw):
    """The vehicle model written out with numpy, independently of the model's kernel."""
    c, s = np.cos(angle), np.sin(angle)
    fs = np.clip(steer, -max_steer, max_steer)
    arm = vehicle.DRAG_CENTRE * length
    rx, ry = -arm * c, -arm * s
    ux, uy = vel[:, 0] - omega * ry, vel[:, 1] + omega * rx
    k = drag_k * np.hypot(ux, uy)
    dx, dy = -k * ux, -k * uy
    force = np.stack([thrust * throttle * c + dx - fs * s, thrust * throttle * s + dy + fs * c], 1)
    return force, (rx * dy - ry * dx) - kw * omega + 0.5 * length * fs


def random_args(n=500, seed=3):
    rng = np.random.default_rng(seed)
    return (
        rng.uniform(-10, 10, n),
        rng.normal(0, 8, (n, 2)),
        rng.normal(0, 2, n),
        rng.uniform(-1, 1, n),
        rng.normal(0, 60, n),
        rng.uniform(1, 6, n),
        rng.uniform(5, 20, n),
        rng.uniform(10, 50, n),
        rng.uniform(0.05, 0.5, n),
        rng.uniform(0, 200, n),
    )


def test_forces_match_the_formulas_written_out():
    args = random_args()
    f_ref, t_ref = numpy_oracle(*args)
    force, torque = vehicle.vehicle_forces(*args)
    np.testing.assert_allclose(force, f_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(torque, t_ref, rtol=1e-12, atol=1e-12)


def test_drawn_forces_are_the_simulation_forces():
    """render.frame.vehicle_vectors (the force arrows) shows exactly what the simulation applies:
    the vectors sum to its force bit for bit, and their moments give its torque."""
    from rigidflock.render.frame import vehicle_vectors

    angle, vel, omega, throttle, steer, length, thrust, max_steer, drag_k, kw = random_args()
    n = len(angle)
    force, torque = np.zeros((n, 2)), np.zeros(n)
    vehicle.vehicle_forces_into(
        angle, vel, omega, throttle, steer, length, thrust, max_steer, drag_k, kw, force, torque
    )
    units = SimpleNamespace(length=length, thrust=thrust, max_steer=max_steer, drag_k=drag_k)
    drawn = vehicle_vectors(angle, vel, omega, throttle, steer, units)
    total = drawn["thrust"][1] + drawn["drag"][1] + drawn["bow"][1]
    np.testing.assert_array_equal(total, force)
    moment = sum(a[:, 0] * v[:, 1] - a[:, 1] * v[:, 0] for a, v in drawn.values())
    np.testing.assert_allclose(moment - kw * omega, torque, rtol=1e-9, atol=1e-9)
    # the bow force is drawn clamped, as applied
    bow = np.hypot(*drawn["bow"][1].T)
    np.testing.assert_allclose(bow, np.minimum(np.abs(steer), max_steer), rtol=1e-12)


def test_compiled_forces_match_the_numpy_definition():
    rng = np.random.default_rng(3)
    n = 500
    args = (
        rng.uniform(-10, 10, n),
        rng.normal(0, 8, (n, 2)),
        rng.normal(0, 2, n),
        rng.uniform(-1, 1, n),
        rng.normal(0, 60, n),
        rng.uniform(1, 6, n),
        rng.uniform(5, 20, n),
        rng.uniform(10, 50, n),
        rng.uniform(0.05, 0.5, n),
        rng.uniform(0, 200, n),
    )
    f_ref, t_ref = vehicle.vehicle_forces(*args)
    force, torque = np.zeros((n, 2)), np.zeros(n)
    vehicle.vehicle_forces_into(*args, force, torque)
    np.testing.assert_allclose(force, f_ref, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(torque, t_ref, rtol=1e-12, atol=1e-12)


def test_full_bow_force_turns_at_the_units_turn_rate_whatever_its_speed():
    """``Units.turn_rate`` (0.5 L Fs / k_w, what a unit slowing for a turn plans with) is the
    rate at which a unit's motion turns under full bow force, at cruise speed and coasting
    slower: integrated from cruise, the velocity's heading turns over the 2nd and 3rd second at
    no less than 90% of it (the plan does not count on more turn than the unit has) and no
    more than 120% (measured: 0.56 rad/s at full throttle, 0.64 coasting, against 0.566; a
    slower unit's motion follows its hull sooner). The rate does not fall with the speed, so
    a slower unit turns on a smaller circle."""
    m, L, W, T, k, S = 10.0, 4.0, 2.0, 10.0, 0.2, 40.0  # the unit ``forces`` simulates
    kw = vehicle.auto_angular_damping(m, T, k, L)
    units = Units(*(np.array([v]) for v in (L, W, m, m * (L * L + W * W) / 12, T, S, k, kw)),
                  family=np.zeros(1, int), role=np.zeros(1, int))  # fmt: skip
    rate = float(units.turn_rate[0])
    for throttle in (1.0, 0.0):
        vel, angle, omega, dt = np.array([np.sqrt(T / k), 0.0]), 0.0, 0.0, 1 / 120
        heading = []
        for _ in range(int(3.0 / dt)):
            f, tq = forces(angle, vel, omega, throttle, S, kw)
            vel = vel + f[0] / m * dt
            omega += tq[0] / units.moment[0] * dt
            angle += omega * dt
            heading.append(np.arctan2(vel[1], vel[0]))
        turned = np.unwrap(heading)
        measured = (turned[-1] - turned[int(1.0 / dt)]) / 2.0
        assert 0.9 * rate <= measured <= 1.2 * rate, (throttle, measured, rate)
