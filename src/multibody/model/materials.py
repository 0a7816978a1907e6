"""Materials and beam cross-sections: the data of elastic members (SI units)."""

from __future__ import annotations

import numpy as np

from multibody.model.element import ModelError


class Material:
    """An isotropic linear-elastic material: Young's modulus ``E`` [Pa], Poisson's ratio ``nu``
    [-] (-1 < nu < 1/2) and ``density`` [kg/m^3]; ``G = E / (2 (1 + nu))`` [Pa]."""

    def __init__(self, E: float, nu: float, density: float) -> None:
        values = {"E": E, "nu": nu, "density": density}
        for what, value in values.items():
            if not isinstance(value, (int, float)) or not np.isfinite(value):
                raise ModelError(f"material: {what} must be a finite number, got {value!r}")
        if E <= 0.0 or density <= 0.0:
            raise ModelError(f"material: E [Pa] and density [kg/m^3] must be positive, got E={E!r}, density={density!r}")
        if not -1.0 < nu < 0.5:
            raise ModelError(f"material: Poisson's ratio must lie in (-1, 0.5), got {nu!r}")
        self.E, self.nu, self.density = float(E), float(nu), float(density)

    @property
    def G(self) -> float:
        """Shear modulus [Pa]."""
        return self.E / (2.0 * (1.0 + self.nu))

    def __repr__(self) -> str:
        return f"Material(E={self.E:g}, nu={self.nu:g}, density={self.density:g})"


class Section:
    """A beam cross-section: ``area`` [m^2], second moments ``Iy`` (about the section's y axis,
    bending in x-z) and ``Iz`` [m^4], torsion constant ``J`` [m^4] and the shear coefficient
    ``shear_factor`` (Timoshenko's kappa; 5/6 for a rectangle, 0.9 for a circle). The beam's axis
    is its x axis."""

    def __init__(self, area: float, Iy: float, Iz: float, J: float, shear_factor: float = 5.0 / 6.0) -> None:
        values = {"area": area, "Iy": Iy, "Iz": Iz, "J": J, "shear_factor": shear_factor}
        for what, value in values.items():
            if not isinstance(value, (int, float)) or not np.isfinite(value) or value <= 0.0:
                raise ModelError(f"section: {what} must be a positive finite number, got {value!r}")
        self.area, self.Iy, self.Iz, self.J = float(area), float(Iy), float(Iz), float(J)
        self.shear_factor = float(shear_factor)

    @classmethod
    def circle(cls, d: float) -> Section:
        """A solid circle of diameter ``d`` [m]."""
        return cls.tube(d, 0.0)

    @classmethod
    def tube(cls, d_out: float, d_in: float) -> Section:
        """A circular tube of outer and inner diameters ``d_out`` > ``d_in`` >= 0 [m]."""
        if not (np.isfinite(d_out) and np.isfinite(d_in)) or not d_out > d_in >= 0.0:
            raise ModelError(f"section: a tube needs d_out > d_in >= 0, got d_out={d_out!r}, d_in={d_in!r}")
        area = np.pi / 4.0 * (d_out**2 - d_in**2)
        inertia = np.pi / 64.0 * (d_out**4 - d_in**4)
        return cls(area, inertia, inertia, 2.0 * inertia, 0.9 if d_in == 0.0 else 0.5)

    @classmethod
    def rectangle(cls, b: float, h: float) -> Section:
        """A solid rectangle ``b`` wide (along the section's y) and ``h`` high (along z) [m]; the
        torsion constant by Roark's series approximation."""
        if not (np.isfinite(b) and np.isfinite(h)) or b <= 0.0 or h <= 0.0:
            raise ModelError(f"section: a rectangle needs b, h > 0, got b={b!r}, h={h!r}")
        long, short = max(b, h), min(b, h)
        torsion = long * short**3 * (1.0 / 3.0 - 0.21 * short / long * (1.0 - short**4 / (12.0 * long**4)))
        return cls(b * h, b * h**3 / 12.0, h * b**3 / 12.0, torsion, 5.0 / 6.0)

    def __repr__(self) -> str:
        return f"Section(area={self.area:g}, Iy={self.Iy:g}, Iz={self.Iz:g}, J={self.J:g})"
