"""One layer's vertex list (:class:`Mesh`) and the shader program every layer draws with.

A layer is one pyglet vertex list (position float32, colour uint8) of one shader program; its
vertices are written straight into the list's client buffer through ``numpy.ctypeslib.as_array``
(the attribute getter also marks the range for upload).
"""

from __future__ import annotations

import numpy as np

from rigidflock.render.backend import gl, pyglet

_VS = """#version 330 core
in vec2 position;
in vec4 colors;
out vec4 v_color;
uniform WindowBlock { mat4 projection; mat4 view; } window;
void main() {
    gl_Position = window.projection * window.view * vec4(position, 0.0, 1.0);
    v_color = colors;
}
"""
_FS = """#version 330 core
in vec4 v_color;
out vec4 out_color;
void main() { out_color = v_color; }
"""


class _LayerGroup(pyglet.graphics.ShaderGroup):
    """The program, with alpha blending on for translucent layers (off for opaque ones: cheaper
    on a software renderer)."""

    def __init__(self, program, order: int, blend: bool):
        super().__init__(program, order=order)
        self.blend = blend

    def set_state(self) -> None:
        self.program.use()
        if self.blend:
            gl.glEnable(gl.GL_BLEND)
            gl.glBlendFunc(gl.GL_SRC_ALPHA, gl.GL_ONE_MINUS_SRC_ALPHA)

    def unset_state(self) -> None:
        if self.blend:
            gl.glDisable(gl.GL_BLEND)
        self.program.stop()

    def __hash__(self):
        return hash((self.program, self.order, self.blend, id(self)))

    def __eq__(self, other):
        return self is other


def program():
    return gl.current_context.create_program((_VS, "vertex"), (_FS, "fragment"))


class Mesh:
    """One vertex list of a layer, resized to fit what it is given.

    A list never becomes empty: pyglet's Batch drops an empty domain (and its group) from its draw
    list for good, so "nothing" is one degenerate, fully transparent primitive instead."""

    def __init__(self, prog, batch, order: int, mode: int, blend: bool = True):
        self.group = _LayerGroup(prog, order, blend)
        self.minimum = 3 if mode == gl.GL_TRIANGLES else 2
        self.vl = prog.vertex_list(
            self.minimum, mode, batch=batch, group=self.group, position="f", colors="Bn"
        )
        self.count = 0  # vertices in use

    def views(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Writable (n, 2) float32 positions and (n, 4) uint8 colours; re-fetched on every call
        (a resize moves the buffer, and fetching marks the range for upload)."""
        size = max(n, self.minimum)
        if self.vl.count != size:
            self.vl.resize(size)
        pos = np.ctypeslib.as_array(self.vl.position).reshape(size, 2)
        col = np.ctypeslib.as_array(self.vl.colors).reshape(size, 4)
        if n < size:
            pos[n:] = 0.0
            col[n:] = 0
        self.count = n
        return pos[:n], col[:n]

    def set(self, parts) -> None:
        """``parts``: (positions (k, 2), colour (4,) or (k, 4)) pairs, concatenated in order."""
        parts = [(p, c) for p, c in parts if len(p)]
        n = sum(len(p) for p, _ in parts)
        pos, col = self.views(n)
        k = 0
        for p, c in parts:
            pos[k : k + len(p)] = p
            col[k : k + len(p)] = c
            k += len(p)

    def delete(self) -> None:
        self.vl.delete()


def rgba(color) -> np.ndarray:
    """A colour as a (4,) uint8 array."""
    return np.asarray(color, np.uint8)
