// Malformed input: truncations, corrupted header fields, offsets and indices out of range, absurd
// sizes, wrong identifiers, pools too small. Each gives an Error and a diagnostic, never a crash
// (this suite also runs under ASan/UBSan).
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/executor/program.h"
#include "runtime/pte/schema.h"
#include "tests/runtime/corpus.h"
#include "tools/cli/file_io.h"
#include "tools/cli/session.h"

namespace etmcu {
namespace {

using host::AlignedBytes;

const char* kAddModel =
    "upstream/examples__arduino__examples__AddModel__model.pte";  // eh00 + segment
const char* kAddTwo = "upstream/extension__apple__ExecuTorch____tests____resources__add.pte";
const char* kKws = "upstream/examples__arduino__examples__KeywordSpotting__model.pte";

std::vector<uint8_t> bytes_of(const char* name) {
  AlignedBytes b = host::read_file(test::corpus(name));
  return std::vector<uint8_t>(b.data(), b.data() + b.size());
}

struct Outcome {
  Error error;
  std::string message;
};

// Loads program + method "forward" + one execute over exactly sized pools.
Outcome try_all(const std::vector<uint8_t>& bytes) {
  try {
    auto s = host::Session::open(bytes.data(), bytes.size());
    Method& m = s->load_method("forward");
    // Inputs that are not memory-planned are used in place: keep them alive until execute.
    std::vector<std::vector<uint8_t>> zeros(m.inputs_size());
    for (size_t i = 0; i < m.inputs_size(); ++i) {
      if (!m.get_input(i).is_tensor()) continue;
      zeros[i].assign(m.get_input(i).to_tensor().nbytes, 0);
      m.set_input_data(i, zeros[i].data(), zeros[i].size());
    }
    Error e = m.execute();
    return {e, host::describe(m.diagnostic())};
  } catch (const std::exception& e) {
    return {Error::InvalidProgram, e.what()};
  }
}

Outcome load_only(const std::vector<uint8_t>& bytes) {
  try {
    auto s = host::Session::open(bytes.data(), bytes.size());
    s->load_method("forward");
    return {Error::Ok, ""};
  } catch (const std::exception& e) {
    return {Error::InvalidProgram, e.what()};
  }
}

void expect_fails_with(const std::vector<uint8_t>& bytes, const char* text) {
  Outcome o = load_only(bytes);
  EXPECT_NE(o.error, Error::Ok);
  EXPECT_NE(o.message.find(text), std::string::npos) << "message: " << o.message;
}

// Position of field `id` of `table` inside `buf` (asserts presence).
size_t field_pos(const std::vector<uint8_t>& buf, fb::Table table, int id) {
  EXPECT_TRUE(table.has(id));
  return static_cast<size_t>(table.pointer() + table.field_offset(id) - buf.data());
}

// The aligned copy used to navigate the verified original.
struct Nav {
  AlignedBytes copy;
  fb::Table root;
  explicit Nav(const std::vector<uint8_t>& b) : copy(b.size()) {
    std::memcpy(copy.data(), b.data(), b.size());
    root = fb::root(copy.data());
  }
  size_t pos(fb::Table t, int id) const {
    return static_cast<size_t>(t.pointer() + t.field_offset(id) - copy.data());
  }
  fb::Table plan() const { return fb::Table(root.vector(schema::program::kExecutionPlan).ref(0)); }
  fb::Table value(uint32_t i) const {
    return fb::Table(plan().vector(schema::plan::kValues).ref(i)).table(schema::evalue::kVal);
  }
};

template <typename T>
void put(std::vector<uint8_t>& b, size_t pos, T v) {
  std::memcpy(b.data() + pos, &v, sizeof(T));
}

TEST(Malformed, EveryTruncationFailsCleanly) {
  ETMCU_NEEDS_CORPUS();
  for (const char* name : {kAddModel, kAddTwo}) {
    std::vector<uint8_t> full = bytes_of(name);
    for (size_t n = 0; n < full.size(); ++n) {
      std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
      Outcome o = load_only(cut);
      EXPECT_NE(o.error, Error::Ok) << name << " truncated to " << n;
    }
  }
}

TEST(Malformed, EveryHeaderByteCorruptedNeverCrashes) {
  ETMCU_NEEDS_CORPUS();
  for (const char* name : {kAddModel, kKws}) {
    std::vector<uint8_t> full = bytes_of(name);
    for (size_t i = 0; i < 64; ++i) {
      for (uint8_t v : {0x00, 0x01, 0x7f, 0x80, 0xff}) {
        std::vector<uint8_t> b = full;
        if (b[i] == v) continue;
        b[i] = v;
        (void)try_all(b);  // must not crash or read out of bounds (ASan checks)
      }
    }
  }
}

TEST(Malformed, ByteFlipsAcrossTheWholeFileNeverCrash) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> full = bytes_of(kAddTwo);
  for (size_t i = 0; i < full.size(); ++i) {
    std::vector<uint8_t> b = full;
    b[i] ^= 0xa5;
    (void)try_all(b);
  }
}

// Zeroing a vtable entry makes a field absent: a union value whose tag is set, a required table or
// vector. Zeroing every aligned halfword hits every vtable entry of the file (and much else).
TEST(Malformed, EveryHalfwordZeroedNeverCrashes) {
  ETMCU_NEEDS_CORPUS();
  for (const char* name :
       {kAddModel, kAddTwo,
        "upstream/test__models__deprecated__ModuleLinear-no-constant-segment.pte",
        "upstream-history/hist-89829b5f__extension__module__test__resources__model.pte",
        "upstream/extension__module__test__resources__bundled_program.bpte.embedded-program.pte"}) {
    std::vector<uint8_t> full = bytes_of(name);
    for (size_t i = 0; i + 2 <= full.size(); i += 2) {
      if (full[i] == 0 && full[i + 1] == 0) continue;
      std::vector<uint8_t> b = full;
      b[i] = b[i + 1] = 0;
      (void)try_all(b);
    }
  }
}

TEST(Malformed, WrongIdentifier) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> b = bytes_of(kAddTwo);
  std::memcpy(b.data() + 4, "XXXX", 4);
  expect_fails_with(b, "not an ExecuTorch program");
  std::memcpy(b.data() + 4, "ET13", 4);
  expect_fails_with(b, "incompatible program version");
}

TEST(Malformed, ExtendedHeaderFields) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> base = bytes_of(kAddModel);
  std::vector<uint8_t> b = base;
  std::memcpy(b.data() + 8, "eh01", 4);
  expect_fails_with(b, "not eh00");
  b = base;
  put<uint32_t>(b, 12, 8);
  expect_fails_with(b, "extended header length too small");
  b = base;
  put<uint32_t>(b, 12, 0x7fffffff);
  expect_fails_with(b, "extended header runs past the end");
  b = base;
  put<uint64_t>(b, 16, b.size() + 1);
  expect_fails_with(b, "program_size outside the file");
  b = base;
  put<uint64_t>(b, 24, b.size() + 128);
  expect_fails_with(b, "segment_base_offset outside the file");
  b = base;
  put<uint64_t>(b, 32, 1u << 30);
  expect_fails_with(b, "file truncated");
}

TEST(Malformed, SegmentAndConstantOffsets) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> base = bytes_of(kAddModel);
  Nav nav(base);
  // (Fields equal to their default are not stored, so only stored ones can be corrupted in place.)
  fb::Table seg(nav.root.vector(schema::program::kSegments).ref(0));
  std::vector<uint8_t> b = base;
  put<uint64_t>(b, nav.pos(seg, schema::segment::kSize), ~0ull);
  expect_fails_with(b, "segment runs past the end of the file");
  b = base;
  put<uint64_t>(b, nav.pos(seg, schema::segment::kSize), 5);
  expect_fails_with(b, "segment runs past the end of the file");
  fb::Vector offsets =
      nav.root.table(schema::program::kConstantSegment).vector(schema::subseg::kOffsets);
  b = base;
  put<uint64_t>(b, static_cast<size_t>(offsets.base - nav.copy.data()) + 8, 1u << 20);
  expect_fails_with(b, "constant offset past the end of the constant segment");
  b = base;
  put<uint32_t>(b, static_cast<size_t>(offsets.base - nav.copy.data()) - 4, 1u << 24);
  expect_fails_with(b, "vector runs past the end of the buffer");
}

TEST(Malformed, TensorFieldsAndIndices) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> base = bytes_of(kAddModel);
  Nav nav(base);
  // Value 0 is the constant tensor (data_buffer_idx 1); value 1 the planned input.
  fb::Table constant = nav.value(0), input = nav.value(1);
  std::vector<uint8_t> b = base;
  put<uint32_t>(b, nav.pos(constant, schema::tensor::kDataBufferIdx), 99);
  expect_fails_with(b, "data_buffer_idx out of range");
  fb::Table alloc = input.table(schema::tensor::kAllocationInfo);
  b = base;
  put<uint32_t>(b, nav.pos(alloc, schema::alloc::kMemoryId), 5);
  expect_fails_with(b, "memory_id out of range");
  b = base;
  put<uint32_t>(b, nav.pos(alloc, schema::alloc::kOffsetLow), 1u << 30);
  expect_fails_with(b, "planned tensor runs past the end of its buffer");
  b = base;
  put<int8_t>(b, nav.pos(input, schema::tensor::kScalarType), 9);
  expect_fails_with(b, "scalar_type unknown");
  fb::Vector sizes = input.vector(schema::tensor::kSizes);
  b = base;
  put<int32_t>(b, static_cast<size_t>(sizes.base - nav.copy.data()), -3);
  expect_fails_with(b, "negative size");
  b = base;
  put<int32_t>(b, static_cast<size_t>(sizes.base - nav.copy.data()), 0x7fffffff);
  expect_fails_with(b, "larger than 2 GiB");
  b = base;
  put<int32_t>(b, static_cast<size_t>(sizes.base - nav.copy.data()), 1000);
  expect_fails_with(b, "planned tensor runs past the end");
  fb::Vector order = input.vector(schema::tensor::kDimOrder);
  b = base;
  b[static_cast<size_t>(order.base - nav.copy.data())] = 3;
  expect_fails_with(b, "dim_order is not a permutation");
}

TEST(Malformed, InstructionIndices) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> base = bytes_of(kKws);
  Nav nav(base);
  fb::Table chain(nav.plan().vector(schema::plan::kChains).ref(0));
  fb::Table call =
      fb::Table(chain.vector(schema::chain::kInstructions).ref(1)).table(schema::instr::kArgs);
  ASSERT_TRUE(call.has(schema::call::kIndex));  // op_index 0 would not be stored
  std::vector<uint8_t> b = base;
  put<int32_t>(b, nav.pos(call, schema::call::kIndex), 300);
  expect_fails_with(b, "op_index out of range");
  fb::Vector args = call.vector(schema::call::kArgs);
  b = base;
  put<int32_t>(b, static_cast<size_t>(args.base - nav.copy.data()), 100000);
  expect_fails_with(b, "value index out of range");
  b = base;
  put<int32_t>(b, static_cast<size_t>(args.base - nav.copy.data()), -1);
  expect_fails_with(b, "value index out of range");
}

TEST(Malformed, VtableFieldOffsetPastTheBuffer) {
  ETMCU_NEEDS_CORPUS();
  // A vtable entry (field offset) far past the end of the buffer (found by the fuzzer).
  std::vector<uint8_t> base = bytes_of(kAddModel);
  Nav nav(base);
  fb::Table plan = nav.plan();
  const uint8_t* vt = plan.pointer() - fb::read<int32_t>(plan.pointer());
  size_t entry = static_cast<size_t>(vt - nav.copy.data()) + 4 + 2 * schema::plan::kValues;
  std::vector<uint8_t> b = base;
  put<uint16_t>(b, entry, 0xfff0);
  expect_fails_with(b, "field runs past the end of the buffer");
}

TEST(Malformed, UnionTagOutOfRange) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> base = bytes_of(kAddModel);
  Nav nav(base);
  fb::Table ev(nav.plan().vector(schema::plan::kValues).ref(0));
  std::vector<uint8_t> b = base;
  b[nav.pos(ev, schema::evalue::kValType)] = 42;
  expect_fails_with(b, "unknown union type tag");
}

TEST(Malformed, InstructionWithoutTypeOrArguments) {
  ETMCU_NEEDS_CORPUS();
  // An instruction with neither its union tag nor its value (found by the fuzzer: the arguments of
  // the absent table were read from address 0). Instructions share their vtable with the EValues,
  // so the instruction is pointed at a new, empty vtable appended to the file (which has no
  // segments: its flatbuffer runs to the end).
  std::vector<uint8_t> b = bytes_of(kAddTwo);
  Nav nav(b);
  fb::Table in(fb::Table(nav.plan().vector(schema::plan::kChains).ref(0))
                   .vector(schema::chain::kInstructions)
                   .ref(0));
  size_t in_pos = static_cast<size_t>(in.pointer() - nav.copy.data());
  while (b.size() % 4 != 0) b.push_back(0);
  size_t vt_pos = b.size();
  for (uint8_t byte : {4, 0, 4, 0}) b.push_back(byte);  // vtable: 4 bytes, table: 4 bytes
  put<int32_t>(b, in_pos, static_cast<int32_t>(in_pos) - static_cast<int32_t>(vt_pos));
  expect_fails_with(b, "unknown instruction type");
}

TEST(Flatbuffer, AnAbsentTableReadsAsDefaults) {
  fb::Table absent;
  EXPECT_FALSE(absent.has(0));
  EXPECT_EQ(absent.scalar<int32_t>(1, 7), 7);
  EXPECT_EQ(absent.vector(2).size, 0u);
  EXPECT_FALSE(absent.table(3).valid());
  EXPECT_TRUE(absent.string(4).empty());
}

TEST(Malformed, MisalignedProgramBytes) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> b = bytes_of(kAddTwo);
  AlignedBytes buf(b.size() + 4);
  std::memcpy(buf.data() + 4, b.data(), b.size());
  Diagnostic d;
  auto p = Program::load(Span<const uint8_t>(buf.data() + 4, b.size()), &d);
  EXPECT_FALSE(p.ok());
  EXPECT_EQ(p.error(), Error::InvalidArgument);
}

// Verification::Minimal (firmware, whose embedded program the build verified) skips only the
// structural flatbuffer walk: it loads and runs every good program like the full check, still
// rejects bad identifiers, headers and root offsets, and the default still catches what only the
// structural walk sees.
Result<Program> load_with(const AlignedBytes& buf, size_t size, Program::Verification v,
                          Diagnostic* d) {
  return Program::load(Span<const uint8_t>(buf.data(), size), d, nullptr, v);
}

AlignedBytes aligned_copy(const std::vector<uint8_t>& b) {
  AlignedBytes buf(b.size());
  std::memcpy(buf.data(), b.data(), b.size());
  return buf;
}

TEST(Verification, MinimalLoadsAndRunsGoodPrograms) {
  ETMCU_NEEDS_CORPUS();
  for (const char* name : {kAddModel, kAddTwo, kKws}) {
    AlignedBytes buf = aligned_copy(bytes_of(name));
    Diagnostic d;
    auto p = load_with(buf, buf.size(), Program::Verification::Minimal, &d);
    ASSERT_TRUE(p.ok()) << name << ": " << host::describe(d);
    auto meta = p->method_meta("forward");
    ASSERT_TRUE(meta.ok()) << name;
    std::vector<uint8_t> method_pool(meta->method_allocator_bytes() + 16);
    std::vector<std::vector<uint8_t>> planned;
    std::vector<Span<uint8_t>> spans;
    for (size_t j = 0; j < meta->num_memory_planned_buffers(); ++j)
      planned.emplace_back(static_cast<size_t>(meta->memory_planned_buffer_size(j).get()) + 16);
    for (auto& v : planned) spans.emplace_back(v.data(), v.size());
    std::vector<uint8_t> temp_pool(1 << 16);
    HierarchicalAllocator planned_alloc(Span<Span<uint8_t>>(spans.data(), spans.size()));
    MemoryAllocator method_alloc(method_pool.data(), method_pool.size());
    MemoryAllocator temp_alloc(temp_pool.data(), temp_pool.size());
    MemoryManager memory(&method_alloc, &planned_alloc, &temp_alloc);
    auto m = p->load_method("forward", &memory, &d);
    ASSERT_TRUE(m.ok()) << name << ": " << host::describe(d);
    std::vector<std::vector<uint8_t>> inputs;
    for (size_t i = 0; i < m->inputs_size(); ++i) {
      if (!m->get_input(i).is_tensor()) continue;
      inputs.emplace_back(m->get_input(i).to_tensor().nbytes, 0);
      ASSERT_EQ(m->set_input_data(i, inputs.back().data(), inputs.back().size()), Error::Ok);
    }
    EXPECT_EQ(m->execute(), Error::Ok) << name << ": " << host::describe(m->diagnostic());
  }
}

TEST(Verification, MinimalStillChecksIdentifierHeaderAndRoot) {
  ETMCU_NEEDS_CORPUS();
  const std::vector<uint8_t> base = bytes_of(kAddModel);
  Diagnostic d;
  std::vector<uint8_t> b = base;
  b[5] = 'X';  // identifier
  AlignedBytes buf = aligned_copy(b);
  EXPECT_EQ(load_with(buf, b.size(), Program::Verification::Minimal, &d).error(),
            Error::InvalidProgram);
  b = base;
  put<uint64_t>(b, 16, base.size() + 1);  // eh00 program_size past the end
  buf = aligned_copy(b);
  EXPECT_EQ(load_with(buf, b.size(), Program::Verification::Minimal, &d).error(),
            Error::InvalidProgram);
  b = base;
  put<uint32_t>(b, 0, static_cast<uint32_t>(base.size()));  // root offset past the flatbuffer
  buf = aligned_copy(b);
  EXPECT_EQ(load_with(buf, b.size(), Program::Verification::Minimal, &d).error(),
            Error::InvalidProgram);
  EXPECT_EQ(d.error, Error::InvalidProgram);
  buf = aligned_copy(base);
  EXPECT_EQ(load_with(buf, 8, Program::Verification::Minimal, &d).error(), Error::InvalidProgram);
}

TEST(Verification, DefaultIsTheFullCheck) {
  ETMCU_NEEDS_CORPUS();
  // A union tag only the structural walk rejects: the default load fails, Minimal does not look.
  std::vector<uint8_t> b = bytes_of(kAddModel);
  Nav nav(b);
  fb::Table ev(nav.plan().vector(schema::plan::kValues).ref(0));
  b[nav.pos(ev, schema::evalue::kValType)] = 42;
  AlignedBytes buf = aligned_copy(b);
  Diagnostic d;
  EXPECT_EQ(Program::load(Span<const uint8_t>(buf.data(), b.size()), &d).error(),
            Error::InvalidProgram);
  EXPECT_EQ(load_with(buf, b.size(), Program::Verification::InternalConsistency, &d).error(),
            Error::InvalidProgram);
  EXPECT_TRUE(load_with(buf, b.size(), Program::Verification::Minimal, &d).ok());
}

TEST(Pools, TooSmallMethodAllocatorSaysHowMuchIsNeeded) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> b = bytes_of(kAddModel);
  AlignedBytes buf(b.size());
  std::memcpy(buf.data(), b.data(), b.size());
  auto program = Program::load(Span<const uint8_t>(buf.data(), b.size()));
  ASSERT_TRUE(program.ok());
  MethodMeta meta = program->method_meta("forward").get();
  size_t need = meta.method_allocator_bytes();
  alignas(16) static uint8_t pool[4096];
  alignas(16) static uint8_t arena[64];
  Span<uint8_t> planned_span(arena, sizeof(arena));
  HierarchicalAllocator planned(Span<Span<uint8_t>>(&planned_span, 1));
  for (size_t have : {size_t{0}, need / 2, need - 1}) {
    MemoryAllocator method_alloc(pool, have);
    MemoryManager mm(&method_alloc, &planned);
    Diagnostic d;
    auto m = program->load_method("forward", &mm, &d);
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.error(), Error::MemoryAllocationFailed);
    EXPECT_EQ(d.expected, static_cast<int64_t>(need));
  }
  MemoryAllocator exact(pool, need);
  MemoryManager mm(&exact, &planned);
  auto m = program->load_method("forward", &mm);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(exact.used(), need);  // the figure MethodMeta gives is exact
}

TEST(Pools, TooSmallPlannedBufferSaysHowMuchIsNeeded) {
  ETMCU_NEEDS_CORPUS();
  std::vector<uint8_t> b = bytes_of(kAddModel);
  AlignedBytes buf(b.size());
  std::memcpy(buf.data(), b.data(), b.size());
  auto program = Program::load(Span<const uint8_t>(buf.data(), b.size()));
  ASSERT_TRUE(program.ok());
  int64_t need = program->method_meta("forward")->memory_planned_buffer_size(0).get();
  alignas(16) static uint8_t pool[4096];
  alignas(16) static uint8_t arena[64];
  Span<uint8_t> small(arena, static_cast<size_t>(need - 1));
  HierarchicalAllocator planned(Span<Span<uint8_t>>(&small, 1));
  MemoryAllocator method_alloc(pool, sizeof(pool));
  MemoryManager mm(&method_alloc, &planned);
  Diagnostic d;
  auto m = program->load_method("forward", &mm, &d);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(d.expected, need);
  EXPECT_EQ(d.got, need - 1);
  HierarchicalAllocator none;
  MemoryManager mm2(&method_alloc, &none);
  Diagnostic d2;
  EXPECT_FALSE(program->load_method("forward", &mm2, &d2).ok());
  EXPECT_EQ(d2.expected, need);
}

TEST(Inputs, ExecuteRefusesUnsetInputsAndWrongShapes) {
  ETMCU_NEEDS_CORPUS();
  auto s = host::Session::open_files(test::corpus(kAddTwo));
  Method& m = s->load_method("forward");
  EXPECT_EQ(m.execute(), Error::InvalidState);
  float x[2] = {1, 2};
  EXPECT_EQ(m.set_input_data(0, x, 8), Error::InvalidArgument);  // program wants f32[1]
  int32_t i = 1;
  Tensor t = m.get_input(0).to_tensor();
  t.dtype = ScalarType::Int;
  t.data = &i;
  EXPECT_EQ(m.set_input(EValue::from_tensor(&t), 0), Error::InvalidArgument);
}

}  // namespace
}  // namespace etmcu
