"""The precedence of the move-order rules: the one place that says which rule decides for a unit.

A group's members are decided in two steps, each through an ordered list; in each list a unit's
command on a channel is that of the first rule that claims the unit and commands the channel
(:func:`~.claim.decide`; "next": the rule leaves the channel to the rules after it).

1. ``AIM``, the point each unit steers at (the rules after it seek this point):

   ===================  ===========================================  ======================
   rule                 claims                                       aim
   ===================  ===========================================  ======================
   aim_at_slot          near its slot, or at the formation seeing    its slot
                        its slot
   wait_beside_the_way  held for another group at a door, seeing     its place in the queue
                        its place                                    (beside the way)
   pass_on_the_right    meeting another group's unit head on         right of its path point
   follow_path          every unit                                   its path point
   ===================  ===========================================  ======================

   The path point: a few cells ahead on the group's path, or down the distance field.

2. ``DRIVE``, throttle, bow force and the share of the flocking rules' force:

   ====================  ============================================  ========  ======  =====
   rule                  claims                                        throttle  force   flock
   ====================  ============================================  ========  ======  =====
   wait_at_door          short of a door another group backs out of    brake     next    0
   back_out_of_door      yielding, too near the meeting point          reverse   stern   0
   hold_for_door         yielding, not through the meeting point       queue     seek    0
   back_off_stuck        stuck, backing off for a second               reverse   seek    next
   give_way_at_crossing  another group's unit on its right, crossing   slow      next    0
   arrive                near its slot, in sight of it                 arrive    arrive  0
   cut_off               sees neither its slot nor its path place      next      next    0
   formation_alone       at the formation, not meeting one head on     next      next    0
   cruise                every unit                                    cruise    seek    0.5
   ====================  ============================================  ========  ======  =====

   "seek": the bow force toward the aim of step 1. Each rule lives in its module of
   :mod:`rigidflock.rts.rules`, where its docstring says what it commands and why.

After the orders the simulation's own throttle rules, for every AI unit, may still override a
unit's throttle: backing out when pressed still against static geometry
(:mod:`rigidflock.model.steering.unpin`) and giving way to a unit backing out
(:mod:`rigidflock.model.steering.give_way`).
"""

from __future__ import annotations

from rigidflock.rts.rules.arrive import aim_at_slot, arrive
from rigidflock.rts.rules.back_off import back_off_stuck
from rigidflock.rts.rules.crossing import give_way_at_crossing
from rigidflock.rts.rules.cruise import cruise
from rigidflock.rts.rules.flock_share import cut_off, formation_alone
from rigidflock.rts.rules.follow_path import follow_path
from rigidflock.rts.rules.passing import pass_on_the_right
from rigidflock.rts.rules.yielding import (
    back_out_of_door,
    hold_for_door,
    wait_at_door,
    wait_beside_the_way,
)

AIM = (aim_at_slot, wait_beside_the_way, pass_on_the_right, follow_path)

DRIVE = (
    wait_at_door,
    back_out_of_door,
    hold_for_door,
    back_off_stuck,
    give_way_at_crossing,
    arrive,
    cut_off,
    formation_alone,
    cruise,
)
