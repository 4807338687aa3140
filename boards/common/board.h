// Board hooks the shared firmware runner (boards/common/runner.cpp) calls. Each board
// (boards/<board>/board.cpp) implements them next to its startup code, linker script and PAL.
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Output: board_putc(c) / board_flush() come from the board's board_io.h (inline where the console
// is a store: the CV32E40P testbench putchar device; buffered lines over semihosting on Cortex-M).
// Free-running tick counter (mcycle on the CV32E40P, SysTick-derived on Cortex-M).
uint64_t board_ticks(void);
// Stops the simulator/QEMU with `code` as its exit status.
void board_exit(int code) __attribute__((noreturn));

// Linker-script symbols: the stack region [__stack_limit, __stack_top) that the start-up code
// paints (one word per ETMCU_STACK_PAINT_STRIDE bytes) before main, so the runner can measure the
// peak stack.
extern uint32_t __stack_limit[];
extern uint32_t __stack_top[];

#ifdef __cplusplus
}
#endif

#define ETMCU_STACK_PAINT 0xa5a5a5a5u
// One painted word per 16 bytes (start-up cost: the stack size / 64 loop iterations).
#define ETMCU_STACK_PAINT_STRIDE 16

#ifdef __cplusplus
// True when any painted word in the lowest 256 bytes is overwritten: the stack reached (or, frames
// having unwritten holes, probably ran past) its bottom. Boards and the runner then print a line
// "S" before their error or results.
static inline bool etmcu_stack_overflowed(void) {
  for (int k = 0; k < 256 / ETMCU_STACK_PAINT_STRIDE; ++k)
    if (__stack_limit[k * (ETMCU_STACK_PAINT_STRIDE / 4)] != ETMCU_STACK_PAINT) return true;
  return false;
}
#endif
