// The quantized add's long same-shape loop (util/add.h AddTableShift): the C form.
#pragma once
#include "kernels/cortex_m/util/add.h"

namespace etmcu {
namespace kernels {
namespace int8 {

inline void add_table_shift(const AddTableShift& a) { add_table_shift_c(a); }

}  // namespace int8
}  // namespace kernels
}  // namespace etmcu
