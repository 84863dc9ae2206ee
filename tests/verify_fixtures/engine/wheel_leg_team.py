"""A team's own wheel-legged MJCF of wheel_leg_ch04.toml's numbers, with other names and frames than the generated
one (body ``chassis`` 0.4 m up, track 0.36 m, links along the body's -z, joints ``Lf_hipA`` ...), and planted
mistakes by name: ``build(["swap_LR"])`` (test_params_engine.py's wheel_leg tests; from review R9)."""

import sys

import numpy as np

mb, Ib, lc = 12.0, 0.25, 0.03
ml, mw_tot, Iw_tot, R = 1.2, 1.6, 0.00288, 0.06
l1, l2, l3, l4, d = 0.15, 0.15, 0.25, 0.25, 0.108


def f(x):
    return repr(float(x))


def rod(m, L, r=0.01):  # along body -z: com at (0,0,-L/2), inertia about com
    big = m * L * L / 12
    small = min(0.5 * m * r * r, big)
    return big, big, small


def build(mut=()):
    mut = set(mut)
    L = np.array([l1, l3, l2, l4])
    share = 0.5 * ml * L / L.sum()
    mA, mC, mB, mD = share
    track = 0.36
    mw, iw = 0.5 * mw_tot, 0.5 * Iw_tot
    unit = 1000.0 if "mm" in mut else 1.0
    dd = d * 1.03 if "d_wrong" in mut else d
    Rw = R * 1.5 if "radius" in mut else R
    legs = ""
    for side, y in (("Lf", track / 2), ("Rt", -track / 2)):
        if "swap_LR" in mut:
            y = -y
        ax = "0 -1 0"
        axA = "0 1 0" if ("flipA" in mut and side == "Lf") else ax
        la3 = l3 * 1.02 if ("shank_long" in mut and side == "Rt") else l3
        lab = l1 * 0.98 if ("thigh_short" in mut and side == "Lf") else l1
        xoffA = 0.01 if ("offaxis" in mut and side == "Lf") else 0.0
        mCC = mC * 1.5 if ("mass_shank" in mut and side == "Lf") else mC
        mww = mw * 1.2 if "mass_wheel" in mut else mw
        bigA, _, smA = rod(mA, l1)
        bigC, _, smC = rod(mC, l3)

        def inert(m, L, about_joint=False):
            big, _, sm = rod(m, L)
            if about_joint:
                big += m * (L / 2) ** 2
            return f'<inertial pos="0 0 {f(-L / 2 * unit)}" mass="{f(m)}" diaginertia="{f(big * unit**2)} {f(big * unit**2)} {f(sm * unit**2)}"/>'

        aj = "about_joint" in mut and side == "Lf"
        rng = ' range="-3.14 3.14" limited="true"' if "limits" not in mut else ' range="-180 180" limited="true"'
        # body euler="0 -pi/2 0": body -z -> world +x, body y = world y
        e = f'euler="0 {f(-np.pi / 2)} 0"'
        motorA, motorB = ("hipB", "hipA") if ("swapAB" in mut and side == "Lf") else ("hipA", "hipB")
        wheel_body = (
            f'<body name="{side}_whl" pos="0 0 {f(-la3 * unit)}"><joint name="{side}_spin" axis="0 1 0"/>'
            f'<inertial pos="0 0 0" mass="{f(mww)}" diaginertia="{f(0.6 * iw * unit**2)} {f(iw * unit**2)} {f(0.6 * iw * unit**2)}"/>'
            f'<geom type="cylinder" fromto="0 -0.012 0 0 0.012 0" size="{f(Rw * unit)}" contype="1" conaffinity="1"/></body>'
        )
        legs += (
            f'<body name="{side}_thA" pos="{f((-dd / 2 + xoffA) * unit)} {f(y * unit)} 0" {e}><joint name="{side}_{motorA}" axis="{axA}"{rng}/>'
            + inert(mA, lab, aj)
            + f'<geom type="capsule" fromto="0 0 0 0 0 {f(-lab * unit)}" size="{f(0.008 * unit)}"/>'
            + f'<body name="{side}_shC" pos="0 0 {f(-lab * unit)}"><joint name="{side}_kC" axis="{ax}"/>'
            + inert(mCC, la3)
            + f'<geom type="capsule" fromto="0 0 0 0 0 {f(-la3 * unit)}" size="{f(0.008 * unit)}"/>'
            + f'<site name="{side}_toeC" pos="0 0 {f(-la3 * unit)}"/>'
            + wheel_body
            + "</body></body>"
            + f'<body name="{side}_thB" pos="{f(dd / 2 * unit)} {f(y * unit)} 0" {e}><joint name="{side}_{motorB}" axis="{ax}"{rng}/>'
            + inert(mB, l2)
            + f'<geom type="capsule" fromto="0 0 0 0 0 {f(-l2 * unit)}" size="{f(0.008 * unit)}"/>'
            + f'<body name="{side}_shD" pos="0 0 {f(-l2 * unit)}"><joint name="{side}_kD" axis="{ax}"/>'
            + inert(mD, l4)
            + f'<geom type="capsule" fromto="0 0 0 0 0 {f(-l4 * unit)}" size="{f(0.008 * unit)}"/>'
            + f'<site name="{side}_toeD" pos="0 0 {f(-l4 * unit)}"/></body></body>'
        )
    tz = 0.05 if "torso_origin" in mut else 0.0
    # torso origin on the hip axis; its own com above
    free = '<freejoint name="base"/>'
    extra = ""
    if "two_free" in mut:
        extra = '<body name="battery" pos="0 0 0.3"><freejoint name="bat"/><inertial pos="0 0 0" mass="0.5" diaginertia="1e-3 1e-3 1e-3"/></body>'
    eq = "" if "noloop" in mut else "".join(f'<connect site1="{s}_toeC" site2="{s}_toeD"/>' for s in ("Lf", "Rt"))
    mbb = mb * 2 if "body_mass" in mut else mb
    lcc = 0.2 if "body_com" in mut else lc
    # legs must be positioned relative to torso origin: if torso origin is elsewhere, legs at -tz
    legs_wrapped = legs
    if tz:
        legs_wrapped = f'<body name="hipframe" pos="0 0 {f(-tz * unit)}">' + legs + "</body>"
    xml = (
        f'<mujoco model="team"><compiler angle="radian"/>'
        '<option gravity="0 0 -9.81"/><worldbody><geom type="plane" size="5 5 .1"/>'
        f'<body name="chassis" pos="0 0 0.4">{free}'
        f'<inertial pos="0 0 {f((lcc - 0) * unit)}" mass="{f(mbb)}" diaginertia="0.15 {f(Ib)} 0.2"/>'
        f'<geom type="box" size="0.15 0.15 0.04" pos="0 0 0.06" contype="0" conaffinity="0"/>'
        + legs_wrapped
        + f"</body>{extra}</worldbody><equality>{eq}</equality></mujoco>"
    )
    if tz:  # torso origin 5 cm above the hips: hipframe has no mass, fine; the torso com moves too
        pass
    return xml


if __name__ == "__main__":
    mut = sys.argv[1:]
    print(build(mut))
