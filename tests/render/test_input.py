"""The key map: keys -> commands and viewer actions, without a window."""


def test_controls_map_keys_to_commands_without_a_window():
    from rigidflock.render.backend import key
    from rigidflock.render.input import Controls
    from rigidflock.scene import RulesSpec

    rules = RulesSpec()
    c = Controls("keyboard")
    assert c.command({}).throttle is None  # autopilot until an arrow is pressed
    c.key_press(key.LEFT, 0, rules)
    cmd = c.command({key.LEFT: True, key.UP: True})
    assert (cmd.throttle, cmd.steer) == (1.0, 1.0)
    c.key_press(key.F, 0, rules)
    c.key_press(key._2, 0, rules)
    assert c.command({}).toggles == (("flocking", False), ("view", "limited"))
    assert c.command({}).toggles == ()
    waypoints = Controls("waypoints")
    assert waypoints.command({key.UP: True}).throttle is None  # the scene's control drives
    waypoints.key_press(key.UP, 0, rules)  # until an arrow takes the player over, any control
    assert waypoints.command({key.UP: True}).throttle == 1.0
    nobody = Controls(None)  # no player: the arrows do nothing
    nobody.key_press(key.UP, 0, rules)
    assert nobody.command({key.UP: True}).throttle is None
    assert c.key_press(key.ESCAPE, 0, rules) == "quit"
    assert c.key_press(key.PERIOD, 0, rules) is None  # single step only while paused
    c.key_press(key.SPACE, 0, rules)
    assert c.key_press(key.PERIOD, 0, rules) == "step"
