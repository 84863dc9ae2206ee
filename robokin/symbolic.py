"""Sympy counterparts of the numeric kernels, used in the derivations.

The notebooks derive an expression here, then compare it numerically with the
vectorised numpy function in the package (derive -> implement -> validate).
Rotations are *active* (they rotate vectors), matching :mod:`robokin.transforms`.
Note that ``sympy.rot_axis1/2/3`` are *passive* (their transposes); see chapter 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sympy as sp

__all__ = ["rotx", "roty", "rotz", "rpy_matrix", "hat", "transform", "lambdify"]


def rotx(t: sp.Expr | float) -> sp.Matrix:
    """Active rotation about x as a sympy Matrix.

    Examples
    --------
    >>> rotx(sp.Symbol("t"))
    Matrix([
    [1,      0,       0],
    [0, cos(t), -sin(t)],
    [0, sin(t),  cos(t)]])
    """
    c, s = sp.cos(t), sp.sin(t)
    return sp.Matrix([[1, 0, 0], [0, c, -s], [0, s, c]])


def roty(t: sp.Expr | float) -> sp.Matrix:
    """Active rotation about y as a sympy Matrix.

    Examples
    --------
    >>> roty(0)
    Matrix([
    [1, 0, 0],
    [0, 1, 0],
    [0, 0, 1]])
    """
    c, s = sp.cos(t), sp.sin(t)
    return sp.Matrix([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rotz(t: sp.Expr | float) -> sp.Matrix:
    """Active rotation about z as a sympy Matrix.

    Examples
    --------
    >>> rotz(sp.pi / 2) * sp.Matrix([1, 0, 0])
    Matrix([
    [0],
    [1],
    [0]])
    """
    c, s = sp.cos(t), sp.sin(t)
    return sp.Matrix([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def rpy_matrix(roll: sp.Expr | float, pitch: sp.Expr | float, yaw: sp.Expr | float) -> sp.Matrix:
    """ZYX roll-pitch-yaw: ``Rz(yaw) Ry(pitch) Rx(roll)``.

    Examples
    --------
    >>> rpy_matrix(0, 0, sp.Symbol("y")) == rotz(sp.Symbol("y"))
    True
    """
    return rotz(yaw) * roty(pitch) * rotx(roll)


def hat(w: sp.MatrixBase | Sequence[sp.Expr | float]) -> sp.Matrix:
    """Skew-symmetric matrix of a 3-vector (sympy).

    Examples
    --------
    >>> hat([1, 2, 3]) * sp.Matrix([4, 5, 6])
    Matrix([
    [-3],
    [ 6],
    [-3]])
    """
    w1, w2, w3 = w
    return sp.Matrix([[0, -w3, w2], [w3, 0, -w1], [-w2, w1, 0]])


def transform(
    R: sp.MatrixBase | Sequence[Sequence[sp.Expr | float]], p: sp.MatrixBase | Sequence[sp.Expr | float]
) -> sp.Matrix:
    """Homogeneous 4x4 transform from a 3x3 rotation and a translation (sympy).

    Examples
    --------
    >>> transform(sp.eye(3), [1, 2, 3])[:3, 3].T
    Matrix([[1, 2, 3]])
    """
    T = sp.eye(4)
    T[:3, :3] = sp.Matrix(R)
    T[:3, 3] = sp.Matrix(p)
    return T


def lambdify(args: sp.Symbol | Sequence[sp.Symbol], expr: sp.Expr | sp.MatrixBase) -> Callable[..., Any]:
    """``sympy.lambdify`` with numpy and common-subexpression elimination (``cse=True``).

    Examples
    --------
    >>> t = sp.Symbol("t")
    >>> f = lambdify([t], sp.sin(t) ** 2 + sp.cos(t) ** 2)
    >>> float(f(0.3))
    1.0
    """
    return sp.lambdify(args, expr, modules="numpy", cse=True)
