/* Minimal Cortex-M4F start-up for QEMU's mps2-an386 board (hand-written harness, not generated).
 * QEMU loads the ELF's segments where they are linked (code at 0x0, data and stack in SRAM at 0x20000000),
 * so there is no .data copy: reset enables the FPU, zeroes .bss and runs main under semihosting. */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __bss_start__, __bss_end__, __stack_top;
extern int main(void);

void Reset_Handler(void);
void Fault_Handler(void);

/* Semihosting SYS_EXIT with a run-time-error reason: QEMU exits non-zero instead of hanging in a fault. */
void Fault_Handler(void)
{
    register uint32_t op __asm__("r0") = 0x18;      /* SYS_EXIT */
    register uint32_t why __asm__("r1") = 0x20023;  /* ADP_Stopped_RunTimeErrorUnknown */
    __asm__ volatile("bkpt 0xab" : : "r"(op), "r"(why) : "memory");
    for (;;) {
    }
}

__attribute__((section(".isr_vector"), used)) static const void *const vectors[16] = {
    &__stack_top,  Reset_Handler, Fault_Handler, Fault_Handler, Fault_Handler, Fault_Handler,
    Fault_Handler, 0,             0,             0,             0,             Fault_Handler,
    Fault_Handler, 0,             Fault_Handler, Fault_Handler,
};

void Reset_Handler(void)
{
    /* CPACR: full access to coprocessors 10 and 11 (the FPU) before the first float instruction */
    *(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
    __asm__ volatile("dsb\n\tisb" ::: "memory");
    for (uint32_t *p = &__bss_start__; p < &__bss_end__;) *p++ = 0;
    exit(main());
}
