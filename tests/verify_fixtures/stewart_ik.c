/* A reader's Stewart leg-length IK in C for examples/robots/stewart_ch09.toml, with the signature
 *     int robokin_ik(const double pose[6], double L[6]);   pose = x, y, z, roll, pitch, yaw (m, rad)
 * The anchors are passed in at build time (-DANCHORS="..."): 36 numbers, base rows then top rows, one row per leg.
 * Compile with -DWRONG_EUL_ORDER for the classic slip: eul2rotm's [yaw pitch roll] filled as [roll pitch yaw]. */
#include <math.h>

static const double A[2][6][3] = {ANCHORS};

static void rotm_zyx(double yaw, double pitch, double roll, double R[3][3]) {
    double cz = cos(yaw), sz = sin(yaw), cy = cos(pitch), sy = sin(pitch), cx = cos(roll), sx = sin(roll);
    R[0][0] = cz * cy; R[0][1] = cz * sy * sx - sz * cx; R[0][2] = cz * sy * cx + sz * sx;
    R[1][0] = sz * cy; R[1][1] = sz * sy * sx + cz * cx; R[1][2] = sz * sy * cx - cz * sx;
    R[2][0] = -sy;     R[2][1] = cy * sx;                R[2][2] = cy * cx;
}

int robokin_ik(const double pose[6], double L[6]) {
    double R[3][3];
#ifdef WRONG_EUL_ORDER
    rotm_zyx(pose[3], pose[4], pose[5], R);
#else
    rotm_zyx(pose[5], pose[4], pose[3], R);
#endif
    for (int i = 0; i < 6; i++) {
        double s2 = 0.0;
        for (int r = 0; r < 3; r++) {
            double s = pose[r] - A[0][i][r];
            for (int c = 0; c < 3; c++) s += R[r][c] * A[1][i][c];
            s2 += s * s;
        }
        if (!(s2 > 0.0)) return 1;
        L[i] = sqrt(s2);
    }
    return 0;
}
