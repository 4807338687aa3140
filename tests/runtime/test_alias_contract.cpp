// Method load against hand-broken memory plans: an op's out may share bytes with an input only as
// its kernel's alias contract declares (kernels/api/alias_contract.h): exactly, with the same
// shape, dtype and dim order, for the arguments listed. Anything else is refused at load.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/executor/program.h"
#include "tests/runtime/mini_program.h"

namespace etmcu {
namespace {

using test::build_program;
using test::CallSpec;
using test::TestPools;
using test::ValueSpec;

struct Outcome {
  Error load = Error::Ok;
  std::string message;
  std::vector<float> out;  // the method output after execute(), when it loaded
};

// Loads "forward" over a 64-byte arena; when it loads, runs it on input 1, 2, 3, ... .
Outcome run(const host::AlignedBytes& bytes) {
  Outcome r;
  char text[256];
  Diagnostic diag;
  auto program = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &diag);
  EXPECT_TRUE(program.ok()) << format_diagnostic(diag, text, sizeof(text));
  if (!program.ok()) return r;
  TestPools pools(64 << 10, 64);
  auto method = program->load_method("forward", &pools.mm, &diag);
  if (!method.ok()) {
    r.load = method.error();
    r.message = format_diagnostic(diag, text, sizeof(text));
    return r;
  }
  const Tensor& in = method->get_input(0).to_tensor();
  std::vector<float> x(in.nbytes / 4);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i + 1);
  EXPECT_EQ(method->set_input_data(0, x.data(), in.nbytes), Error::Ok);
  EXPECT_EQ(method->execute(), Error::Ok)
      << format_diagnostic(method->diagnostic(), text, sizeof(text));
  const Tensor& out = method->get_output(0).to_tensor();
  r.out.resize(out.nbytes / 4);
  std::memcpy(r.out.data(), out.data, out.nbytes);
  return r;
}

// `op`(x [, x, alpha]) -> out with x at byte 0 and out at `out_offset` of one arena.
host::AlignedBytes unary(const char* op, uint32_t out_offset,
                         std::vector<uint64_t> out_order = {}) {
  ValueSpec x = ValueSpec::tensor({1, 2, 2, 2}, 0);
  ValueSpec out = ValueSpec::tensor({1, 2, 2, 2}, out_offset);
  out.dim_order = out_order;
  return build_program({x, out}, {0}, {1}, {CallSpec{op, "out", {0, 1, 1}}}, {0, 64});
}
host::AlignedBytes add(uint32_t out_offset) {
  return build_program(
      {ValueSpec::tensor({4}, 0), ValueSpec::tensor({4}, out_offset), ValueSpec::integer(1)}, {0},
      {1}, {CallSpec{"aten::add", "out", {0, 0, 2, 1, 1}}}, {0, 64});
}

TEST(AliasContract, DeclaredInPlaceOpRunsOverItsInput) {
  Outcome r = run(add(0));  // out == self == other: aten::add.out declares both
  ASSERT_EQ(r.load, Error::Ok) << r.message;
  EXPECT_EQ(r.out, (std::vector<float>{2, 4, 6, 8}));
  Outcome relu = run(unary("aten::relu", 0));
  ASSERT_EQ(relu.load, Error::Ok) << relu.message;
  EXPECT_EQ(relu.out, (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(AliasContract, PartialOverlapIsRefused) {
  for (uint32_t off : {4u, 8u, 12u}) {
    Outcome r = run(add(off));
    std::printf("  -> %s\n", r.message.c_str());  // docs/runtime.md quotes this line
    EXPECT_EQ(r.load, Error::InvalidProgram) << off;
    EXPECT_NE(r.message.find("memory plan overlaps an op's out with an input"), std::string::npos)
        << r.message;
    EXPECT_NE(r.message.find("aten::add.out"), std::string::npos) << r.message;
  }
  EXPECT_EQ(run(add(16)).load, Error::Ok);  // adjacent, no overlap
}

TEST(AliasContract, ExactOverlapOfAnUndeclaredOpIsRefused) {
  Outcome r = run(unary("aten::neg", 0));  // neg declares no in-place argument
  EXPECT_EQ(r.load, Error::InvalidProgram);
  EXPECT_NE(r.message.find("does not declare in-place"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("aten::neg.out"), std::string::npos) << r.message;
  Outcome ok = run(unary("aten::neg", 32));
  ASSERT_EQ(ok.load, Error::Ok) << ok.message;
  EXPECT_EQ(ok.out[7], -8.0f);
}

TEST(AliasContract, SameBytesInAnotherDimOrderIsRefused) {
  // The strided loop walks out in memory order and reads x through its strides: x in NCHW under
  // an NHWC out would be overwritten before it is read.
  Outcome r = run(unary("aten::relu", 0, {0, 2, 3, 1}));
  EXPECT_EQ(r.load, Error::InvalidProgram);
  EXPECT_NE(r.message.find("memory plan overlaps an op's out"), std::string::npos) << r.message;
  Outcome ok = run(unary("aten::relu", 32, {0, 2, 3, 1}));
  ASSERT_EQ(ok.load, Error::Ok) << ok.message;
}

}  // namespace
}  // namespace etmcu
