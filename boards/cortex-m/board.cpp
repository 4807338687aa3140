// Cortex-M boards (QEMU mps3-an547, mps2-an386, mps2-an385, microbit): the et_pal_* platform layer
// with ticks from SysTick (24-bit down-counter + wrap count; deterministic under QEMU -icount
// shift=0), console output and exit through semihosting (SYS_WRITE0, SYS_EXIT_EXTENDED: the exit
// code becomes QEMU's exit status). No heap: et_pal_allocate returns NULL.
#include "boards/common/board.h"

#include <stdint.h>

#include "board_io.h"
#include "runtime/platform/platform.h"

#ifndef ETMCU_BOARD_TICK_HZ
#error "ETMCU_BOARD_TICK_HZ must be defined by the build (boards/<board>/board.cmake)"
#endif

namespace {

constexpr int kSysWrite0 = 0x04;
constexpr int kSysExitExtended = 0x20;
constexpr uint32_t kAdpStoppedApplicationExit = 0x20026;

struct SysTickRegs {
  volatile uint32_t ctrl, load, val, calib;
};
SysTickRegs* const kSysTick = reinterpret_cast<SysTickRegs*>(0xE000E010u);

inline int semihost(int op, const void* arg) {
  register int r0 __asm__("r0") = op;
  register const void* r1 __asm__("r1") = arg;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

volatile uint32_t g_systick_wraps;

}  // namespace

extern "C" {

char fw_line_buf[kFwLineCapacity + 1];
uint32_t fw_line_len;

void SysTick_Handler(void) { g_systick_wraps = g_systick_wraps + 1; }

void board_flush(void) {
  if (fw_line_len == 0) return;
  fw_line_buf[fw_line_len] = '\0';
  semihost(kSysWrite0, fw_line_buf);
  fw_line_len = 0;
}

uint64_t board_ticks(void) {
  volatile const uint32_t* const icsr = reinterpret_cast<volatile uint32_t*>(0xE000ED04u);
  uint32_t wraps, val, pending;
  do {
    wraps = g_systick_wraps;
    val = kSysTick->val;
    pending = *icsr & (1u << 26);  // PENDSTSET: a wrap whose handler has not run yet
  } while (wraps != g_systick_wraps);
  if (pending && val > 0x00800000u) ++wraps;  // the counter wrapped before `val` was read
  return (static_cast<uint64_t>(wraps) << 24) + (0x00FFFFFFu - val);
}

void board_exit(int code) {
  board_flush();
  const uint32_t block[2] = {kAdpStoppedApplicationExit, static_cast<uint32_t>(code)};
  semihost(kSysExitExtended, block);
  for (;;) {
  }
}

static void put_hex32(uint32_t v) {
  for (int sh = 28; sh >= 0; sh -= 4) board_putc("0123456789abcdef"[(v >> sh) & 15u]);
}

void fw_fatal_trap(uint32_t ipsr, uint32_t pc) __attribute__((noreturn));
void fw_fatal_trap(uint32_t ipsr, uint32_t pc) {
  fw_line_len = 0;
  if (etmcu_stack_overflowed()) {
    board_putc('S');
    board_putc('\n');
  }
  board_putc('X');
  board_putc(' ');
  put_hex32(ipsr);
  board_putc(' ');
  put_hex32(pc);
  board_putc('\n');
  board_exit(3);
}

void et_pal_init(void) {}
void et_pal_abort(void) {
  board_putc('A');
  board_putc('\n');
  board_exit(4);
}
et_timestamp_t et_pal_current_ticks(void) { return board_ticks(); }
et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) {
  return et_tick_ratio_t{1000000000u, ETMCU_BOARD_TICK_HZ};
}
void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t level, const char*, const char*,
                             size_t, const char* message, size_t length) {
  board_putc('L');
  board_putc(static_cast<char>(level));
  board_putc(' ');
  for (size_t i = 0; i < length; ++i) board_putc(message[i]);
  board_putc('\n');
  board_flush();
}
void* et_pal_allocate(size_t) { return nullptr; }
void et_pal_free(void*) {}

}  // extern "C"
