"""Example steering behaviours, each a plain function over whole numpy arrays (see the guide
"Writing a behaviour" and :mod:`rigidflock.model.behaviours`); name them in a scene as
``function = "rigidflock.behaviours.examples:wander"``. Numpy only: nothing of rigidflock is
imported, as in a user's own module."""
