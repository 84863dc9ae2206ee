/* A reader's five-bar IK in C, with the signature `python -m robokin verify --impl lib.so` loads:
 *     int robokin_ik(const double p[2], double q[2]);   returns 0, or 1 when the target is out of reach.
 * Compile with -DWRONG_DEGREES for the classic mistake: the angles returned in degrees. */
#include <math.h>

static const double L1 = 0.06, L2 = 0.06, L3 = 0.10, L4 = 0.10, D = 0.07;

static int knee(double cx, double cy, double px, double py, double rl, double rd, double side, double *k) {
    double dx = px - cx, dy = py - cy, dist = hypot(dx, dy);
    if (dist > rl + rd || dist < fabs(rl - rd) || dist == 0.0) return 1;
    double a = (rl * rl - rd * rd + dist * dist) / (2.0 * dist);
    double h = sqrt(fmax(rl * rl - a * a, 0.0));
    double ux = dx / dist, uy = dy / dist;
    k[0] = cx + a * ux - side * h * uy;
    k[1] = cy + a * uy + side * h * ux;
    return 0;
}

int robokin_ik(const double p[2], double q[2]) {
    double c[2], d[2];
    if (knee(0.0, 0.0, p[0], p[1], L1, L3, -1.0, c) || knee(D, 0.0, p[0], p[1], L2, L4, 1.0, d)) return 1;
    q[0] = atan2(c[1], c[0]);
    q[1] = atan2(d[1], d[0] - D);
#ifdef WRONG_DEGREES
    q[0] *= 180.0 / M_PI;
    q[1] *= 180.0 / M_PI;
#endif
    return 0;
}
