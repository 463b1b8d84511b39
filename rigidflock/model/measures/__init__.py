"""Measures of a flock: pure functions of one snapshot's arrays, one module per subject.

What goes where:

- Here: functions of arrays (positions, headings, velocities, contact counts) that return a
  number or an array for one snapshot, with shapes and units in their docstrings. They keep no
  state between calls and read no simulation; a compiled kernel may write into an array the
  caller owns and passes in (as numpy's ``out=``), never into one of its own.
- :mod:`rigidflock.runs.collector`: everything accumulated over the ticks of a run (sums,
  running totals, the series rows), from the simulation's read-only view
  (:meth:`rigidflock.sim.Simulation.measurables`).
- :mod:`~rigidflock.model.measures.reference`: the plain definitions (k-d trees, scipy) the
  compiled measures are checked against; the tests import them, the runs do not.

The modules import numpy, scipy, numba, :mod:`rigidflock.model.torus`,
:mod:`rigidflock.model.state`, :mod:`rigidflock.scene` and the cell grids of
:mod:`rigidflock.model.steering.cells` (the spatial index the neighbour search uses too), and
nothing else of the package: an import contract in ``pyproject.toml`` holds them to it.

- :mod:`~rigidflock.model.measures.alignment`: polarization, milling, the flock centre;
- :mod:`~rigidflock.model.measures.spacing`: nearest-neighbour distances, the nearest of a set;
- :mod:`~rigidflock.model.measures.flocks`: flock labels (connected components), elongation;
- :mod:`~rigidflock.model.measures.pins`: units pinned against static geometry;
- :mod:`~rigidflock.model.measures.locks`: units of different move orders pressed together.

Positions are world units, velocities world units / s; ``box`` is the world size of a
wrap-around world (offsets are then minimum-image), None otherwise. The functions take arrays of
AI units only: the caller slices.
"""
