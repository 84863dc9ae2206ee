"""Named reference robots: the one definition of every robot the chapters, tests and validation use.

Like a model zoo: import the robot by name instead of retyping its numbers. All lengths in metres, masses in
kilograms, inertias in kg m^2, angles in radians. Every object here is an immutable (frozen) model; derive a
variant with ``dataclasses.replace`` or the model's own ``replace``.

| name | mechanism | chapter |
| --- | --- | --- |
| ``LEG2`` | two-link leg, thigh 0.21 m, shank 0.19 m, no limits | 2 |
| ``LEG2_LIMITED`` | the same leg with its joint limits | 2 |
| ``FIVEBAR`` | the chapter 3 five-bar leg (mm-scale: 60/60/100/100, d = 70) | 3, 13 |
| ``WHEEL_LEG_FIVEBAR`` | the wheel-legged robot's five-bar (0.15/0.15/0.25/0.25, d = 0.108) | 4, 13 |
| ``WHEEL_LEG`` | the wheel-legged robot's body, leg and wheel parameters | 4, 13 |
| ``UR5`` | the UR5 kinematics (standard DH) with joint limits | 5, 6, 7, 11 |
| ``ur5_inertials()`` | the UR5 masses, centres of mass and inertias | 11, 13 |
| ``CHASSIS`` | the chapter 8 mecanum chassis (wheel radius 0.076 m, half-track 0.21 m, half-base 0.18 m) | 8 |
| ``STEWART`` | the chapters 9-10 paired 6-6 platform with stroke limits [0.40, 0.66] m | 9, 10 |
| ``STEWART_UNIFORM`` | the uniform 6-6 layout (singular at home), for the singularity lessons | 9 |
| ``STEWART_PAYLOAD`` | the chapter 10 platform mass properties | 10 |
| ``ARM2`` | the chapters 11-13 planar two-link arm | 11, 12, 13 |

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
LEG2 = TwoLinkLeg(0.21, 0.19)
LEG2_LIMITED = TwoLinkLeg(0.21, 0.19, q_min=(-1.2, 0.3), q_max=(1.2, 2.7))
FIVEBAR = FiveBar(0.06, 0.06, 0.10, 0.10, 0.07)
WHEEL_LEG_FIVEBAR = FiveBar(0.15, 0.15, 0.25, 0.25, 0.108)
WHEEL_LEG = WheelLegParams()

# ---- arms (chapters 5-7, 11-13) ---------------------------------------------------------------------------------
# UR5 is defined in robokin.ur5 (its DH table is the mechanism's data) and re-exported here.


def ur5_inertials():
    """The UR5 inertial set: ``masses`` (6,), ``coms`` (6, 3), ``inertias`` (6, 3, 3); new arrays on every call."""
    return inertial_parameters()


ARM2 = TwoLinkArm(m1=1.2, m2=0.8, l1=0.5, l2=0.4, lc1=0.22, lc2=0.17, I1=0.03, I2=0.012)

# ---- chassis (chapter 8) ----------------------------------------------------------------------------------------
CHASSIS = Mecanum(0.076, 0.21, 0.18)

# ---- Stewart platform (chapters 9-10) ---------------------------------------------------------------------------
STEWART = Stewart(
    *paired_layout(0.5, 0.35, base_pair_angle=np.deg2rad(20), top_pair_angle=np.deg2rad(20)), stroke=(0.40, 0.66)
)
STEWART_UNIFORM = Stewart(*uniform_layout(0.5, 0.35, phase=0.0))
STEWART_PAYLOAD = PlatformParams(12.0, np.diag([0.25, 0.30, 0.45]), leg_mass=0.4)
