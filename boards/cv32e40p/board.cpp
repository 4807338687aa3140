// CV32E40P board: the et_pal_* platform layer (ticks from mcycle/mcycleh at 400 MHz), exit through
// the testbench exit device, fatal-trap reporting. No heap: et_pal_allocate returns NULL.
#include "boards/common/board.h"

#include <stdint.h>

#include "board_io.h"
#include "runtime/platform/platform.h"

namespace {
constexpr uintptr_t kExitAddr = 0x20000004u;
constexpr uint64_t kClockHz = 400000000u;  // CV32E40P reference clock
}  // namespace

extern "C" {

uint64_t board_ticks(void) {
  uint32_t hi, lo, hi2;
  do {
    __asm__ volatile("csrr %0, mcycleh" : "=r"(hi));
    __asm__ volatile("csrr %0, mcycle" : "=r"(lo));
    __asm__ volatile("csrr %0, mcycleh" : "=r"(hi2));
  } while (hi != hi2);
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

void board_exit(int code) {
  *reinterpret_cast<volatile uint32_t*>(kExitAddr) = static_cast<uint32_t>(code);
  for (;;) {
  }
}

static void put_hex32(uint32_t v) {
  for (int sh = 28; sh >= 0; sh -= 4) board_putc("0123456789abcdef"[(v >> sh) & 15u]);
}

void fw_fatal_trap(uint32_t cause, uint32_t epc) __attribute__((noreturn));
void fw_fatal_trap(uint32_t cause, uint32_t epc) {
  if (etmcu_stack_overflowed()) {
    board_putc('S');
    board_putc('\n');
  }
  board_putc('X');
  board_putc(' ');
  put_hex32(cause);
  board_putc(' ');
  put_hex32(epc);
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
  return et_tick_ratio_t{1000000000u, kClockHz};  // 2.5 ns per cycle
}
void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t level, const char*, const char*,
                             size_t, const char* message, size_t length) {
  board_putc('L');
  board_putc(static_cast<char>(level));
  board_putc(' ');
  for (size_t i = 0; i < length; ++i) board_putc(message[i]);
  board_putc('\n');
}
void* et_pal_allocate(size_t) { return nullptr; }
void et_pal_free(void*) {}

}  // extern "C"
