// Weak default PAL for hosts: abort() from libc, a steady nanosecond clock, logs to stderr. Boards
// replace these with strong definitions; on targets this file is not linked.
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "runtime/platform/platform.h"

extern "C" {

__attribute__((weak)) void et_pal_init(void) {}

__attribute__((weak)) void et_pal_abort(void) { abort(); }

__attribute__((weak)) et_timestamp_t et_pal_current_ticks(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<et_timestamp_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

__attribute__((weak)) et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) { return {1, 1}; }

__attribute__((weak)) void et_pal_emit_log_message(et_timestamp_t timestamp,
                                                   et_pal_log_level_t level, const char* filename,
                                                   const char* function, size_t line,
                                                   const char* message, size_t length) {
  fprintf(stderr, "%c %llu %s:%zu %s] %.*s\n", static_cast<char>(level),
          static_cast<unsigned long long>(timestamp), filename, line, function,
          static_cast<int>(length), message);
}

__attribute__((weak)) void* et_pal_allocate(size_t) { return nullptr; }
__attribute__((weak)) void et_pal_free(void*) {}

}  // extern "C"
