/* QEMU TCG plugin (API v1, QEMU 7.2) for ./etmcu bench: exact executed-instruction counts per
   guest address, so that tools/bench/opprof.py can build a per-function (and so per-operator)
   instruction profile of a Cortex-M firmware run, as etmcu-sim --profile does for the CV32E40P.
   Every instruction in [base, base+size) gets an inline 64-bit add to its own counter (one per
   2-byte slot: Thumb instructions are 2 or 4 bytes); instructions outside count in "other".
   At exit writes "total N\nother M\n<address hex> <count>\n..." (non-zero slots) to out=<file>.
   Arguments: base=<address> size=<bytes> out=<file>. Debian ships no qemu-plugin.h, so the few
   API declarations are repeated here (as in tools/firmware/qemu_insn_plugin.c). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn* insn, enum qemu_plugin_op op,
                                                void* ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t g_base, g_size = 0x80000;
static uint64_t* g_counts;
static uint64_t g_other;
static char g_out[4096];

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    uint64_t a = qemu_plugin_insn_vaddr(insn);
    uint64_t* slot = (a >= g_base && a - g_base < g_size) ? &g_counts[(a - g_base) / 2] : &g_other;
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, slot, 1);
  }
}

static void on_exit_cb(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  FILE* f = g_out[0] ? fopen(g_out, "w") : stderr;
  if (!f) return;
  uint64_t total = g_other;
  for (uint64_t k = 0; k < g_size / 2; ++k) total += g_counts[k];
  fprintf(f, "total %" PRIu64 "\nother %" PRIu64 "\n", total, g_other);
  for (uint64_t k = 0; k < g_size / 2; ++k)
    if (g_counts[k]) fprintf(f, "%" PRIx64 " %" PRIu64 "\n", g_base + 2 * k, g_counts[k]);
  if (f != stderr) fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t* info,
                                                               int argc, char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "base=", 5) == 0) g_base = strtoull(argv[i] + 5, NULL, 0);
    if (strncmp(argv[i], "size=", 5) == 0) g_size = strtoull(argv[i] + 5, NULL, 0);
    if (strncmp(argv[i], "out=", 4) == 0) snprintf(g_out, sizeof(g_out), "%s", argv[i] + 4);
  }
  g_counts = calloc(g_size / 2 + 1, sizeof(uint64_t));
  if (!g_counts) return -1;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
  qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
  return 0;
}
