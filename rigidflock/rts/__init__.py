"""RTS move orders: groups that follow one route and arrive in formation.

:mod:`.orders` (the :class:`Orders` facade) > :mod:`.control` (one tick of a group: the order
of operations) > :mod:`.rules` (the move-order rules, each a function of whole arrays, and their
precedence, written once in :mod:`.rules.precedence`) >
:mod:`.slots` (formation slots) and :mod:`.groups` (a group's arrays) > :mod:`.navigation`
(grid, distance fields, paths). Imports only :mod:`rigidflock.model` and :mod:`rigidflock.scene`.
"""

from rigidflock.rts.groups import Group, OrderControl
from rigidflock.rts.orders import Orders

__all__ = ["Group", "OrderControl", "Orders"]
