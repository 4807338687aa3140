// The runtime built with ETMCU_FEATURE_KERNEL_NAMES=0 (runtime/core/features.h): the kernel table
// is the method's operator list in plan order, and an operator's kernel is the row of its index,
// whatever its name. A row past the table or without a kernel is OperatorMissing, reported after
// every instruction was checked, with the first such instruction.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kernels/api/kernel.h"
#include "runtime/core/features.h"
#include "tests/runtime/mini_program.h"

static_assert(!etmcu::kFeatureKernelNames, "this test is compiled with kernels by operator index");
static_assert(etmcu::kFeatureKernelTemp, "the temp declarations are asked by default");

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

// Runs the program with a temp pool of `temp_bytes` (-1: none); *temp_needed gets the method's
// temp declaration.
Error load_and_run(const host::AlignedBytes& bytes, Diagnostic* diag, std::vector<float>* out,
                   long temp_bytes = -1, size_t* temp_needed = nullptr) {
  auto prog = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), diag);
  if (!prog.ok()) return prog.error();
  TestPools pools(16 << 10, 64);
  std::vector<uint8_t> temp(temp_bytes > 0 ? temp_bytes : 0);
  MemoryAllocator temp_alloc(temp.data(), temp.size());
  MemoryManager mm(&pools.method_alloc, &pools.planned, temp_bytes >= 0 ? &temp_alloc : nullptr);
  auto m = prog->load_method("forward", &mm, diag);
  if (!m.ok()) return m.error();
  if (temp_needed != nullptr) *temp_needed = m->temp_bytes_needed();
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

// Temp declarations (KernelEntry::temp_bytes, ETMCU_FEATURE_KERNEL_TEMP): load asks each call's
// kernel with the call's arguments, keeps the largest, and refuses a smaller temp pool with the
// numbers and the call that declared most.
uint32_t declare_per_argument(Span<EValue*> args) {
  return 40u * static_cast<uint32_t>(args.size());
}

TEST(KernelTemp, LoadTakesTheLargestDeclaration) {
  // call 0 (fill_ones, 1 argument) declares 40 B, call 1 (add_ten, 2 arguments) 80 B
  const KernelEntry rows[] = {{nullptr, fill_ones, declare_per_argument},
                              {nullptr, add_ten, declare_per_argument}};
  g_table = Span<const KernelEntry>(rows, 2);
  Diagnostic diag;
  std::vector<float> y;
  size_t needed = 0;
  ASSERT_EQ(load_and_run(program(2), &diag, &y, 80, &needed), Error::Ok) << diag.what;
  EXPECT_EQ(needed, 80u);
  EXPECT_EQ(y, (std::vector<float>{11, 11, 11, 11}));
  // a row without a declaration takes no temp: the method runs without a temp allocator
  const KernelEntry undeclared[] = {{nullptr, fill_ones}, {nullptr, add_ten}};
  g_table = Span<const KernelEntry>(undeclared, 2);
  ASSERT_EQ(load_and_run(program(2), &diag, &y, -1, &needed), Error::Ok) << diag.what;
  EXPECT_EQ(needed, 0u);
}

TEST(KernelTemp, LoadRefusesAPoolBelowTheDeclaration) {
  const KernelEntry rows[] = {{nullptr, fill_ones, declare_per_argument},
                              {nullptr, add_ten, declare_per_argument}};
  g_table = Span<const KernelEntry>(rows, 2);
  g_calls.clear();
  for (long pool : {-1L, 0L, 79L}) {
    Diagnostic diag;
    std::vector<float> y;
    EXPECT_EQ(load_and_run(program(2), &diag, &y, pool), Error::MemoryAllocationFailed) << pool;
    EXPECT_EQ(diag.got, pool < 0 ? 0 : pool);  // the pool
    EXPECT_EQ(diag.expected, 80);              // the declaration
    EXPECT_EQ(diag.index, 1);                  // the call that declared it
    EXPECT_NE(std::string(diag.what).find("temp pool too small"), std::string::npos) << diag.what;
  }
  EXPECT_TRUE(g_calls.empty());  // nothing ran
}

}  // namespace
}  // namespace etmcu
