// Alias contracts of the kernels: which arguments an op's out may occupy exactly (same bytes,
// shape, dtype and dim order). Method load refuses a memory plan in which an op's out overlaps an
// input in any other way. Mirrors python/etmcu/lowering/schemas.py (INPLACE_ARGS), the one
// description the exporter plans with; tests/python/test_alias_contract.py keeps them equal.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <string.h>

namespace etmcu {

struct AliasContract {
  const char* op;         // "ns::name.overload"
  uint32_t inplace_args;  // bit j: the out may be args[j] exactly
};

// Every kernel here computes out[i] from in[i] only and reads element i before writing it.
inline const AliasContract* alias_contracts(size_t* count) {
  static constexpr AliasContract kContracts[] = {
      // alias-contract-table-begin (parsed by tests/python/test_alias_contract.py)
      {"aten::add.out", 0x3},
      {"aten::add.Scalar_out", 0x1},
      {"aten::sub.out", 0x3},
      {"aten::sub.Scalar_out", 0x1},
      {"aten::mul.out", 0x3},
      {"aten::mul.Scalar_out", 0x1},
      {"aten::div.out", 0x3},
      {"aten::div.Scalar_out", 0x1},
      {"aten::relu.out", 0x1},
      {"aten::hardtanh.out", 0x1},
      {"aten::clamp.out", 0x1},
      {"aten::sigmoid.out", 0x1},
      {"aten::tanh.out", 0x1},
      {"cortex_m::quantized_add.out", 0x11},
      {"cortex_m::quantized_mul.out", 0x5},
      {"cortex_m::quantized_activation.out", 0x1},
      // alias-contract-table-end
  };
  *count = sizeof(kContracts) / sizeof(kContracts[0]);
  return kContracts;
}

// Bit mask of the arguments op `name` (`len` bytes) may write its out over; 0 when none.
inline uint32_t inplace_args_of(const char* name, size_t len) {
  size_t n = 0;
  const AliasContract* c = alias_contracts(&n);
  for (size_t i = 0; i < n; ++i)
    if (strlen(c[i].op) == len && memcmp(c[i].op, name, len) == 0) return c[i].inplace_args;
  return 0;
}

}  // namespace etmcu
