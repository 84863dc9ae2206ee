"""robokin: verified robot kinematics and dynamics for the robokin course.

Modules
-------
transforms : rotations, ZYX roll-pitch-yaw, SO(3)/SE(3) exp and log, interpolation
checks     : finite-difference Jacobians, residual scans and other machine checks
errors     : UnreachableError, SingularityWarning, SingularityError, ConvergenceError, IntegrationError
symbolic   : sympy counterparts used in the derivations

Mechanism modules (one per chapter) are imported on demand, e.g.
``from robokin.leg2 import TwoLinkLeg``.
"""

from . import checks, errors, transforms
from .errors import ConvergenceError, IntegrationError, SingularityError, SingularityWarning, UnreachableError

__version__ = "0.1.0"
__all__ = [
    "checks",
    "errors",
    "transforms",
    "UnreachableError",
    "SingularityWarning",
    "SingularityError",
    "ConvergenceError",
    "IntegrationError",
]
