// Hand-built programs for tests (with fb_builder.h): a one-method "forward" program whose plan the
// test fills in object by object (MiniProgram), or a whole program from value and kernel-call
// specs (build_program), and pools to load it over. Host test code only.
#pragma once
#include <cstring>
#include <string>
#include <vector>

#include "runtime/executor/program.h"
#include "runtime/pte/schema.h"
#include "tests/runtime/fb_builder.h"
#include "tools/cli/file_io.h"

namespace etmcu::test {

// Program{execution_plan: [plan "forward"]}; the caller writes the declared plan children.
struct MiniProgram {
  using Obj = FbBuilder::Obj;
  FbBuilder b{"ET12"};
  Obj root, values, inputs, outputs, chains, operators, sizes;
  explicit MiniProgram(bool with_operators = false) {
    namespace sp = schema::plan;
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
        FbBuilder::ref(sp::kName, name),     FbBuilder::ref(sp::kValues, values),
        FbBuilder::ref(sp::kInputs, inputs), FbBuilder::ref(sp::kOutputs, outputs),
        FbBuilder::ref(sp::kChains, chains), FbBuilder::ref(sp::kNonConstBufferSizes, sizes)};
    if (with_operators) f.push_back(FbBuilder::ref(sp::kOperators, operators));
    b.table(f, plan);
    b.string_as("forward", name);
  }
  host::AlignedBytes finish() {
    std::vector<uint8_t> v = b.finish(root);
    host::AlignedBytes a(v.size());
    std::memcpy(a.data(), v.data(), v.size());
    return a;
  }
};

// An EValue table with `tag` and (unless val < 0) its value table `val`.
inline FbBuilder::Obj evalue(FbBuilder& b, uint8_t tag, FbBuilder::Obj val,
                             FbBuilder::Obj id = -1) {
  if (val < 0) return b.table({FbBuilder::u8(schema::evalue::kValType, tag)}, id);
  return b.table(
      {FbBuilder::u8(schema::evalue::kValType, tag), FbBuilder::ref(schema::evalue::kVal, val)},
      id);
}

struct ValueSpec {
  char kind = 'T';              // 'T' tensor, 'I' int
  int64_t int_value = 0;        // 'I'
  uint8_t dtype = 6;            // 'T': ScalarType (6 = Float)
  std::vector<uint64_t> sizes;  // 'T'
  uint32_t memory_id = 1;       // 'T': 0 = not memory-planned
  uint32_t offset_low = 0, offset_high = 0;
  std::vector<uint64_t> dim_order;  // 'T': empty = contiguous (0, 1, ..., dim-1)
  static ValueSpec tensor(std::vector<uint64_t> s, uint32_t offset, uint32_t mem = 1) {
    ValueSpec v;
    v.sizes = std::move(s);
    v.offset_low = offset;
    v.memory_id = mem;
    return v;
  }
  static ValueSpec integer(int64_t x) {
    ValueSpec v;
    v.kind = 'I';
    v.int_value = x;
    return v;
  }
};
struct CallSpec {
  std::string name, overload;
  std::vector<uint64_t> args;  // value indices
};

// One chain of KernelCalls over `values`; each distinct operator name gets one entry.
inline host::AlignedBytes build_program(const std::vector<ValueSpec>& values,
                                        const std::vector<uint64_t>& inputs,
                                        const std::vector<uint64_t>& outputs,
                                        const std::vector<CallSpec>& calls,
                                        const std::vector<uint64_t>& buffer_sizes) {
  namespace st = schema::tensor;
  using Obj = FbBuilder::Obj;
  MiniProgram p(/*with_operators=*/true);
  std::vector<Obj> ev, vals;
  for (size_t i = 0; i < values.size(); ++i) ev.push_back(p.b.declare());
  for (size_t i = 0; i < values.size(); ++i) vals.push_back(p.b.declare());
  Obj chain = p.b.declare(), instrs = p.b.declare();
  std::vector<Obj> ops;
  for (size_t i = 0; i < calls.size(); ++i) ops.push_back(p.b.declare());
  p.b.vec_refs(ev, p.values);
  p.b.vec(4, inputs.size(), 0, inputs, p.inputs);
  p.b.vec(4, outputs.size(), 0, outputs, p.outputs);
  p.b.vec_refs({chain}, p.chains);
  p.b.vec_refs(ops, p.operators);
  p.b.vec(8, buffer_sizes.size(), 0, buffer_sizes, p.sizes);
  for (size_t i = 0; i < values.size(); ++i)
    evalue(p.b, values[i].kind == 'T' ? schema::kTagTensor : schema::kTagInt, vals[i], ev[i]);
  for (size_t i = 0; i < values.size(); ++i) {
    const ValueSpec& v = values[i];
    if (v.kind == 'I') {
      p.b.table({FbBuilder::u64(0, static_cast<uint64_t>(v.int_value))}, vals[i]);
      continue;
    }
    Obj sizes = p.b.declare(), order = p.b.declare(), alloc = p.b.declare();
    std::vector<FbBuilder::Field> f = {FbBuilder::u8(st::kScalarType, v.dtype),
                                       FbBuilder::ref(st::kSizes, sizes),
                                       FbBuilder::ref(st::kDimOrder, order)};
    if (v.memory_id != 0) f.push_back(FbBuilder::ref(st::kAllocationInfo, alloc));
    p.b.table(f, vals[i]);
    p.b.vec(4, v.sizes.size(), 0, v.sizes, sizes);
    std::vector<uint64_t> dims = v.dim_order;
    if (dims.empty())
      for (size_t d = 0; d < v.sizes.size(); ++d) dims.push_back(d);
    p.b.vec(1, dims.size(), 0, dims, order);
    if (v.memory_id != 0)
      p.b.table({FbBuilder::u32(schema::alloc::kMemoryId, v.memory_id),
                 FbBuilder::u32(schema::alloc::kOffsetLow, v.offset_low),
                 FbBuilder::u32(schema::alloc::kOffsetHigh, v.offset_high)},
                alloc);
  }
  p.b.table({FbBuilder::ref(schema::chain::kInstructions, instrs)}, chain);
  std::vector<Obj> ins;
  for (size_t k = 0; k < calls.size(); ++k) ins.push_back(p.b.declare());
  p.b.vec_refs(ins, instrs);
  for (size_t k = 0; k < calls.size(); ++k) {
    Obj call = p.b.declare(), args = p.b.declare();
    p.b.table({FbBuilder::u8(schema::instr::kArgsType, schema::kInstrKernelCall),
               FbBuilder::ref(schema::instr::kArgs, call)},
              ins[k]);
    p.b.table({FbBuilder::u32(schema::call::kIndex, k), FbBuilder::ref(schema::call::kArgs, args)},
              call);
    p.b.vec(4, calls[k].args.size(), 0, calls[k].args, args);
  }
  for (size_t k = 0; k < calls.size(); ++k) {
    Obj name = p.b.declare(), overload = p.b.declare();
    p.b.table(
        {FbBuilder::ref(schema::op::kName, name), FbBuilder::ref(schema::op::kOverload, overload)},
        ops[k]);
    p.b.string_as(calls[k].name, name);
    p.b.string_as(calls[k].overload, overload);
  }
  return p.finish();
}

// Pools for a test: a method pool and one planned arena.
struct TestPools {
  std::vector<uint8_t> method;
  MemoryAllocator method_alloc;
  host::AlignedBytes arena;
  Span<uint8_t> buffers[1];
  HierarchicalAllocator planned;
  MemoryManager mm;
  explicit TestPools(size_t method_bytes, size_t arena_bytes = 0)
      : method(method_bytes),
        method_alloc(method.data(), method.size()),
        arena(arena_bytes),
        buffers{Span<uint8_t>(arena.data(), arena_bytes)},
        planned(Span<Span<uint8_t>>(buffers, arena_bytes ? 1 : 0)),
        mm(&method_alloc, &planned) {}
};

}  // namespace etmcu::test
