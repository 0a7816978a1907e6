"""Body kinds: each says, vectorized over its group in compiled kernels, how a marker on it moves
(pose, twist, Jacobian w.r.t. its velocity coordinates, the J'v bias) and what loads at its
markers do to it. ``rigid`` is the first kind, moving every body's frame; each other kind
(``modal``, ``cable``, ``rope_span``) describes itself in a ``BodyKind`` (``kind``) registered once
in ``registry``."""
