"""Materials and beam cross-sections: the data finite-element bodies are made of."""

from __future__ import annotations

import math

from multibody.model.element import ModelError
from multibody.model.marker import real_number


class Material:
    """An isotropic linear-elastic material.

    Parameters
    ----------
    E : float
        Young's modulus [Pa], > 0.
    nu : float
        Poisson's ratio [-], -1 < nu < 0.5.
    density : float
        Mass density [kg/m^3], > 0.
    """

    def __init__(self, E: float, nu: float, density: float) -> None:
        owner = "material"
        self.E = real_number(owner, "E (Young's modulus) [Pa]", E)
        self.nu = real_number(owner, "nu (Poisson's ratio)", nu)
        self.density = real_number(owner, "density [kg/m^3]", density)
        if self.E <= 0.0:
            raise ModelError(f"material: Young's modulus E must be positive, got {E!r} Pa")
        if not -1.0 < self.nu < 0.5:
            raise ModelError(f"material: Poisson's ratio nu must lie in (-1, 0.5), got {nu!r}")
        if self.density <= 0.0:
            raise ModelError(f"material: density must be positive, got {density!r} kg/m^3")

    @property
    def G(self) -> float:
        """Shear modulus E / (2 (1 + nu)) [Pa]."""
        return self.E / (2.0 * (1.0 + self.nu))

    def lame_parameters(self) -> tuple[float, float]:
        """Lame's lambda and mu [Pa] of this material."""
        lam = self.E * self.nu / ((1.0 + self.nu) * (1.0 - 2.0 * self.nu))
        return lam, self.G

    def __repr__(self) -> str:
        return f"Material(E={self.E:g}, nu={self.nu:g}, density={self.density:g})"


class Section:
    """A beam cross-section in its principal axes (local y, z; x along the beam).

    Parameters
    ----------
    area : float
        Cross-section area A [m^2].
    Iy, Iz : float
        Second moments of area about the section's y and z axes [m^4] (bending in the x-z plane
        uses Iy, in the x-y plane Iz).
    J : float
        Torsion constant [m^4] (the polar moment for circles and tubes).
    shear_coefficient : float
        Timoshenko shear coefficient k [-]: the shear area is k A (5/6 rectangle, 9/10 circle).
    """

    def __init__(self, area: float, Iy: float, Iz: float, J: float, shear_coefficient: float = 5.0 / 6.0) -> None:
        owner = "section"
        values = {
            "area [m^2]": area,
            "Iy [m^4]": Iy,
            "Iz [m^4]": Iz,
            "J [m^4]": J,
            "shear_coefficient": shear_coefficient,
        }
        checked = {what: real_number(owner, what, value) for what, value in values.items()}
        for what, value in checked.items():
            if value <= 0.0:
                raise ModelError(f"section: {what} must be positive, got {values[what]!r}")
        self.area, self.Iy, self.Iz, self.J, self.shear_coefficient = checked.values()

    @classmethod
    def circle(cls, d: float) -> Section:
        """Solid circle of diameter ``d`` [m] (shear coefficient 9/10)."""
        return cls.tube(d, 0.0, shear_coefficient=0.9)

    @classmethod
    def tube(cls, d_out: float, d_in: float, shear_coefficient: float = 0.5) -> Section:
        """Circular tube of outer and inner diameters [m]; shear coefficient 1/2 (thin-walled tube)."""
        d_out = real_number("section", "outer diameter [m]", d_out)
        d_in = real_number("section", "inner diameter [m]", d_in)
        if not 0.0 <= d_in < d_out:
            raise ModelError(f"section: a tube needs 0 <= d_in < d_out, got d_out={d_out!r}, d_in={d_in!r} m")
        area = math.pi * (d_out**2 - d_in**2) / 4.0
        inertia = math.pi * (d_out**4 - d_in**4) / 64.0
        return cls(area, inertia, inertia, 2.0 * inertia, shear_coefficient)

    @classmethod
    def rectangle(cls, b: float, h: float) -> Section:
        """Solid rectangle of width ``b`` (along y) and height ``h`` (along z) [m]; Iy = b h^3 / 12.

        Torsion constant (Roark, Table 10.7, case 4): J = a c^3 (1/3 - 0.21 (c/a)(1 - c^4 / (12 a^4)))
        with a >= c the long and short sides (error < 0.5 %)."""
        b = real_number("section", "width b [m]", b)
        h = real_number("section", "height h [m]", h)
        if b <= 0.0 or h <= 0.0:
            raise ModelError(f"section: rectangle sides must be positive, got b={b!r}, h={h!r} m")
        long_side, short_side = max(b, h), min(b, h)
        ratio = short_side / long_side
        torsion = long_side * short_side**3 * (1.0 / 3.0 - 0.21 * ratio * (1.0 - ratio**4 / 12.0))
        return cls(b * h, b * h**3 / 12.0, h * b**3 / 12.0, torsion, 5.0 / 6.0)

    @classmethod
    def i_beam(cls, h: float, b: float, t_web: float, t_flange: float) -> Section:
        """Doubly symmetric I-section (welded: no fillets) of height ``h`` (along z), flange width ``b``
        (along y), web and flange thicknesses [m]. ``Iy`` is the strong axis; the torsion constant is
        the open thin-walled section's, ``J = (2 b t_f^3 + (h - t_f) t_w^3) / 3`` (the web measured
        between the flanges' mid-planes); the shear coefficient is the web's share of the area (shear
        along z, which the web carries)."""
        values = {"height h": h, "flange width b": b, "web thickness": t_web, "flange thickness": t_flange}
        h, b, t_web, t_flange = (real_number("section", f"{what} [m]", value) for what, value in values.items())
        if min(h, b, t_web, t_flange) <= 0.0 or 2.0 * t_flange >= h or t_web > b:
            raise ModelError(
                f"section: an I-beam needs positive sizes with 2 t_flange < h and t_web <= b, got h={h!r}, b={b!r}, "
                f"t_web={t_web!r}, t_flange={t_flange!r} m"
            )
        web = h - 2.0 * t_flange
        area = 2.0 * b * t_flange + web * t_web
        strong = (b * h**3 - (b - t_web) * web**3) / 12.0
        weak = (2.0 * t_flange * b**3 + web * t_web**3) / 12.0
        torsion = (2.0 * b * t_flange**3 + (h - t_flange) * t_web**3) / 3.0
        return cls(area, strong, weak, torsion, web * t_web / area)

    def __repr__(self) -> str:
        return f"Section(area={self.area:g}, Iy={self.Iy:g}, Iz={self.Iz:g}, J={self.J:g})"
