"""The upper limits of a scene's keys: what can run, not just what parses.

Beyond these the physics is not finite, the memory is not there, or the run never gets
anywhere. Memory as a whole is estimated per scene by :mod:`rigidflock.scene.budget`; these
bound each key on its own.
"""

MAX_SIDE = 1e6  # world side, world units (the navigation grid and float precision)
MAX_UNITS = 100_000  # units in one group (bench runs 50,000)
MAX_SIZE = 1e3  # a unit's length or width, world units
MAX_MASS = 1e6  # kilograms
MAX_FORCE = 1e6  # thrust and steering forces, newtons
MAX_FACTOR = 1e3  # factors in unit lengths, and rule weights
MAX_TICK = 10**9  # ticks of scripts, orders and events (six months at 60 ticks a second)
MAX_SEED = 2**63 - 1
MAX_OBSTACLES = 2_000  # explicit obstacles
MAX_TABLES = 1_000  # groups, walls, buildings, orders, events
MAX_POINTS = 10_000  # waypoints, corners of a polygon
MIN_DT = 1e-4  # seconds: a smaller tick never gets anywhere (and a replay chunk holds 1 s of them)
