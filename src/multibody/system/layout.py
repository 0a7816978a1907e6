"""The coordinate layout of a System: typed blocks of coordinates with offsets and widths.

Three kinds of unknowns, each a vector of the ``State``:

* second-order coordinates: positions ``q`` and velocity coordinates ``v`` (``nq != nv`` is
  allowed: a rigid body has 7 and 6, a modal body 7+m and 6+m, nodal beams and rope nodes their
  own); ``dq/dt = N(q) v``;
* first-order states ``x`` with ``dx/dt = f(t, q, v, x, lambda)`` (hydraulic pressures, friction
  bristles, controllers, user differential equations), advanced by every integrator;
* algebraic variables: the multipliers ``lambda`` of the constraint rows (numbered by the rows).

Each block names its kind and its owner (a body or an element), so that results, outputs and
kernels find their coordinates without knowing any other kind's widths.
"""

from __future__ import annotations

from dataclasses import dataclass

SECOND_ORDER_KINDS = ("rigid_body", "modal", "ancf_cable")
"""Kinds of second-order blocks; a new body kind adds its name here and its kernel in
``multibody.formulation.bodies``. A modal body owns a ``rigid_body`` block (its floating frame) and
a ``modal`` block (its modal coordinates, after every frame block); an ANCF cable one
``ancf_cable`` block (its node positions and slopes, after the modal blocks)."""
FIRST_ORDER = "first_order"


@dataclass(frozen=True)
class CoordinateBlock:
    """One block: ``q[q_offset : q_offset + nq]``, ``v[v_offset : ...]``, ``x[x_offset : ...]``."""

    kind: str
    owner: str
    q_offset: int = 0
    nq: int = 0
    v_offset: int = 0
    nv: int = 0
    x_offset: int = 0
    nx: int = 0

    @property
    def x_slice(self) -> slice:
        """Where the block's first-order states are in ``x``."""
        return slice(self.x_offset, self.x_offset + self.nx)


@dataclass(frozen=True)
class CoordinateLayout:
    """All blocks in order: second-order blocks first (their q and v back to back), then the
    first-order states."""

    blocks: tuple[CoordinateBlock, ...]

    @classmethod
    def build(
        cls, second_order: list[tuple[str, str, int, int]], first_order: list[tuple[str, int]]
    ) -> CoordinateLayout:
        """From ``(kind, owner, nq, nv)`` per second-order block and ``(owner, nx)`` per element
        with first-order states, offsets assigned in the order given."""
        blocks = []
        q_offset = v_offset = x_offset = 0
        for kind, owner, nq, nv in second_order:
            if kind not in SECOND_ORDER_KINDS:
                raise ValueError(f"unknown coordinate block kind {kind!r} of '{owner}'")
            blocks.append(CoordinateBlock(kind, owner, q_offset, nq, v_offset, nv))
            q_offset, v_offset = q_offset + nq, v_offset + nv
        for owner, nx in first_order:
            blocks.append(CoordinateBlock(FIRST_ORDER, owner, x_offset=x_offset, nx=nx))
            x_offset += nx
        return cls(tuple(blocks))

    def states_of(self, owner: str) -> slice:
        """Where element ``owner``'s first-order states are in ``x`` (KeyError names the owners)."""
        for block in self.blocks:
            if block.kind == FIRST_ORDER and block.owner == owner:
                return block.x_slice
        owners = ", ".join(b.owner for b in self.blocks if b.kind == FIRST_ORDER) or "none"
        raise KeyError(f"'{owner}' has no first-order states; elements with states: {owners}")
