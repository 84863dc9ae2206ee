"""A reader's Stewart leg-length IK for examples/robots/stewart_ch09.toml, and the typical mistakes (``*_wrong``).

The anchors come from the design file as 6x3 tables (one row per leg, as in a spreadsheet); the rotation and the
leg lengths are written by hand, as a team writes them from the chapter.
"""

from pathlib import Path

import numpy as np

from robokin import params

_ST = params.load(Path(__file__).resolve().parents[2] / "examples" / "robots" / "stewart_ch09.toml").mechanism
BASE = np.array(_ST.base.T)  # (6, 3): row i is leg i
TOP = np.array(_ST.top.T)
STROKE_MIN = _ST.stroke[0]


def rotm_zyx(yaw, pitch, roll):
    """MATLAB's eul2rotm([yaw pitch roll], 'ZYX'): Rz(yaw) Ry(pitch) Rx(roll)."""
    cz, sz, cy, sy, cx, sx = np.cos(yaw), np.sin(yaw), np.cos(pitch), np.sin(pitch), np.cos(roll), np.sin(roll)
    Rz = np.array([[cz, -sz, 0], [sz, cz, 0], [0, 0, 1.0]])
    Ry = np.array([[cy, 0, sy], [0, 1.0, 0], [-sy, 0, cy]])
    Rx = np.array([[1.0, 0, 0], [0, cx, -sx], [0, sx, cx]])
    return Rz @ Ry @ Rx


def _lengths(pose, R, base=BASE, top=TOP):
    x = np.asarray(pose[:3], dtype=float)
    return [float(np.linalg.norm(x + R @ top[i] - base[i])) for i in range(6)]


def ik(pose):
    x, y, z, roll, pitch, yaw = pose
    return _lengths(pose, rotm_zyx(yaw, pitch, roll))


def ik_eul2rotm_order_wrong(pose):
    """eul2rotm called with [roll pitch yaw], the order the pose is stored in."""
    x, y, z, roll, pitch, yaw = pose
    return _lengths(pose, rotm_zyx(roll, pitch, yaw))


def ik_rowcol_wrong(pose):
    """The 6x3 anchor tables reshaped (not transposed) into the 3x6 layout of the chapter's formulas."""
    x, y, z, roll, pitch, yaw = pose
    R = rotm_zyx(yaw, pitch, roll)
    b, p = BASE.reshape(3, 6), TOP.reshape(3, 6)  # the bug: reshape keeps the memory order
    return [float(np.linalg.norm(np.asarray(pose[:3]) + R @ p[:, i] - b[:, i])) for i in range(6)]


def ik_transposed_wrong(pose):
    """The rotation applied transposed (a world-to-platform matrix used as platform-to-world)."""
    x, y, z, roll, pitch, yaw = pose
    return _lengths(pose, rotm_zyx(yaw, pitch, roll).T)


def ik_extension_wrong(pose):
    """Returns the actuator extension (length minus the stroke minimum) where the leg length is asked for."""
    return [v - STROKE_MIN for v in ik(pose)]
