// Cortex-M console: bytes are collected in a line buffer and written with one semihosting
// SYS_WRITE0 call per line (board_flush), which keeps QEMU's per-call cost off the hot path.
#pragma once
#include <stdint.h>

extern "C" {
extern char fw_line_buf[];
extern uint32_t fw_line_len;
void board_flush(void);
}
constexpr uint32_t kFwLineCapacity = 127;  // plus the terminating NUL

static inline void board_putc(char c) {
  if (fw_line_len == kFwLineCapacity) board_flush();
  fw_line_buf[fw_line_len++] = c;
}
