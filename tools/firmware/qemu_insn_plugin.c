/* QEMU TCG plugin (API v1, QEMU 7.2): exact guest instruction counts for firmware runs.
   Counts every executed instruction (inline add per instruction) and, when given mark=<address>,
   records the running count each time the instruction at that address executes (the firmware's
   board_ticks(), called at every phase boundary). Writes "total N\nmarks a b c ...\n" to out=<file>
   at exit. Debian ships no qemu-plugin.h, so the few API declarations are repeated here. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb* tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void* userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void* userdata);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
struct qemu_plugin_insn* qemu_plugin_tb_get_insn(const struct qemu_plugin_tb* tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn* insn);
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn* insn,
                                                enum qemu_plugin_op op, void* ptr, uint64_t imm);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn* insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void* userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t g_count;
static uint64_t g_mark_addr = UINT64_MAX;
static uint64_t g_marks[64];
static unsigned g_nmarks;
static char g_out[4096];

static void on_mark(unsigned int vcpu, void* userdata) {
  (void)vcpu;
  (void)userdata;
  if (g_nmarks < sizeof(g_marks) / sizeof(g_marks[0])) g_marks[g_nmarks++] = g_count;
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t i = 0; i < n; ++i) {
    struct qemu_plugin_insn* insn = qemu_plugin_tb_get_insn(tb, i);
    if (qemu_plugin_insn_vaddr(insn) == g_mark_addr)
      qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, QEMU_PLUGIN_CB_NO_REGS, NULL);
    qemu_plugin_register_vcpu_insn_exec_inline(insn, QEMU_PLUGIN_INLINE_ADD_U64, &g_count, 1);
  }
}

static void on_exit_cb(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  FILE* f = g_out[0] ? fopen(g_out, "w") : stderr;
  if (!f) return;
  fprintf(f, "total %" PRIu64 "\nmarks", g_count);
  for (unsigned i = 0; i < g_nmarks; ++i) fprintf(f, " %" PRIu64, g_marks[i]);
  fprintf(f, "\n");
  if (f != stderr) fclose(f);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info;
  for (int i = 0; i < argc; ++i) {
    if (strncmp(argv[i], "mark=", 5) == 0) g_mark_addr = strtoull(argv[i] + 5, NULL, 0) & ~1ull;
    if (strncmp(argv[i], "out=", 4) == 0) snprintf(g_out, sizeof(g_out), "%s", argv[i] + 4);
  }
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
  qemu_plugin_register_atexit_cb(id, on_exit_cb, NULL);
  return 0;
}
