"""Whether the physics of a scene can run: pymunk integrates each tick with explicit steps of
``dt / substeps``, and a step stiffer than the body can take makes the velocity diverge to
infinity within a few ticks (the run then fails as a non-finite state).

For each group and the player: drag ``k |u| u`` with ``k = rho Cd L W / 2`` has the stiffness
``2 k v / m`` at the cruise speed ``v = sqrt(T / k)``; the turn damping ``k_w`` (and the drag
acting 0.12 L behind the centre) the stiffness ``(k_w + 2 k v (0.12 L)^2) / I`` with the box
moment ``I = m (L^2 + W^2) / 12``. A step times the stiffness above :data:`MAX_STIFFNESS` (half
the limit of explicit Euler, 2) is refused, naming the keys. Without drag (``air_density`` or
``drag_coefficient`` 0) the cruise speed has no bound, so ``angular_damping = "auto"`` (which
grows with it) is refused too.
"""

from __future__ import annotations

import math

from rigidflock.scene.errors import SceneError
from rigidflock.scene.specs import Scene

MAX_STIFFNESS = 1.0
DRAG_CENTRE = 0.12  # as rigidflock.model.vehicle.DRAG_CENTRE


def _bodies(scene: Scene):
    for i, g in enumerate(scene.groups):
        yield f"groups[{i}]", g.length, g.width, g.mass, g.thrust
    p = scene.player
    if p is not None:
        yield "player", p.length, p.width, p.mass, p.thrust


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
                    "speed, which has no bound without drag (air_density or drag_coefficient 0); "
                    "give a number"
                )
                break
            v = 0.0
        else:
            v = math.sqrt(thrust / k)
        linear = 2 * k * v * h / mass
        moment = mass * (length * length + width * width) / 12.0
        kw = mass * v * length / 2.0 if ph.angular_damping is None else ph.angular_damping
        turn = (kw + 2 * k * v * (DRAG_CENTRE * length) ** 2) * h / moment
        if max(linear, turn) > MAX_STIFFNESS:
            what = "drag" if linear >= turn else "turn damping"
            errors.append(
                f"{scene.source}: {path}: cannot run: its {what} at dt/substeps = {h:.3g} s would "
                f"make the motion diverge ({max(linear, turn):.3g} x the step it can take); "
                f"raise {path}.mass or world.substeps, or lower world.dt, {path}.thrust, "
                "physics.air_density or drag_coefficient"
                + (" or physics.angular_damping" if what == "turn damping" else "")
            )
    if errors:
        raise SceneError(errors)
