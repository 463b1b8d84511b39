"""Steering rules: the numpy reference (flocking, avoidance, pursuit, neighbours, view) and the
compiled numba kernels (pair_pass, unit_pass, cells) that the simulation runs, compared with it
by the tests; blend puts them together for one tick. No pymunk, no pyglet."""
