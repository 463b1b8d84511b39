"""Move orders as named rules over a group's members, decided through one precedence list.

Each rule is a pure function over whole arrays that returns a :class:`~.claim.Claim`: the
members it claims and its command for them (aim, throttle, bow force, flock share), with array
shapes and units in its docstring. :mod:`.precedence` orders them (the first rule that claims
a unit decides for it); :func:`rigidflock.rts.control.control_group` reads the members'
situation, asks every rule and decides. Rules: :mod:`.arrive`, :mod:`.passing`,
:mod:`.follow_path`, :mod:`.yielding`, :mod:`.back_off`, :mod:`.flock_share`, :mod:`.cruise`.
"""
