"""The force model of DESIGN.md section 3."""

import numpy as np

from rigidflock.model import vehicle


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
