// Upstream ExecuTorch's 2025 security advisories, each turned into programs of its class of input
// (read from the advisory and its fix; no upstream code or test is reused). Every program must be
// rejected cleanly: an Error and a diagnostic, no write outside its buffers (this suite also runs
// under ASan+UBSan). The table in docs/runtime.md maps advisory -> test -> our error.
#include <gtest/gtest.h>

#include <cstdio>
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

struct Loaded {
  Error load = Error::Ok;     // Program::load + load_method
  Error execute = Error::Ok;  // execute() when the load succeeded
  std::string message;        // the diagnostic of the failing step
};

// Loads "forward" over a 64 KiB method pool and a planned arena of `arena` bytes; executes with
// zeroed inputs when the load succeeds.
Loaded run(const host::AlignedBytes& bytes, size_t arena) {
  Loaded r;
  char text[256];
  Diagnostic diag;
  auto program = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &diag);
  if (!program.ok()) {
    r.load = program.error();
    r.message = format_diagnostic(diag, text, sizeof(text));
    return r;
  }
  TestPools pools(64 << 10, arena);
  auto method = program->load_method("forward", &pools.mm, &diag);
  if (!method.ok()) {
    r.load = method.error();
    r.message = format_diagnostic(diag, text, sizeof(text));
    return r;
  }
  std::vector<std::vector<uint8_t>> inputs(method->inputs_size());
  for (size_t i = 0; i < method->inputs_size(); ++i) {
    inputs[i].assign(method->get_input(i).to_tensor().nbytes, 0);
    EXPECT_EQ(method->set_input_data(i, inputs[i].data(), inputs[i].size()), Error::Ok);
  }
  r.execute = method->execute();
  r.message = format_diagnostic(method->diagnostic(), text, sizeof(text));
  return r;
}

// Prints the error a case got (the table in docs/runtime.md quotes these lines).
Loaded report(Loaded r) {
  std::printf("  -> %s\n", r.message.c_str());
  return r;
}

// x + x -> out, all f32 tensors planned in one 64-byte arena; `x_sizes`/`out_sizes` vary.
host::AlignedBytes add_program(std::vector<uint64_t> x_sizes, std::vector<uint64_t> out_sizes,
                               std::vector<uint64_t> args = {0, 0, 2, 1, 1}) {
  return build_program(
      {ValueSpec::tensor(x_sizes, 0), ValueSpec::tensor(out_sizes, 32), ValueSpec::integer(1)}, {0},
      {1}, {CallSpec{"aten::add", "out", args}}, {0, 64});
}

// GHSA-xc7w-r669-48pf (CVE-2025-54951): a tensor with more dimensions than the runtime's fixed
// limit overflowed the arrays sized by that limit.
TEST(Advisory, Xc7w_TensorWithTooManyDims) {
  Loaded ok = run(add_program(std::vector<uint64_t>(16, 1), std::vector<uint64_t>(16, 1)), 64);
  EXPECT_EQ(ok.load, Error::Ok) << ok.message;  // 16 dims: the limit itself is fine
  EXPECT_EQ(ok.execute, Error::Ok) << ok.message;
  for (size_t dims : {17u, 64u, 255u}) {
    Loaded r = report(run(add_program(std::vector<uint64_t>(dims, 1), {1}), 64));
    EXPECT_EQ(r.load, Error::InvalidProgram);
    EXPECT_NE(
        r.message.find("Tensor has too many dims (got " + std::to_string(dims) + ", expected 16)"),
        std::string::npos)
        << r.message;
  }
}

// GHSA-h952-963h-rv99: a heap overflow in method loading, the class of element count x element
// size products that wrap (upstream's fix checks the list allocation's multiplication). Ours:
// allocate_array and the method layout (2^32 list items or call arguments reached through shared
// tables: Hardening.ListItemCountOverflowIsRejected / CallArgumentCountOverflowIsRejected).
TEST(Advisory, H952_ListAllocationSizeWraps) {
  alignas(16) static uint8_t pool[256];
  MemoryAllocator a(pool, sizeof(pool));
  EXPECT_EQ(a.allocate_array<int64_t>(SIZE_MAX / 4), nullptr);  // 8 * n wraps
  EXPECT_EQ(a.allocate_array<EValue>(SIZE_MAX / 8 + 2), nullptr);
  EXPECT_EQ(a.used(), 0u);
  EXPECT_NE(a.allocate_array<int64_t>(4), nullptr);
}

// GHSA-9m39-3mf3-xwch (CVE-2025-54949): a copy operator (executorch_prim::et_copy_index) wrote a
// slice past the end of its destination. We link no prim ops: the program is rejected at load,
// naming the operator. The class, an operator whose output is smaller than what it computes, is
// rejected by the kernel before it writes.
TEST(Advisory, M39_CopyPastTheDestination) {
  Loaded prim = report(run(
      build_program({ValueSpec::tensor({4}, 0), ValueSpec::tensor({1}, 32), ValueSpec::integer(3)},
                    {0}, {1}, {CallSpec{"executorch_prim::et_copy_index", "tensor", {1, 0, 2}}},
                    {0, 64}),
      64));
  EXPECT_EQ(prim.load, Error::OperatorMissing);
  EXPECT_NE(prim.message.find("executorch_prim::et_copy_index.tensor"), std::string::npos)
      << prim.message;

  Loaded small_out = report(run(add_program({4}, {1}), 64));  // x: 4 floats, out: room for 1
  EXPECT_EQ(small_out.load, Error::Ok) << small_out.message;
  EXPECT_NE(small_out.execute, Error::Ok);
  EXPECT_NE(small_out.message.find("out shape is not the broadcast shape"), std::string::npos)
      << small_out.message;
}

// GHSA-84m3-f99p-cqx5 (CVE-2025-30405): offset + size of a planned tensor wrapped, placing it
// outside its arena. Offsets near 2^64 and 2^32, and a memory id past the last arena.
TEST(Advisory, M3_PlannedOffsetWraps) {
  struct Case {
    uint32_t low, high, mem;
    const char* text;
  };
  const Case cases[] = {
      {0xfffffff0u, 0xffffffffu, 1, "planned tensor runs past the end of its buffer"},
      {0xfffffff8u, 0, 1, "planned tensor runs past the end of its buffer"},
      {60, 0, 1, "planned tensor runs past the end of its buffer"},
      {0, 0, 2, "AllocationDetails.memory_id out of range"},
  };
  for (const Case& c : cases) {
    ValueSpec x = ValueSpec::tensor({4}, c.low, c.mem);
    x.offset_high = c.high;
    Loaded r =
        report(run(build_program({x, ValueSpec::tensor({4}, 32), ValueSpec::integer(1)}, {0}, {1},
                                 {CallSpec{"aten::add", "out", {0, 0, 2, 1, 1}}}, {0, 64}),
                   64));
    EXPECT_EQ(r.load, Error::InvalidProgram) << c.low;
    EXPECT_NE(r.message.find(c.text), std::string::npos) << r.message;
  }
}

// GHSA-hj95-mhgf-jxc4 (CVE-2025-30404): MemoryAllocator::allocate's size arithmetic wrapped and
// handed out overlapping blocks. A wrapped request must fail and leave the next block disjoint.
TEST(Advisory, Hj95_AllocatorOverlap) {
  alignas(16) static uint8_t pool[128];
  MemoryAllocator a(pool + 1, sizeof(pool) - 1);
  uint8_t* first = static_cast<uint8_t*>(a.allocate(16, 16));
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(a.allocate(SIZE_MAX - 14, 16), nullptr);  // padding + size wraps to 0
  EXPECT_EQ(a.allocate(SIZE_MAX - 30, 32), nullptr);
  uint8_t* second = static_cast<uint8_t*>(a.allocate(16, 16));
  ASSERT_NE(second, nullptr);
  EXPECT_GE(second, first + 16);  // disjoint
}

// GHSA-f9hx-c6jf-3qxm (CVE-2025-54950): kernels read arguments past the end of the argument list
// (no count check in generated and prim kernels). Calls with too few arguments, and an argument
// index past the value table.
TEST(Advisory, F9hx_KernelArgumentsOutOfBounds) {
  for (std::vector<uint64_t> args :
       {std::vector<uint64_t>{}, std::vector<uint64_t>{0}, std::vector<uint64_t>{0, 0, 2, 1}}) {
    Loaded r = report(run(add_program({4}, {4}, args), 64));
    EXPECT_EQ(r.load, Error::Ok) << r.message;
    EXPECT_EQ(r.execute, Error::InvalidArgument);
    EXPECT_NE(r.message.find("add.out: expected 5 args"), std::string::npos) << r.message;
  }
  Loaded index = report(run(add_program({4}, {4}, {0, 0, 2, 7, 1}), 64));
  EXPECT_EQ(index.load, Error::InvalidProgram);
  EXPECT_NE(index.message.find("value index out of range (got 7, expected 2)"), std::string::npos)
      << index.message;
}

}  // namespace
}  // namespace etmcu
