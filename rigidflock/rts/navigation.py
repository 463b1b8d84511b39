"""Routes for move orders: a walkable grid, one distance field per order, the path along it.

The world is rasterised into square cells of side ``cell``; a cell is blocked when its centre lies
within ``clearance`` of a wall, a building or an obstacle (or of the world's edge when it is
walled). An order's route is a Dijkstra distance field from its goal over the 8-connected free
cells (diagonal steps only where both orthogonal neighbours are free, so routes never cut a
corner), computed by ``scipy.sparse.csgraph.dijkstra``: one search per order, however many units
follow it. A group's path is the field walked downhill from its centre; a unit pushed off it
follows the field itself. Positions are world units; cells are flat indices ``iy * nx + ix``.
Formation slots around the goal are in :mod:`.slots`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import ndimage
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

from rigidflock.scene.geometry import polygon_distance, segment_distance

_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))


@dataclass
class Grid:
    """A walkable grid over the world [0, w] x [0, h]."""

    cell: float
    nx: int
    ny: int
    blocked: np.ndarray  # (ny, nx) bool
    nearest_free: np.ndarray  # (ny * nx,) index of the nearest free cell (itself when free)
    neighbours: np.ndarray  # (8, ny * nx) neighbour cell per step, -1 where not walkable
    step_len: np.ndarray  # (8,) length of each step, world units
    # (ny * nx,) extra cost for entering a cell, world units: free cells nearer the walls than
    # the preferred clearance (routes keep wide of walls where there is room); None: none
    near_wall: np.ndarray | None = None

    @property
    def n(self) -> int:
        return self.nx * self.ny

    def cell_of(self, pos: np.ndarray) -> np.ndarray:
        """The cell under each position (N, 2), moved to the nearest free cell when blocked."""
        ix = np.clip((pos[:, 0] / self.cell).astype(np.intp), 0, self.nx - 1)
        iy = np.clip((pos[:, 1] / self.cell).astype(np.intp), 0, self.ny - 1)
        return self.nearest_free[iy * self.nx + ix]

    def centre(self, cells: np.ndarray) -> np.ndarray:
        """World coordinates (N, 2) of cell centres."""
        iy, ix = np.divmod(np.asarray(cells), self.nx)
        return np.stack([(ix + 0.5) * self.cell, (iy + 0.5) * self.cell], axis=1)

    def sees(self, a: np.ndarray, b: np.ndarray, samples: int = 8) -> np.ndarray:
        """(N,) bool: the straight segments from ``a`` (N, 2) to ``b`` (N, 2) cross no blocked
        cell (checked at ``samples`` points after ``a``): ``b`` is in line of sight."""
        t = (np.arange(1, samples + 1) / samples)[None, :, None]
        pts = a[:, None, :] + t * (b - a)[:, None, :]
        return self.is_free(pts.reshape(-1, 2)).reshape(len(a), samples).all(axis=1)

    def is_free(self, pos: np.ndarray) -> np.ndarray:
        ix = np.clip((pos[:, 0] / self.cell).astype(np.intp), 0, self.nx - 1)
        iy = np.clip((pos[:, 1] / self.cell).astype(np.intp), 0, self.ny - 1)
        inside = (pos[:, 0] >= 0) & (pos[:, 1] >= 0)
        inside &= (pos[:, 0] < self.nx * self.cell) & (pos[:, 1] < self.ny * self.cell)
        return inside & ~self.blocked[iy, ix]


def build_grid(
    size,
    cell: float,
    clearance: float,
    walls=(),
    buildings=(),
    obstacles: np.ndarray | None = None,
    walled: bool = False,
    preferred: float | None = None,
) -> Grid:
    """Rasterise the static world. ``walls``: (start, end, thickness) triples; ``buildings``:
    convex polygons (K, 2); ``obstacles``: (M, 3) circles; ``walled``: the world's edge blocks.
    ``clearance`` blocks cells (the least a unit needs: every gap it fits through stays open);
    free cells within ``preferred`` (> clearance) cost one extra cell length to enter, so routes
    keep wider of walls where there is room."""
    w, h = float(size[0]), float(size[1])
    nx, ny = max(1, int(np.ceil(w / cell))), max(1, int(np.ceil(h / cell)))
    xs = (np.arange(nx) + 0.5) * cell
    ys = (np.arange(ny) + 0.5) * cell
    gx, gy = np.meshgrid(xs, ys)
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1)
    blocked = _blocked(pts, (w, h), clearance, walls, buildings, obstacles, walled)
    blocked = blocked.reshape(ny, nx)
    if blocked.all():
        nearest = np.arange(nx * ny)
    else:
        _, (iy, ix) = ndimage.distance_transform_edt(blocked, return_indices=True)
        nearest = (iy * nx + ix).ravel()
    step_len = np.array([cell if not (dx and dy) else cell * np.sqrt(2) for dx, dy in _STEPS])
    near_wall = None
    if preferred is not None and preferred > clearance:
        tight = _blocked(pts, (w, h), preferred, walls, buildings, obstacles, walled)
        near_wall = np.where(tight & ~blocked.ravel(), cell, 0.0)
    return Grid(cell, nx, ny, blocked, nearest, _neighbours(~blocked), step_len, near_wall)


def _blocked(pts, size, clearance, walls, buildings, obstacles, walled) -> np.ndarray:
    """(P,) bool: the points ``pts`` (P, 2) within ``clearance`` of anything solid."""
    w, h = size
    blocked = np.zeros(len(pts), dtype=bool)
    for start, end, thickness in walls:
        blocked |= segment_distance(pts, start, end) < thickness / 2 + clearance
    for poly in buildings:
        blocked |= polygon_distance(pts, np.asarray(poly, dtype=float)) < clearance
    if obstacles is not None:
        for cx, cy, r in obstacles:
            blocked |= np.hypot(pts[:, 0] - cx, pts[:, 1] - cy) < r + clearance
    if walled:
        blocked |= (pts[:, 0] < clearance) | (pts[:, 0] > w - clearance)
        blocked |= (pts[:, 1] < clearance) | (pts[:, 1] > h - clearance)
    return blocked


def _neighbours(free: np.ndarray) -> np.ndarray:
    """(8, ny * nx) the neighbour cell per step of ``_STEPS`` from each cell of the (ny, nx)
    ``free`` mask, -1 where either is blocked, off the grid, or the step cuts a corner."""
    ny, nx = free.shape
    iy, ix = np.divmod(np.arange(nx * ny), nx)
    neighbours = np.full((8, nx * ny), -1, dtype=np.intp)
    for k, (dx, dy) in enumerate(_STEPS):
        jx, jy = ix + dx, iy + dy
        ok = (jx >= 0) & (jx < nx) & (jy >= 0) & (jy < ny)
        ok &= free.ravel()
        jxc, jyc = np.clip(jx, 0, nx - 1), np.clip(jy, 0, ny - 1)
        ok &= free[jyc, jxc]
        if dx and dy:  # no corner cutting
            ok &= free[iy, np.clip(ix + dx, 0, nx - 1)] & free[np.clip(iy + dy, 0, ny - 1), ix]
        neighbours[k] = np.where(ok, jyc * nx + jxc, -1)
    return neighbours


@dataclass
class Field:
    """A route to one goal: distance to go from every cell, and the next cell downhill."""

    goal_cell: int
    dist: np.ndarray  # (cells,) world units along the route; inf where the goal cannot be reached
    next_cell: np.ndarray  # (cells,) the neighbour to move to (itself at the goal)

    def ahead(self, cells: np.ndarray, steps: int) -> np.ndarray:
        """The cell ``steps`` moves down the route from each of ``cells``."""
        for _ in range(steps):
            cells = self.next_cell[cells]
        return cells


def distance_field(grid: Grid, goal: np.ndarray, extra_cost: np.ndarray | None = None) -> Field:
    """Dijkstra from the goal's (nearest free) cell. ``extra_cost`` (cells,): added for entering
    a cell, in world units (re-routing around congestion)."""
    src, dst, wgt = [], [], []
    for k in range(8):
        ok = grid.neighbours[k] >= 0
        a = np.flatnonzero(ok)
        b = grid.neighbours[k][ok]
        cost = np.full(len(a), grid.step_len[k])
        if extra_cost is not None:
            cost = cost + extra_cost[b]
        if grid.near_wall is not None:
            cost = cost + grid.near_wall[b]
        src.append(a)
        dst.append(b)
        wgt.append(cost)
    src, dst, wgt = np.concatenate(src), np.concatenate(dst), np.concatenate(wgt)
    graph = csr_matrix((wgt, (src, dst)), shape=(grid.n, grid.n))
    goal_cell = int(grid.cell_of(np.asarray(goal, dtype=float).reshape(1, 2))[0])
    # distance *to* the goal: search from the goal over reversed edges
    dist = dijkstra(graph.T.tocsr(), directed=True, indices=goal_cell)
    nb = grid.neighbours
    # the neighbour on a shortest path: dist[c] == dist[nb] + step; prefer the lowest dist[nb]
    cand = np.where(nb >= 0, dist[np.maximum(nb, 0)], np.inf)
    best = np.argmin(cand, axis=0)
    cells = np.arange(grid.n)
    downhill = cand[best, cells] < dist
    next_cell = np.where(downhill, nb[best, cells], cells)
    return Field(goal_cell, dist, next_cell)


def path_from(grid: Grid, field: Field, start: np.ndarray) -> np.ndarray:
    """The route from ``start`` (2,) down the field to the goal, as cell centres (K, 2), world
    units; K >= 1 (the start's cell alone when it is the goal's or cannot reach it)."""
    cell = int(grid.cell_of(start[None, :])[0])
    cells = [cell]
    for _ in range(grid.n):
        nxt = int(field.next_cell[cells[-1]])
        if nxt == cells[-1]:
            break
        cells.append(nxt)
    return grid.centre(np.asarray(cells))


def congestion_cost(grid: Grid, stopped: np.ndarray) -> np.ndarray:
    """Extra cost (cells,), world units, for entering the cells under ``stopped`` (M, 2)
    positions: four cells' length per stopped unit, so a re-search goes round a jam."""
    cost = np.zeros(grid.n)
    np.add.at(cost, grid.cell_of(stopped), 4.0 * grid.cell)
    return cost
