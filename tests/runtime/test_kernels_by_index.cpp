// The runtime built with ETMCU_FEATURE_KERNEL_NAMES=0 (runtime/core/features.h): the kernel table
// is the method's operator list in plan order, and an operator's kernel is the row of its index,
// whatever its name. A row past the table or without a kernel is OperatorMissing, reported after
// every instruction was checked, with the first such instruction.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/api/kernel.h"
#include "runtime/core/features.h"
#include "tests/runtime/mini_program.h"

static_assert(!etmcu::kFeatureKernelNames, "this test is compiled with kernels by operator index");

namespace etmcu {
namespace {

std::vector<int> g_calls;  // which kernel ran, in order

Error fill_ones(KernelContext&, Span<EValue*> args) {  // out (the last argument) = 1
  g_calls.push_back(0);
  Tensor& out = args[args.size() - 1]->to_tensor();
  for (uint32_t i = 0; i < out.nbytes / 4; ++i) static_cast<float*>(out.data)[i] = 1.0f;
  return Error::Ok;
}
Error add_ten(KernelContext&, Span<EValue*> args) {  // out (the last argument) = first + 10
  g_calls.push_back(1);
  const Tensor& in = args[0]->to_tensor();
  Tensor& out = args[args.size() - 1]->to_tensor();
  for (uint32_t i = 0; i < out.nbytes / 4; ++i)
    static_cast<float*>(out.data)[i] = static_cast<const float*>(in.data)[i] + 10.0f;
  return Error::Ok;
}

Span<const KernelEntry> g_table;

}  // namespace

Span<const KernelEntry> kernel_table() { return g_table; }

namespace {

using test::build_program;
using test::CallSpec;
using test::TestPools;
using test::ValueSpec;

// x (value 0) and y (value 1), f32[4]; call k is operator k. Names the table does not know: only
// the index binds a kernel.
host::AlignedBytes program(size_t calls) {
  std::vector<CallSpec> c = {
      {"no::such_name", "out", {0}}, {"another::name", "", {0, 1}}, {"third::op", "out", {1}}};
  c.resize(calls);
  return build_program({ValueSpec::tensor({4}, 0), ValueSpec::tensor({4}, 16)}, {}, {1}, c,
                       {0, 32});
}

Error load_and_run(const host::AlignedBytes& bytes, Diagnostic* diag, std::vector<float>* out) {
  auto prog = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), diag);
  if (!prog.ok()) return prog.error();
  TestPools pools(16 << 10, 64);
  auto m = prog->load_method("forward", &pools.mm, diag);
  if (!m.ok()) return m.error();
  Error e = m->execute();
  const float* y = static_cast<const float*>(m->get_output(0).to_tensor().data);
  out->assign(y, y + 4);
  return e;
}

TEST(KernelsByIndex, OperatorIndexPicksTheRow) {
  const KernelEntry rows[] = {{nullptr, fill_ones}, {nullptr, add_ten}};
  g_table = Span<const KernelEntry>(rows, 2);
  g_calls.clear();
  Diagnostic diag;
  std::vector<float> y;
  ASSERT_EQ(load_and_run(program(2), &diag, &y), Error::Ok) << diag.what;
  EXPECT_EQ(y, (std::vector<float>{11, 11, 11, 11}));
  EXPECT_EQ(g_calls, (std::vector<int>{0, 1}));

  // the same program against the rows swapped: each operator runs the other kernel
  const KernelEntry swapped[] = {{nullptr, add_ten}, {nullptr, fill_ones}};
  g_table = Span<const KernelEntry>(swapped, 2);
  g_calls.clear();
  ASSERT_EQ(load_and_run(program(2), &diag, &y), Error::Ok) << diag.what;
  EXPECT_EQ(g_calls, (std::vector<int>{1, 0}));
  EXPECT_EQ(y, (std::vector<float>{1, 1, 1, 1}));
}

TEST(KernelsByIndex, OperatorPastTheTableIsMissing) {
  const KernelEntry rows[] = {{nullptr, fill_ones}, {nullptr, add_ten}};
  g_table = Span<const KernelEntry>(rows, 2);
  g_calls.clear();
  Diagnostic diag;
  std::vector<float> y;
  EXPECT_EQ(load_and_run(program(3), &diag, &y), Error::OperatorMissing);
  EXPECT_EQ(diag.error, Error::OperatorMissing);
  EXPECT_EQ(diag.index, 2);  // the instruction
  EXPECT_EQ(diag.got, 1);    // calls without a kernel
  EXPECT_TRUE(g_calls.empty());
}

TEST(KernelsByIndex, RowWithoutKernelIsMissing) {
  const KernelEntry rows[] = {{nullptr, nullptr}, {nullptr, add_ten}};
  g_table = Span<const KernelEntry>(rows, 2);
  Diagnostic diag;
  std::vector<float> y;
  EXPECT_EQ(load_and_run(program(2), &diag, &y), Error::OperatorMissing);
  EXPECT_EQ(diag.index, 0);
  g_table = Span<const KernelEntry>();  // an empty table (the firmware's sizing build)
  Diagnostic empty;
  EXPECT_EQ(load_and_run(program(2), &empty, &y), Error::OperatorMissing);
  EXPECT_EQ(empty.got, 2);
}

}  // namespace
}  // namespace etmcu
