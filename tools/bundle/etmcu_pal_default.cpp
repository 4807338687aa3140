// Weak defaults of the platform functions for a bundle (runtime/platform/platform.h): no clock
// (ticks stay 0), no log output, abort stops in a loop. An application overrides any of them by
// defining it.
#include "runtime/platform/platform.h"

extern "C" {

__attribute__((weak)) void et_pal_init(void) {}

__attribute__((weak)) void et_pal_abort(void) {
  for (;;) {
  }
}

__attribute__((weak)) et_timestamp_t et_pal_current_ticks(void) { return 0; }

__attribute__((weak)) et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void) { return {1, 1}; }

__attribute__((weak)) void et_pal_emit_log_message(et_timestamp_t, et_pal_log_level_t, const char*,
                                                   const char*, size_t, const char*, size_t) {}

__attribute__((weak)) void* et_pal_allocate(size_t) { return nullptr; }

__attribute__((weak)) void et_pal_free(void*) {}

}  // extern "C"
