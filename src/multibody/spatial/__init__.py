"""Spatial math every floor of the package may use: rotations and Euler parameters
(``rotations``) and measurements between marker frames (``measurements``)."""
