"""Finite elements for modal flexible bodies: meshes, element matrices, reduction, matrix files,
floating-frame inertia invariants. Everything here is plain numpy/scipy (scikit-fem and meshio
loaded inside the functions that need them); the model classes live in ``multibody.model``."""
