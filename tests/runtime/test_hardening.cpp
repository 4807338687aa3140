// Defects found by reading the code (issue 16, item 7), each with a program or call that broke
// it: allocator arithmetic, method-layout counts that wrap or disagree with the loader, scalar
// inputs compared through the wrong union member, and a second execute() after a FreeCall.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/executor/method_layout.h"
#include "runtime/executor/program.h"
#include "runtime/pte/schema.h"
#include "tests/runtime/fb_builder.h"
#include "tests/runtime/mini_program.h"
#include "tools/cli/file_io.h"

namespace etmcu {
namespace {

using test::FbBuilder;
using Obj = FbBuilder::Obj;
namespace sp = schema::plan;

using test::evalue;
using test::MiniProgram;

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

TEST(Hardening, LayoutBytesSaturateInsteadOfWrapping) {
  MethodLayout l;
  l.chains = 0xffffffffu;  // chains + 1 used to wrap to 0 in 32-bit arithmetic
  EXPECT_EQ(l.bytes(), 0xffffffffu);
  MethodLayout m;
  m.values = 0xffffffffu;
  m.call_args = 0xffffffffu;
  EXPECT_EQ(m.bytes(), 0xffffffffu);
  MethodLayout s;              // a sum past 2^32 of blocks that each fit
  s.call_items = 0x30000000u;  // 3 GiB of item pointers
  s.call_ints = 0x10000000u;   // 2 GiB of ints
  EXPECT_EQ(s.bytes(), 0xffffffffu);
  MethodLayout k;  // and an exact sum below it: every block rounded up to 16 bytes
  k.values = 33;   // 2 slot words
  k.slots = 1;
  k.chains = 1;  // 2 chain starts
  k.inputs = 3;
  EXPECT_EQ(k.bytes(), 16u * 3u + 16u * ((sizeof(ValueSlot) + 15) / 16));
}

// 65,536 values share one IntList of 65,536 items: 2^32 items in all, which a 32-bit count
// wrapped to 0 (then the loader wrote the items through a null block). Passes full verification.
// Lists are no longer materialised at load, but verifying 2^32 shared items would take seconds:
// load refuses items repeated beyond what the program's bytes hold, before reading any of them.
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
  // Lists are read in place, not copied: what remains is the slot map, 8 bytes per 32 values
  // (16 KiB here), against 2^32 list items.
  EXPECT_LT(meta->method_allocator_bytes(), 16384u + 1024u);
  Pools pools(4 << 20);
  auto method = program->load_method("forward", &pools.mm, &diag);
  ASSERT_FALSE(method.ok());
  EXPECT_EQ(method.error(), Error::InvalidProgram);
  EXPECT_NE(std::string(diag.what).find("shared tables"), std::string::npos) << diag.what;
}

// Same with call arguments: 65,536 instructions share one KernelCall of 65,536 arguments.
TEST(Hardening, CallArgumentCountOverflowIsRejected) {
  constexpr uint32_t kShares = 1u << 16, kArgs = 1u << 16;
  MiniProgram p(/*with_operators=*/true);
  Obj e_int = p.b.declare(), int_val = p.b.declare(), chain = p.b.declare(), instrs = p.b.declare(),
      instr = p.b.declare(), call = p.b.declare(), args = p.b.declare(), op = p.b.declare(),
      op_name = p.b.declare();
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
  EXPECT_EQ(method.error(), Error::InvalidProgram);
  EXPECT_NE(std::string(diag.what).find("shared tables"), std::string::npos) << diag.what;
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

// --- FreeCall and a second execute() ---------------------------------------------------------

// forward(x: f32[2]) = (x + x) + (x + x) through an intermediate t, then FreeCall(t), as an
// exporter emits it for a tensor whose lifetime has ended. All three tensors are planned.
host::AlignedBytes free_call_program() {
  namespace st = schema::tensor;
  MiniProgram p(/*with_operators=*/true);
  Obj ex = p.b.declare(), et = p.b.declare(), eo = p.b.declare(), ea = p.b.declare(),
      chain = p.b.declare(), instrs = p.b.declare(), op = p.b.declare();
  p.b.vec_refs({ex, et, eo, ea}, p.values);
  p.b.vec(4, 1, 0, {0}, p.inputs);
  p.b.vec(4, 1, 0, {2}, p.outputs);
  p.b.vec_refs({chain}, p.chains);
  p.b.vec_refs({op}, p.operators);
  p.b.vec(8, 2, 0, {0, 48}, p.sizes);
  Obj tensors[3];
  for (int k = 0; k < 3; ++k) {
    tensors[k] = p.b.declare();
    evalue(p.b, schema::kTagTensor, tensors[k], k == 0 ? ex : (k == 1 ? et : eo));
  }
  Obj alpha = p.b.declare();
  evalue(p.b, schema::kTagInt, alpha, ea);
  for (int k = 0; k < 3; ++k) {
    Obj sizes = p.b.declare(), order = p.b.declare(), alloc = p.b.declare();
    p.b.table({FbBuilder::u8(st::kScalarType, 6), FbBuilder::ref(st::kSizes, sizes),
               FbBuilder::ref(st::kDimOrder, order), FbBuilder::ref(st::kAllocationInfo, alloc)},
              tensors[k]);
    p.b.vec(4, 1, 0, {2}, sizes);
    p.b.vec(1, 1, 0, {0}, order);
    p.b.table({FbBuilder::u32(schema::alloc::kMemoryId, 1),
               FbBuilder::u32(schema::alloc::kOffsetLow, 16u * k)},
              alloc);
  }
  p.b.table({FbBuilder::u64(0, 1)}, alpha);
  p.b.table({FbBuilder::ref(schema::chain::kInstructions, instrs)}, chain);
  Obj i0 = p.b.declare(), i1 = p.b.declare(), i2 = p.b.declare();
  p.b.vec_refs({i0, i1, i2}, instrs);
  Obj call0 = p.b.declare(), call1 = p.b.declare(), freecall = p.b.declare();
  p.b.table({FbBuilder::u8(schema::instr::kArgsType, schema::kInstrKernelCall),
             FbBuilder::ref(schema::instr::kArgs, call0)},
            i0);
  p.b.table({FbBuilder::u8(schema::instr::kArgsType, schema::kInstrKernelCall),
             FbBuilder::ref(schema::instr::kArgs, call1)},
            i1);
  p.b.table({FbBuilder::u8(schema::instr::kArgsType, schema::kInstrFreeCall),
             FbBuilder::ref(schema::instr::kArgs, freecall)},
            i2);
  Obj args0 = p.b.declare(), args1 = p.b.declare();
  p.b.table({FbBuilder::u32(schema::call::kIndex, 0), FbBuilder::ref(schema::call::kArgs, args0)},
            call0);
  p.b.table({FbBuilder::u32(schema::call::kIndex, 0), FbBuilder::ref(schema::call::kArgs, args1)},
            call1);
  p.b.table({FbBuilder::u32(0, 1)}, freecall);
  p.b.vec(4, 5, 0, {0, 0, 3, 1, 1}, args0);  // t = x + 1 * x
  p.b.vec(4, 5, 0, {1, 1, 3, 2, 2}, args1);  // out = t + 1 * t
  Obj name = p.b.declare(), overload = p.b.declare();
  p.b.table(
      {FbBuilder::ref(schema::op::kName, name), FbBuilder::ref(schema::op::kOverload, overload)},
      op);
  p.b.string_as("aten::add", name);
  p.b.string_as("out", overload);
  return p.finish();
}

TEST(Hardening, SecondExecuteAfterFreeCall) {
  host::AlignedBytes bytes = free_call_program();
  Diagnostic diag;
  auto program = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &diag);
  ASSERT_TRUE(program.ok()) << diag.what;
  Pools pools(4096);
  alignas(16) uint8_t arena[48] = {};
  Span<uint8_t> buffers[1] = {Span<uint8_t>(arena, sizeof(arena))};
  pools.planned = HierarchicalAllocator(Span<Span<uint8_t>>(buffers, 1));
  auto method = program->load_method("forward", &pools.mm, &diag);
  ASSERT_TRUE(method.ok()) << diag.what;
  for (float v : {1.0f, 2.5f, -3.0f}) {
    float x[2] = {v, 2 * v};
    ASSERT_EQ(method->set_input_data(0, x, sizeof(x)), Error::Ok);
    ASSERT_EQ(method->execute(), Error::Ok) << method->diagnostic().what;
    const Tensor& out = method->get_output(0).to_tensor();
    ASSERT_NE(out.data, nullptr);
    EXPECT_EQ(out.const_data_ptr<float>()[0], 4 * v);
    EXPECT_EQ(out.const_data_ptr<float>()[1], 8 * v);
  }
}

}  // namespace
}  // namespace etmcu
