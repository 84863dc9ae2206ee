"""Named reference robots: the one definition of every robot the chapters, tests and validation use.

Like a model zoo: import the robot by name instead of retyping its numbers. All lengths in metres, masses in
kilograms, inertias in kg m^2, angles in radians. Every object here is an immutable (frozen) model; derive a
variant with ``dataclasses.replace`` or the model's own ``replace``.

Each constant below is documented with the chapters that use it.

Examples
--------
>>> from robokin.robots import FIVEBAR, UR5
>>> FIVEBAR.d
0.07
>>> UR5.n
6
"""

from __future__ import annotations

import numpy as np

from .dynamics import TwoLinkArm
from .fivebar import FiveBar
from .leg2 import TwoLinkLeg
from .mecanum import Mecanum
from .stewart import PlatformParams, Stewart, paired_layout, uniform_layout
from .ur5 import UR5, inertial_parameters
from .wheel_leg import WheelLegParams

__all__ = [
    "LEG2",
    "LEG2_LIMITED",
    "FIVEBAR",
    "WHEEL_LEG_FIVEBAR",
    "WHEEL_LEG",
    "UR5",
    "ur5_inertials",
    "CHASSIS",
    "STEWART",
    "STEWART_UNIFORM",
    "STEWART_PAYLOAD",
    "ARM2",
]

# ---- legs (chapters 2-4) -------------------------------------------------------------------------------------
#: Chapter 2: the quadruped leg, thigh 0.21 m and shank 0.19 m, without joint limits (both knee branches).
LEG2 = TwoLinkLeg(0.21, 0.19)
#: Chapter 2: the same leg with its joint limits (rad), used from the gait on.
LEG2_LIMITED = TwoLinkLeg(0.21, 0.19, q_min=(-1.2, 0.3), q_max=(1.2, 2.7))
#: Chapters 3 and 13: the five-bar leg, l1 = l2 = 60 mm, l3 = l4 = 100 mm, motor spacing d = 70 mm.
FIVEBAR = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
#: Chapters 4 and 13: the wheel-legged robot's five-bar (0.15, 0.15, 0.25, 0.25 m; d = 0.108 m).
WHEEL_LEG_FIVEBAR = FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
#: Chapters 4 and 13: the wheel-legged robot's body, leg and wheel parameters.
WHEEL_LEG = WheelLegParams()

# ---- arms (chapters 5-7, 11-13) ---------------------------------------------------------------------------------
#: Chapters 5-7, 11 and 13: the UR5 (official standard-DH table, with joint limits); defined in robokin.ur5.
UR5 = UR5


def ur5_inertials() -> dict[str, np.ndarray]:
    """The UR5 inertial set: ``masses`` (6,), ``coms`` (6, 3), ``inertias`` (6, 3, 3); new arrays on every call."""
    return inertial_parameters()


#: Chapters 11-13: the planar two-link arm (masses kg, lengths m, inertias kg m^2).
ARM2 = TwoLinkArm(m1=1.2, m2=0.8, l1=0.5, l2=0.4, lc1=0.22, lc2=0.17, I1=0.03, I2=0.012)

# ---- chassis (chapter 8) ----------------------------------------------------------------------------------------
#: Chapter 8: the mecanum chassis, wheel radius 0.076 m, half-track 0.21 m, half-wheelbase 0.18 m.
CHASSIS = Mecanum(0.076, 0.21, 0.18)

# ---- Stewart platform (chapters 9-10) ---------------------------------------------------------------------------
#: Chapters 9-10: the paired 6-6 Stewart platform (base radius 0.5 m, top 0.35 m, pairs 20 deg apart),
#: leg stroke [0.40, 0.66] m.
STEWART = Stewart(
    *paired_layout(0.5, 0.35, base_pair_angle=np.deg2rad(20), top_pair_angle=np.deg2rad(20)), stroke=(0.40, 0.66)
)
#: Chapter 9: the uniform 6-6 layout without phase offset, for the singularity lessons; no stroke limits.
STEWART_UNIFORM = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
#: Chapter 10: the platform mass properties (12 kg, principal inertias 0.25, 0.30, 0.45 kg m^2, legs 0.4 kg).
STEWART_PAYLOAD = PlatformParams(12.0, np.diag([0.25, 0.30, 0.45]), leg_mass=0.4)
