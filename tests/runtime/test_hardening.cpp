// Defects found by reading the code (issue 16, item 7), each with a program or call that broke
// it: allocator arithmetic, method-layout counts that wrap or disagree with the loader, scalar
// inputs compared through the wrong union member, and a second execute() after a FreeCall.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "runtime/executor/method_layout.h"
#include "runtime/executor/program.h"
#include "runtime/pte/schema.h"
#include "tests/runtime/fb_builder.h"
#include "tools/cli/file_io.h"

namespace etmcu {
namespace {

using test::FbBuilder;
using Obj = FbBuilder::Obj;
namespace sp = schema::plan;

// A program with one method "forward" whose plan fields the test fills in. Every object is
// written after the one that refers to it (uoffsets point forward).
struct MiniProgram {
  FbBuilder b{"ET12"};
  Obj root, values, inputs, outputs, chains, operators, sizes;
  explicit MiniProgram(bool with_operators = false) {
    root = b.declare();
    Obj plans = b.declare(), plan = b.declare(), name = b.declare();
    values = b.declare();
    inputs = b.declare();
    outputs = b.declare();
    chains = b.declare();
    operators = b.declare();
    sizes = b.declare();
    b.table({FbBuilder::ref(schema::program::kExecutionPlan, plans)}, root);
    b.vec_refs({plan}, plans);
    std::vector<FbBuilder::Field> f = {
        FbBuilder::ref(sp::kName, name),        FbBuilder::ref(sp::kValues, values),
        FbBuilder::ref(sp::kInputs, inputs),    FbBuilder::ref(sp::kOutputs, outputs),
        FbBuilder::ref(sp::kChains, chains),    FbBuilder::ref(sp::kNonConstBufferSizes, sizes)};
    if (with_operators) f.push_back(FbBuilder::ref(sp::kOperators, operators));
    b.table(f, plan);
    b.string_as("forward", name);
  }
  // Every remaining declared object must have been written by the caller.
  host::AlignedBytes finish() {
    std::vector<uint8_t> v = b.finish(root);
    host::AlignedBytes a(v.size());
    std::memcpy(a.data(), v.data(), v.size());
    return a;
  }
};

// An EValue table with `tag` and (unless val < 0) its value table `val`.
Obj evalue(FbBuilder& b, uint8_t tag, Obj val, Obj id = -1) {
  if (val < 0) return b.table({FbBuilder::u8(schema::evalue::kValType, tag)}, id);
  return b.table({FbBuilder::u8(schema::evalue::kValType, tag),
                  FbBuilder::ref(schema::evalue::kVal, val)},
                 id);
}

struct Pools {
  std::vector<uint8_t> method;
  MemoryAllocator method_alloc;
  HierarchicalAllocator planned;
  MemoryManager mm;
  explicit Pools(size_t bytes)
      : method(bytes), method_alloc(method.data(), method.size()), mm(&method_alloc, &planned) {}
};

// --- MemoryAllocator::allocate ------------------------------------------------------------

TEST(Hardening, AllocatorRejectsSizesNearSizeMax) {
  alignas(16) static uint8_t pool[64];
  // Base 1 past a 16-byte boundary: 15 bytes of padding, which used to wrap pad + size to 0.
  MemoryAllocator a(pool + 1, 48);
  EXPECT_EQ(a.allocate(SIZE_MAX - 14, 16), nullptr);
  EXPECT_EQ(a.allocate(SIZE_MAX, 1), nullptr);
  EXPECT_EQ(a.allocate(SIZE_MAX - 15, 16), nullptr);
  EXPECT_TRUE(a.failed());
  EXPECT_EQ(a.needed(), SIZE_MAX);  // saturated, not wrapped
  EXPECT_EQ(a.used(), 0u);
  void* p = a.allocate(16, 16);
  EXPECT_EQ(p, pool + 16);
  EXPECT_EQ(a.used(), 31u);                // 15 bytes of padding + 16
  EXPECT_EQ(a.allocate(18, 16), nullptr);  // 17 bytes left
  EXPECT_EQ(a.allocate(1, 3), nullptr);    // not a power of two
  EXPECT_EQ(a.allocate(1, 0), nullptr);
  EXPECT_NE(a.allocate(17, 16), nullptr);
  EXPECT_EQ(a.used(), 48u);
}

// --- MethodLayout ---------------------------------------------------------------------------

TEST(Hardening, LayoutBytesDoNotWrap) {
  MethodLayout l;
  l.chains = 0xffffffffu;  // chains + 1 used to wrap to 0 in 32-bit arithmetic
  EXPECT_GE(l.bytes(), uint64_t{4} << 32);
  MethodLayout m;
  m.values = 0xffffffffu;
  m.call_args = 0xffffffffu;
  EXPECT_GE(m.bytes(), uint64_t{0xffffffffu} * (sizeof(EValue) + sizeof(EValue*)));
  static_assert(sizeof(MethodLayout().bytes()) == 8, "64-bit on every target");
}

// 65,536 values share one IntList of 65,536 items: 2^32 items in all, which a 32-bit count
// wrapped to 0 (then the loader wrote the items through a null block). Passes full verification.
TEST(Hardening, ListItemCountOverflowIsRejected) {
  constexpr uint32_t kShares = 1u << 16, kItems = 1u << 16;
  MiniProgram p;
  Obj e_int = p.b.declare(), e_list = p.b.declare(), int_val = p.b.declare(),
      list_val = p.b.declare(), chain = p.b.declare(), instrs = p.b.declare();
  std::vector<Obj> refs(kShares + 1, e_list);
  refs[0] = e_int;
  p.b.vec_refs(refs, p.values);
  p.b.vec(4, 0, 0, {}, p.inputs);
  p.b.vec(4, 0, 0, {}, p.outputs);
  p.b.vec_refs({chain}, p.chains);
  p.b.vec(8, 1, 0, {}, p.sizes);
  evalue(p.b, schema::kTagInt, int_val, e_int);
  evalue(p.b, schema::kTagIntList, list_val, e_list);
  p.b.table({FbBuilder::u64(0, 7)}, int_val);
  Obj items = p.b.declare();
  p.b.table({FbBuilder::ref(0, items)}, list_val);
  p.b.vec(8, kItems, 0, {}, items);  // every item refers to value 0 (the Int)
  p.b.table({FbBuilder::ref(schema::chain::kInstructions, instrs)}, chain);
  p.b.vec_refs({}, instrs);
  host::AlignedBytes bytes = p.finish();

  Diagnostic diag;
  auto program = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &diag);
  ASSERT_TRUE(program.ok()) << diag.what;
  auto meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  EXPECT_GE(meta->method_allocator_bytes(), (uint64_t{kShares} * kItems) * sizeof(int64_t));
  Pools pools(4 << 20);
  auto method = program->load_method("forward", &pools.mm, &diag);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::MemoryAllocationFailed);
}

// Same with call arguments: 65,536 instructions share one KernelCall of 65,536 arguments.
TEST(Hardening, CallArgumentCountOverflowIsRejected) {
  constexpr uint32_t kShares = 1u << 16, kArgs = 1u << 16;
  MiniProgram p(/*with_operators=*/true);
  Obj e_int = p.b.declare(), int_val = p.b.declare(), chain = p.b.declare(),
      instrs = p.b.declare(), instr = p.b.declare(), call = p.b.declare(), args = p.b.declare(),
      op = p.b.declare(), op_name = p.b.declare();
  p.b.vec_refs({e_int}, p.values);
  p.b.vec(4, 0, 0, {}, p.inputs);
  p.b.vec(4, 0, 0, {}, p.outputs);
  p.b.vec_refs({chain}, p.chains);
  p.b.vec_refs({op}, p.operators);
  p.b.vec(8, 1, 0, {}, p.sizes);
  evalue(p.b, schema::kTagInt, int_val, e_int);
  p.b.table({FbBuilder::u64(0, 1)}, int_val);
  p.b.table({FbBuilder::ref(schema::chain::kInstructions, instrs)}, chain);
  p.b.vec_refs(std::vector<Obj>(kShares, instr), instrs);
  p.b.table({FbBuilder::u8(schema::instr::kArgsType, schema::kInstrKernelCall),
             FbBuilder::ref(schema::instr::kArgs, call)},
            instr);
  p.b.table({FbBuilder::u32(schema::call::kIndex, 0), FbBuilder::ref(schema::call::kArgs, args)},
            call);
  p.b.vec(4, kArgs, 0, {}, args);
  p.b.table({FbBuilder::ref(schema::op::kName, op_name)}, op);
  p.b.string_as("aten::add", op_name);
  host::AlignedBytes bytes = p.finish();

  Diagnostic diag;
  auto program = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &diag);
  ASSERT_TRUE(program.ok()) << diag.what;
  Pools pools(4 << 20);
  auto method = program->load_method("forward", &pools.mm, &diag);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::MemoryAllocationFailed);
}

// Under Verification::Minimal an EValue may carry the Tensor tag without its table: the layout
// counted no tensor, and the loader constructed one in a block that did not exist.
TEST(Hardening, MinimalVerificationTensorTagWithoutValue) {
  MiniProgram p;
  Obj e = p.b.declare(), chain = p.b.declare(), instrs = p.b.declare();
  p.b.vec_refs({e}, p.values);
  p.b.vec(4, 0, 0, {}, p.inputs);
  p.b.vec(4, 0, 0, {}, p.outputs);
  p.b.vec_refs({chain}, p.chains);
  p.b.vec(8, 1, 0, {}, p.sizes);
  evalue(p.b, schema::kTagTensor, -1, e);
  p.b.table({FbBuilder::ref(schema::chain::kInstructions, instrs)}, chain);
  p.b.vec_refs({}, instrs);
  host::AlignedBytes bytes = p.finish();
  Span<const uint8_t> span(bytes.data(), bytes.size());

  Diagnostic full;
  EXPECT_FALSE(Program::load(span, &full).ok());  // the verifier rejects the missing union value
  Diagnostic diag;
  auto program = Program::load(span, &diag, nullptr, Program::Verification::Minimal);
  ASSERT_TRUE(program.ok());
  Pools pools(4096);
  auto method = program->load_method("forward", &pools.mm, &diag);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::InvalidProgram);
  EXPECT_STREQ(diag.what, "Tensor value without its table");
}

// --- set_input of Bool and Double -----------------------------------------------------------

// Inputs 0 (Bool true) and 1 (Double 0.0); no instructions.
host::AlignedBytes scalar_input_program() {
  MiniProgram p;
  Obj eb = p.b.declare(), ed = p.b.declare(), bv = p.b.declare(), dv = p.b.declare(),
      chain = p.b.declare(), instrs = p.b.declare();
  p.b.vec_refs({eb, ed}, p.values);
  p.b.vec(4, 2, 0, {0, 1}, p.inputs);
  p.b.vec(4, 0, 0, {}, p.outputs);
  p.b.vec_refs({chain}, p.chains);
  p.b.vec(8, 1, 0, {}, p.sizes);
  evalue(p.b, schema::kTagBool, bv, eb);
  evalue(p.b, schema::kTagDouble, dv, ed);
  p.b.table({FbBuilder::u8(0, 1)}, bv);
  p.b.table({FbBuilder::u64(0, 0)}, dv);  // +0.0
  p.b.table({FbBuilder::ref(schema::chain::kInstructions, instrs)}, chain);
  p.b.vec_refs({}, instrs);
  return p.finish();
}

TEST(Hardening, BoolAndDoubleInputsCompareByValue) {
  host::AlignedBytes bytes = scalar_input_program();
  Diagnostic diag;
  auto program = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &diag);
  ASSERT_TRUE(program.ok()) << diag.what;
  Pools pools(4096);
  auto method = program->load_method("forward", &pools.mm, &diag);
  ASSERT_TRUE(method.ok()) << diag.what;

  // A Bool whose other payload bytes are not zero (built from an Int): still `true`.
  EValue b = EValue::from_int(0x100);
  b.tag = Tag::Bool;
  b.payload.as_bool = true;
  EXPECT_EQ(method->set_input(b, 0), Error::Ok);
  EXPECT_NE(method->set_input(EValue::from_bool(false), 0), Error::Ok);
  EXPECT_EQ(method->set_input(EValue::from_bool(true), 0), Error::Ok);

  EXPECT_EQ(method->set_input(EValue::from_double(-0.0), 1), Error::Ok);  // -0.0 == 0.0
  EXPECT_EQ(method->set_input(EValue::from_double(0.0), 1), Error::Ok);
  EXPECT_NE(method->set_input(EValue::from_double(1e-300), 1), Error::Ok);
  EXPECT_NE(method->set_input(EValue::from_double(std::nan("")), 1), Error::Ok);
  EXPECT_EQ(method->execute(), Error::Ok);
}

}  // namespace
}  // namespace etmcu
