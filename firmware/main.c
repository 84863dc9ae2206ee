/* Self-test image: runs the generated rk_selftest() (fixed inputs of every float kernel, outputs printed as
 * IEEE bit patterns) and prints DONE. The same file builds on the host, so both sides print the same lines. */
#include <stdio.h>

int rk_selftest(void);

#if defined(__arm__) && !defined(__linux__)
extern void initialise_monitor_handles(void); /* newlib rdimon: stdio over semihosting */
#endif

int main(void)
{
#if defined(__arm__) && !defined(__linux__)
    initialise_monitor_handles();
#endif
    printf("robokin selftest\n");
    int n = rk_selftest();
    printf("DONE %d\n", n);
    return 0;
}
