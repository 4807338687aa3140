// The platform abstraction layer: the et_pal_* C functions upstream ExecuTorch runners and backends
// call. Weak host defaults live in default_pal.cpp; a board overrides any of them with strong
// definitions (boards/<board>/pal.cpp).
#pragma once
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t et_timestamp_t;

typedef enum {
  kDebug = 'D',
  kInfo = 'I',
  kError = 'E',
  kFatal = 'F',
} et_pal_log_level_t;

typedef struct {
  uint64_t numerator;
  uint64_t denominator;
} et_tick_ratio_t;

// Called once before anything else (Program::load calls it if the runner did not).
void et_pal_init(void);
// Stops the program after a broken invariant. Never returns.
void et_pal_abort(void) __attribute__((noreturn));
// A free-running tick counter (cycles on the CV32E40P, SysTick-derived on Cortex-M).
et_timestamp_t et_pal_current_ticks(void);
// ns = ticks * numerator / denominator.
et_tick_ratio_t et_pal_ticks_to_ns_multiplier(void);
// One log line; only called when logging is compiled in (ETMCU_LOG_ENABLED).
void et_pal_emit_log_message(et_timestamp_t timestamp, et_pal_log_level_t level,
                             const char* filename, const char* function, size_t line,
                             const char* message, size_t length);
// Heap hooks exist for API compatibility; the etmcu runtime never calls them, and the default
// implementations return NULL (targets link no malloc).
void* et_pal_allocate(size_t size);
void et_pal_free(void* ptr);

#ifdef __cplusplus
}
#endif

// Logging compiles out unless ETMCU_LOG_ENABLED is defined to 1.
#if defined(ETMCU_LOG_ENABLED) && ETMCU_LOG_ENABLED
#include <string.h>
#define ET_LOG(level, msg)                                                                  \
  et_pal_emit_log_message(et_pal_current_ticks(), level, __FILE__, __func__, __LINE__, msg, \
                          strlen(msg))
#else
#define ET_LOG(level, msg) \
  do {                     \
  } while (0)
#endif
