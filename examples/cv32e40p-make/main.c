/* A user's application around an etmcu bundle: it fills the model's input from its own buffer,
 * runs the model twice and prints the class (the largest score) with the scores' bits. */
#include <stdint.h>
#include <string.h>

#include "etmcu_model.h"

/* The testbench console: a byte stored at 0x10000000 is printed. */
static void console_puts(const char* s) {
  while (*s) *(volatile uint32_t*)0x10000000u = (uint8_t)*s++;
}

#define NUM_IN (ETMCU_MODEL_INPUT0_BYTES / sizeof(float))
#define NUM_OUT (ETMCU_MODEL_OUTPUT0_BYTES / sizeof(float))

static float input[NUM_IN];
static float scores[NUM_OUT];

static void put_uint(uint32_t v) {
  char buf[11];
  int i = 10;
  buf[i] = 0;
  do {
    buf[--i] = (char)('0' + v % 10);
    v /= 10;
  } while (v != 0);
  console_puts(buf + i);
}

static void put_hex(uint32_t v) {
  char buf[10];
  buf[0] = ' ';
  for (int k = 0; k < 8; ++k) buf[1 + k] = "0123456789abcdef"[(v >> (28 - 4 * k)) & 15u];
  buf[9] = 0;
  console_puts(buf);
}

static int fail(const char* what, int error) {
  console_puts(what);
  console_puts(" failed: ");
  console_puts(etmcu_model_error_text(error));
  console_puts("\n");
  return 1;
}

int main(void) {
  /* The sensor data: a fixed pattern here (the test computes the expected class from it). */
  for (uint32_t i = 0; i < NUM_IN; ++i) input[i] = (float)((int)((i * 37u) % 101u) - 50) / 25.0f;
  int e = etmcu_model_init();
  if (e != 0) return fail("init", e);
  for (uint32_t run = 1; run <= 2; ++run) {
    if ((e = etmcu_model_set_input(0, input, sizeof input)) != 0) return fail("set input", e);
    if ((e = etmcu_model_run()) != 0) return fail("run", e);
    size_t n = 0;
    const void* out = etmcu_model_output(0, &n);
    if (out == NULL || n != sizeof scores) return fail("output", 0);
    memcpy(scores, out, sizeof scores);
    uint32_t best = 0;
    for (uint32_t k = 1; k < NUM_OUT; ++k)
      if (scores[k] > scores[best]) best = k;
    console_puts("run ");
    put_uint(run);
    console_puts(": class ");
    put_uint(best);
    console_puts(" scores");
    for (uint32_t k = 0; k < NUM_OUT; ++k) {
      uint32_t bits;
      memcpy(&bits, &scores[k], 4);
      put_hex(bits);
    }
    console_puts("\n");
  }
  console_puts("example: pass\n");
  return 0;
}
