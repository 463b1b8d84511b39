"""Whether the physics of a scene can run: pymunk integrates each tick with explicit steps of
``dt / substeps``, and a step stiffer than the body can take makes the velocity diverge to
infinity within a few ticks (the run then fails as a non-finite state).

For each group and the player: drag ``k |u| u`` with ``k = rho Cd L W / 2`` has the stiffness
``2 k v / m`` at the cruise speed ``v = sqrt(T / k)``; the turn damping ``k_w`` (and the drag
acting 0.12 L behind the centre) the stiffness ``(k_w + 2 k v (0.12 L)^2) / I`` with the box
moment ``I = m (L^2 + W^2) / 12``. A step times the stiffness above :data:`MAX_STIFFNESS` (half
the limit of explicit Euler, 2) is refused, naming the keys. Without drag (``air_density`` or
``drag_coefficient`` 0, or a length and width so small that ``k`` is 0 in floats) the cruise
speed has no bound, so ``angular_damping = "auto"`` (which grows with it) is refused too.

Ordered units slow for the turns of their route at ``TURN_SHARE`` x their turn rate under the
order's bow force (``navigation.seek`` x ``rules.steering_force``, at most the group's
``max_steering_force``) x the turn's radius, infinite on straight stretches: a turn rate of 0
in floats (a force of 0 or 5e-324) makes that 0 x infinity, a speed that is not a number, and
the run fails at the first order. A group an order can select is refused when its rate is 0
(:func:`order_turn_rates`, the run's arithmetic in the run's order).

Any value the reader lets through is answered: a quotient past the floats (a mass of 5e-324, a
moment that is 0 in floats) is an infinite stiffness, and one that is not a number (infinity
times 0) counts as infinite too, so both are refused, never a ZeroDivisionError.
"""

from __future__ import annotations

import math

from rigidflock.scene.errors import SceneError
from rigidflock.scene.specs import Scene

MAX_STIFFNESS = 1.0
DRAG_CENTRE = 0.12  # as rigidflock.model.vehicle.DRAG_CENTRE
TURN_SHARE = 0.7  # as rigidflock.rts.turn_speed.TURN_SHARE


def _bodies(scene: Scene):
    for i, g in enumerate(scene.groups):
        yield f"groups[{i}]", g.length, g.width, g.mass, g.thrust
    p = scene.player
    if p is not None:
        yield "player", p.length, p.width, p.mass, p.thrust


def _over(a: float, b: float) -> float:
    """``a / b`` for ``a, b >= 0``: infinite where ``b`` is 0 in floats and ``a`` is not, and
    where the quotient is not a number."""
    if not b > 0:
        return math.inf if a != 0 else 0.0
    q = a / b
    return q if q == q else math.inf


def _times(x: float) -> str:
    return f"{x:.3g}" if math.isfinite(x) else "more than 1e308"


def check_stability(scene: Scene) -> None:
    """Raise :class:`SceneError` (one line per body that cannot run) as described above."""
    ph = scene.physics
    h = scene.world.dt / scene.world.substeps
    errors = []
    for path, length, width, mass, thrust in _bodies(scene):
        k = 0.5 * ph.air_density * ph.drag_coefficient * length * width
        if k == 0:
            if ph.angular_damping is None:
                errors.append(
                    f'{scene.source}: physics.angular_damping: "auto" grows with the cruise '
                    "speed, which has no bound without drag (air_density or drag_coefficient 0, "
                    f"or {path}.length x width too small for any); give a number"
                )
                break
            v = 0.0
        else:
            v = math.sqrt(thrust / k)
        linear = _over(2 * k * v * h, mass)
        moment = mass * (length * length + width * width) / 12.0
        kw = mass * v * length / 2.0 if ph.angular_damping is None else ph.angular_damping
        damping = kw + 2 * k * v * (DRAG_CENTRE * length) ** 2
        turn = _over(damping * h if damping == damping else math.inf, moment)
        if max(linear, turn) > MAX_STIFFNESS:
            what = "drag" if linear >= turn else "turn damping"
            errors.append(
                f"{scene.source}: {path}: cannot run: its {what} at dt/substeps = {h:.3g} s would "
                f"make the motion diverge ({_times(max(linear, turn))} x the step it can take); "
                f"raise {path}.mass or world.substeps, or lower world.dt, {path}.thrust, "
                "physics.air_density or drag_coefficient"
                + (" or physics.angular_damping" if what == "turn damping" else "")
            )
    if not errors:
        errors += _order_turn_errors(scene)
    if errors:
        raise SceneError(errors)


def _selectable(scene: Scene) -> set[int]:
    """Indices of the groups some order can select (by family, ids or a rectangle)."""
    starts, n = [], 0
    for g in scene.groups:
        starts.append(n)
        n += g.count
    out: set[int] = set()
    for order in scene.orders:
        sel = order.select
        if sel.family is not None:
            out |= {i for i, g in enumerate(scene.groups) if g.family == sel.family}
        elif sel.ids is not None:
            for unit in sel.ids:
                out |= {i for i, g in enumerate(scene.groups) if 0 <= unit - starts[i] < g.count}
        else:
            out |= set(range(len(scene.groups)))
    return out


def order_turn_rates(scene: Scene) -> list[tuple[int, float]]:
    """(group index, rad/s): the turn rate a group an order can select plans its route's speed
    with, as the run computes it (``Units.turn_rate`` x min(1, order force / max_steer)), in
    float64 like numpy (infinite without damping, not a number for 0 x infinity)."""
    ph = scene.physics
    force = scene.navigation.seek * scene.rules.steering_force
    out = []
    for i in sorted(_selectable(scene)):
        g = scene.groups[i]
        k = 0.5 * ph.air_density * ph.drag_coefficient * g.length * g.width
        if ph.angular_damping is None:
            v = math.sqrt(g.thrust / k) if k > 0 else math.inf
            kw = g.mass * v * g.length / 2.0
        else:
            kw = ph.angular_damping
        torque = 0.5 * g.length * g.max_steering_force
        rate = torque / kw if kw > 0 else (math.inf if torque > 0 else math.nan)
        out.append((i, rate * min(1.0, force / g.max_steering_force)))
    return out


def _order_turn_errors(scene: Scene) -> list[str]:
    force = scene.navigation.seek * scene.rules.steering_force
    errors = []
    for i, rate in order_turn_rates(scene):
        if TURN_SHARE * rate > 0:  # a nan is not either
            continue
        g = scene.groups[i]
        if force < g.max_steering_force:
            why = (
                f"navigation.seek x rules.steering_force = {scene.navigation.seek:.3g} x "
                f"{scene.rules.steering_force:.3g} is its bow force"
            )
        else:
            why = f"groups[{i}].max_steering_force = {g.max_steering_force:.3g} caps its bow force"
        errors.append(
            f"{scene.source}: groups[{i}]: cannot follow an order's route: {why}, too small to "
            "turn with (a turn rate of 0 in floats); raise it"
        )
    return errors
