"""What the user writes: models, bodies, markers, joints, motions, forces, functions of time."""
