/* etmcu host C API: one program loaded in-process on the host runtime, run many times. A shared
 * library (build/host/tools/libetmcu_host_c.so) that Python loads with ctypes (etmcu.Program),
 * also usable from C. Not for firmware: it uses the host's heap and files (firmware has the
 * bundle's etmcu_model.h). Every call that can fail returns 0 or an etmcu::Error code and keeps a
 * message for etmcu_host_error(); a NULL handle fails with InvalidArgument. */
#ifndef ETMCU_HOST_C_H
#define ETMCU_HOST_C_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ETMCU_HOST_MAX_DIM 16

typedef struct etmcu_host_program etmcu_host_program;

/* Value kinds of etmcu_host_value.kind (EValue tags as the .pte numbers them). */
enum {
  ETMCU_HOST_NONE = 0,
  ETMCU_HOST_INT = 2,
  ETMCU_HOST_BOOL = 3,
  ETMCU_HOST_DOUBLE = 4,
  ETMCU_HOST_TENSOR = 5,
  ETMCU_HOST_OTHER = 99
};

/* One method input or output. Tensors: dtype is the ScalarType number (6 float32, 1 int8, ...),
 * sizes in logical order; has_quant with scale/zero_point for int8 I/O (real = (q - zp) * scale).
 * Scalars: int_value / double_value (bools in int_value). */
typedef struct {
  int32_t kind;
  int32_t dtype;
  int32_t dim;
  int64_t sizes[ETMCU_HOST_MAX_DIM];
  uint64_t nbytes;
  int32_t has_quant;
  int32_t zero_point;
  double scale;
  int64_t int_value;
  double double_value;
} etmcu_host_value;

/* Loads pte_path (and ptd_path unless NULL or "") and method (NULL: "forward") with pools sized
 * from the program. NULL on failure, with the reason in err (err_size bytes, NUL-terminated). */
etmcu_host_program* etmcu_host_open(const char* pte_path, const char* ptd_path, const char* method,
                                    char* err, size_t err_size);
void etmcu_host_close(etmcu_host_program* p);

/* The message of the handle's last failed call ("" if none). Valid until the next call. */
const char* etmcu_host_error(const etmcu_host_program* p);

size_t etmcu_host_num_inputs(const etmcu_host_program* p);
size_t etmcu_host_num_outputs(const etmcu_host_program* p);
int etmcu_host_input_info(etmcu_host_program* p, size_t index, etmcu_host_value* info);

/* Sets tensor input `index` from an array in logical (C) order of ScalarType dtype and the given
 * shape. Checked like `./etmcu run --input x.npy`: the dtype must be the input's (or float32 for
 * an int8 input with int8 I/O: quantized with its scale and zero point), the shape equal up to
 * dims of size 1. The bytes are copied. */
int etmcu_host_set_input(etmcu_host_program* p, size_t index, int32_t dtype, const int64_t* shape,
                         size_t dim, const void* data, size_t nbytes);

/* Runs the method once (inputs not set since loading are ones, as `./etmcu run` without
 * --input). */
int etmcu_host_run(etmcu_host_program* p);

/* Output `index` of the last run: its description, then (tensors) its elements in logical order
 * into dst (nbytes bytes exactly). */
int etmcu_host_output_info(etmcu_host_program* p, size_t index, etmcu_host_value* info);
int etmcu_host_output_copy(etmcu_host_program* p, size_t index, void* dst, size_t nbytes);

#ifdef __cplusplus
}
#endif
#endif
