// Method state in flash (docs/runtime.md): values are built per call from the program into the
// call buffer; only slots persist. These tests pin what execute() builds against what load
// verified, the limits load enforces, and what each verification level checks at load.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/core/features.h"
#include "runtime/executor/method_layout.h"
#include "runtime/executor/program.h"
#include "runtime/pte/schema.h"
#include "tests/runtime/corpus.h"
#include "tests/runtime/mini_program.h"
#include "tools/cli/file_io.h"
#include "tools/cli/session.h"

namespace etmcu {
namespace {

using test::build_program;
using test::CallSpec;
using test::TestPools;
using test::ValueSpec;

const char* kKws = "upstream/examples__arduino__examples__KeywordSpotting__model.pte";

// What one kernel call saw: each argument's tag, and for tensors data pointer, dtype and shape.
struct Seen {
  std::vector<Tag> tags;
  std::vector<const void*> data;
  std::vector<std::vector<int32_t>> sizes;
  std::vector<int64_t> ints;
};

Seen describe(Span<EValue*> args) {
  Seen s;
  for (EValue* a : args) {
    s.tags.push_back(a->tag);
    if (a->is_tensor()) {
      const Tensor& t = a->to_tensor();
      s.data.push_back(t.data);
      s.sizes.emplace_back(t.sizes, t.sizes + t.dim);
    } else if (a->is_int()) {
      s.ints.push_back(a->to_int());
    } else if (a->is_int_list()) {
      for (int64_t x : a->to_int_list()) s.ints.push_back(x);
    }
  }
  return s;
}

struct Recorder {
  Method* method = nullptr;
  std::vector<Seen> calls;
  static void before(void* ctx, uint32_t pc) {
    auto* r = static_cast<Recorder*>(ctx);
    if (r->method->instruction_kind(pc) != schema::kInstrKernelCall) return;
    if (r->calls.size() <= pc) r->calls.resize(pc + 1);
    r->calls[pc] = describe(r->method->current_args());
  }
};

// The KWS program: what execute() passes each kernel equals what bind_call() builds, every data
// pointer is set, and the method allocator is used to the byte MethodMeta announced.
TEST(MethodState, KwsCallsSeeWhatBindCallBuilds) {
  ETMCU_NEEDS_CORPUS();
  auto s = host::Session::open_files(test::corpus(kKws));
  Method& m = s->load_method("forward");
  std::vector<uint8_t> in(m.get_input(0).to_tensor().nbytes, 0);
  ASSERT_EQ(m.set_input_data(0, in.data(), in.size()), Error::Ok);
  Recorder rec;
  rec.method = &m;
  InstructionObserver obs;
  obs.before = &Recorder::before;
  obs.ctx = &rec;
  if (m.set_observer(obs) == Error::NotSupported) GTEST_SKIP() << "no instruction hooks";
  ASSERT_EQ(m.execute(), Error::Ok) << host::describe(m.diagnostic());
  ASSERT_EQ(rec.calls.size(), m.num_instructions());
  for (size_t i = 0; i < m.num_instructions(); ++i) {
    ASSERT_EQ(m.instruction_kind(i), schema::kInstrKernelCall);
    EXPECT_NE(m.kernel(i), nullptr);
    Result<Span<EValue*>> args = m.bind_call(i);
    ASSERT_TRUE(args.ok());
    EXPECT_EQ(args->size(), m.call_arg_indices(i).size());
    Seen again = describe(args.get());
    EXPECT_EQ(again.tags, rec.calls[i].tags) << "instruction " << i;
    EXPECT_EQ(again.data, rec.calls[i].data) << "instruction " << i;
    EXPECT_EQ(again.sizes, rec.calls[i].sizes) << "instruction " << i;
    EXPECT_EQ(again.ints, rec.calls[i].ints) << "instruction " << i;
    for (const void* p : again.data) EXPECT_NE(p, nullptr) << "instruction " << i;
  }
}

TEST(MethodState, MethodAllocatorIsExactAndSmall) {
  ETMCU_NEEDS_CORPUS();
  host::AlignedBytes bytes = host::read_file(test::corpus(kKws));
  Result<Program> p = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()));
  ASSERT_TRUE(p.ok());
  Result<MethodMeta> meta = p->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  size_t need = meta->method_allocator_bytes();
  // 289 values: the value table (16 B an EValue) alone took 4.6 KB before; on this 64-bit host
  // the slots, kernels and call buffer take well under 2 KB.
  EXPECT_LT(need, 2048u);
  TestPools pools(need, static_cast<size_t>(meta->memory_planned_buffer_size(0).get()));
  Result<Method> m = p->load_method("forward", &pools.mm);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(pools.method_alloc.used(), need);
}

// A tensor passed twice in one call is one Tensor (in-place kernels and the alias check compare
// addresses); bind_call on something that is not a call is an error, not a crash.
TEST(MethodState, OneTensorPerValueInACall) {
  std::vector<ValueSpec> v = {ValueSpec::tensor({2}, 0), ValueSpec::integer(1)};
  host::AlignedBytes bytes =
      build_program(v, {0}, {0}, {{"aten::add", "out", {0, 0, 1, 0}}}, {0, 8});
  Diagnostic d;
  Result<Program> p = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &d);
  ASSERT_TRUE(p.ok()) << d.what;
  TestPools pools(4096, 8);
  Result<Method> m = p->load_method("forward", &pools.mm, &d);
  ASSERT_TRUE(m.ok()) << d.what;
  Result<Span<EValue*>> args = m->bind_call(0);
  ASSERT_TRUE(args.ok());
  ASSERT_EQ(args->size(), 4u);
  EXPECT_EQ(&(*args)[0]->to_tensor(), &(*args)[1]->to_tensor());
  EXPECT_EQ(&(*args)[0]->to_tensor(), &(*args)[3]->to_tensor());
  EXPECT_EQ((*args)[2]->to_int(), 1);
  EXPECT_FALSE(m->bind_call(1).ok());  // only one instruction
}

// Slots are found through the slot map (32 values a word, the slots before each word): inputs,
// output and a kernel-written scalar spread over four words resolve to their own values, and a
// run through them computes x + y.
TEST(MethodState, SlotMapAcrossWords) {
  std::vector<ValueSpec> v(100, ValueSpec::integer(7));
  v[5] = ValueSpec::tensor({2}, 0);
  v[37] = ValueSpec::tensor({2}, 8);
  v[64] = ValueSpec::integer(1);  // alpha
  v[99] = ValueSpec::tensor({2}, 16);
  host::AlignedBytes bytes =
      build_program(v, {5, 37}, {99}, {{"aten::add", "out", {5, 37, 64, 99, 99}}}, {0, 24});
  Diagnostic d;
  Result<Program> p = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &d);
  ASSERT_TRUE(p.ok()) << d.what;
  TestPools pools(4096, 24);
  Result<Method> m = p->load_method("forward", &pools.mm, &d);
  ASSERT_TRUE(m.ok()) << d.what;
  const float x[2] = {1.5f, 2.0f}, y[2] = {0.25f, -4.0f};
  ASSERT_EQ(m->set_input_data(0, x, sizeof(x)), Error::Ok);
  ASSERT_EQ(m->set_input_data(1, y, sizeof(y)), Error::Ok);
  Error e = m->execute();
  char msg[256];
  ASSERT_EQ(e, Error::Ok) << format_diagnostic(m->diagnostic(), msg, sizeof(msg));
  const Tensor& out = m->get_output(0).to_tensor();
  EXPECT_EQ(out.const_data_ptr<float>()[0], 1.75f);
  EXPECT_EQ(out.const_data_ptr<float>()[1], -2.0f);
  EXPECT_EQ(m->get_input(0).to_tensor().data, pools.arena.data() + 0);
  EXPECT_EQ(m->get_input(1).to_tensor().data, pools.arena.data() + 8);
  EXPECT_EQ(out.data, pools.arena.data() + 16);
  EXPECT_EQ(m->set_input_data(1, y, 4), Error::InvalidArgument);          // wrong size, named
  EXPECT_EQ(m->set_input_data(2, y, sizeof(y)), Error::InvalidArgument);  // no such input
}

// A call of more than kMaxCallArgs arguments is refused at load, naming the limit.
TEST(MethodState, TooManyCallArgumentsAreRefused) {
  std::vector<ValueSpec> v = {ValueSpec::tensor({2}, 0), ValueSpec::integer(1)};
  std::vector<uint64_t> args(kMaxCallArgs + 1, 1);
  args.back() = 0;
  host::AlignedBytes bytes = build_program(v, {0}, {0}, {{"aten::add", "out", args}}, {0, 8});
  Diagnostic d;
  Result<Program> p = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &d);
  ASSERT_TRUE(p.ok()) << d.what;
  TestPools pools(1 << 20, 8);
  Result<Method> m = p->load_method("forward", &pools.mm, &d);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), Error::InvalidProgram);
  EXPECT_NE(std::string(d.what).find("more arguments"), std::string::npos) << d.what;
  EXPECT_EQ(d.expected, static_cast<int64_t>(kMaxCallArgs));
}

// An argument index out of range in the last of several calls is found (the layout checks every
// index once; load reports the instruction).
TEST(MethodState, BadArgumentIndexInALaterCallIsReported) {
  std::vector<ValueSpec> v = {ValueSpec::tensor({2}, 0), ValueSpec::integer(1)};
  host::AlignedBytes bytes = build_program(
      v, {0}, {0}, {{"aten::add", "out", {0, 0, 1, 0}}, {"aten::mul", "out", {0, 7, 0}}}, {0, 8});
  Diagnostic d;
  Result<Program> p = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), &d);
  ASSERT_TRUE(p.ok()) << d.what;
  TestPools pools(4096, 8);
  Result<Method> m = p->load_method("forward", &pools.mm, &d);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.error(), Error::InvalidProgram);
  EXPECT_STREQ(d.what, "value index out of range");
  EXPECT_EQ(d.index, 1);
  EXPECT_EQ(d.got, 7);
}

// A constant tensor no slot holds, with an unknown dtype: InternalConsistency (the default)
// refuses it at load, before execute could build it; Minimal (bytes verified before) trusts it.
TEST(MethodState, VerificationLevelDecidesWhatLoadChecks) {
  std::vector<ValueSpec> v = {ValueSpec::tensor({2}, 0), ValueSpec::tensor({2}, 8),
                              ValueSpec::integer(1)};
  v[1].dtype = 99;  // unknown ScalarType, not an input or output: rebuilt per call
  host::AlignedBytes bytes =
      build_program(v, {0}, {0}, {{"aten::add", "out", {0, 1, 2, 0}}}, {0, 16});
  Span<const uint8_t> span(bytes.data(), bytes.size());
  Diagnostic d;
  Result<Program> full = Program::load(span, &d);
  ASSERT_TRUE(full.ok()) << d.what;
  TestPools pools(4096, 16);
  Result<Method> m = full->load_method("forward", &pools.mm, &d);
  ASSERT_FALSE(m.ok());
  EXPECT_STREQ(d.what, "Tensor.scalar_type unknown");
  EXPECT_EQ(d.index, 1);
  Result<Program> minimal = Program::load(span, &d, nullptr, Program::Verification::Minimal);
  ASSERT_TRUE(minimal.ok());
  TestPools pools2(4096, 16);
  if (!kFeatureMutableData) {  // with it on, every tensor is checked (initial data to copy)
    EXPECT_TRUE(minimal->load_method("forward", &pools2.mm, &d).ok());
  } else {
    EXPECT_FALSE(minimal->load_method("forward", &pools2.mm, &d).ok());
  }
}

}  // namespace
}  // namespace etmcu
