// Every int8 kernel survives malformed argument lists (wrong counts, tags, tensors, list lengths):
// each call returns an error whose message names the op, and touches no memory it does not own
// (also run under ASan/UBSan).
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "kernels/api/kernel.h"

namespace etmcu {
namespace {

std::vector<std::string> read_ops(const std::string& path) {
  std::vector<std::string> ops;
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  std::string line;
  while (std::getline(f, line))
    if (!line.empty() && line[0] != '#') ops.push_back(line);
  return ops;
}

std::vector<std::string> int8_ops() {
  std::vector<std::string> ops =
      read_ops(std::string(ETMCU_SOURCE_DIR) + "/kernels/cortex_m/ops.txt");
  for (const std::string& op :
       read_ops(std::string(ETMCU_SOURCE_DIR) + "/kernels/quantized/ops.txt"))
    ops.push_back(op);
  return ops;
}

// A pool of EValues of every kind the fuzzing picks from.
struct Pool {
  int32_t sizes4[4] = {1, 2, 3, 4};
  int32_t sizes1[1] = {5};
  uint8_t order4[4] = {0, 1, 2, 3};
  uint8_t order_cl[4] = {0, 2, 3, 1};
  uint8_t order1[1] = {0};
  alignas(16) uint8_t bytes[4096] = {};
  int64_t list2[2] = {1, 1};
  int64_t list4[4] = {0, 0, 0, 0};
  Tensor t_i8, t_i8_cl, t_f32, t_i32, t_u8_empty, t_bad;
  std::vector<EValue> values;

  Pool() {
    auto make = [&](Tensor& t, ScalarType st, int32_t* s, uint8_t* o, uint8_t dim) {
      t.dtype = st;
      t.sizes = s;
      t.dim_order = o;
      t.dim = dim;
      size_t n = 1;
      for (int i = 0; i < dim; ++i) n *= static_cast<size_t>(s[i]);
      t.nbytes = n * element_size(st);
      t.data = bytes;
    };
    make(t_i8, ScalarType::Char, sizes4, order4, 4);
    make(t_i8_cl, ScalarType::Char, sizes4, order_cl, 4);
    make(t_f32, ScalarType::Float, sizes4, order4, 4);
    make(t_i32, ScalarType::Int, sizes1, order1, 1);
    make(t_u8_empty, ScalarType::Byte, sizes1, order1, 1);
    t_u8_empty.sizes = nullptr;  // malformed: sizes missing
    make(t_bad, ScalarType::Char, sizes4, order4, 4);
    t_bad.nbytes = 3;  // too small for its elements
    values.push_back(EValue());
    values.push_back(EValue::from_int(0));
    values.push_back(EValue::from_int(-200));
    values.push_back(EValue::from_int(1));
    values.push_back(EValue::from_double(0.5));
    values.push_back(EValue::from_bool(true));
    values.push_back(EValue::from_span(Tag::ListInt, list2, 2));
    values.push_back(EValue::from_span(Tag::ListInt, list4, 4));
    values.push_back(EValue::from_span(Tag::ListInt, nullptr, 3));  // malformed list
    values.push_back(EValue::from_tensor(&t_i8));
    values.push_back(EValue::from_tensor(&t_i8_cl));
    values.push_back(EValue::from_tensor(&t_f32));
    values.push_back(EValue::from_tensor(&t_i32));
    values.push_back(EValue::from_tensor(&t_u8_empty));
    values.push_back(EValue::from_tensor(&t_bad));
  }
};

TEST(Int8Kernels, MalformedArgumentsFailCleanly) {
  Pool pool;
  uint32_t seed = 12345;
  auto next = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  for (const std::string& op : int8_ops()) {
    OpFunction fn = find_kernel(op.c_str(), op.size());
    ASSERT_NE(fn, nullptr) << op;
    const std::string short_name = op.substr(op.find("::") + 2, op.find('.') - op.find("::") - 2);
    for (size_t count = 0; count <= 18; ++count) {
      for (int trial = 0; trial < 200; ++trial) {
        std::vector<EValue*> args(count);
        for (size_t i = 0; i < count; ++i) args[i] = &pool.values[next() % pool.values.size()];
        KernelContext ctx;
        const Error e = fn(ctx, Span<EValue*>(args.data(), args.size()));
        if (e == Error::Ok) continue;  // a random list can be valid; it must then stay in bounds
        ASSERT_NE(ctx.failure, nullptr) << op;
        EXPECT_NE(std::strstr(ctx.failure, short_name.c_str()), nullptr)
            << op << ": " << ctx.failure;
      }
    }
  }
}

TEST(Int8Kernels, EveryOpIsInTheHostTable) {
  for (const std::string& op : int8_ops())
    EXPECT_NE(find_kernel(op.c_str(), op.size()), nullptr) << op;
  EXPECT_EQ(int8_ops().size(), 25u);  // 18 cortex_m, 6 quantized_decomposed, 1 etmcu
}

}  // namespace
}  // namespace etmcu
