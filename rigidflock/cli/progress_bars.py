"""Progress bars (tqdm, on stderr) for the commands that run long."""

from __future__ import annotations

import contextlib


@contextlib.contextmanager
def progress_bar(total: int | None, unit: str, enabled: bool):
    """Yields ``update(done, total=None)`` moving the bar to ``done`` of ``total`` (which may be
    given late), or None when ``enabled`` is false (not a terminal, or ``--quiet``)."""
    if not enabled:
        yield None
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, leave=False)

    def update(done: int, new_total: int | None = None) -> None:
        if new_total is not None:
            bar.total = new_total
        bar.update(done - bar.n)

    try:
        yield update
    finally:
        bar.close()
