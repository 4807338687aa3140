// A runtime built without tensor lists (ETMCU_FEATURE_TENSOR_LISTS=0, as firmware builds it for a
// program whose lists are all IntLists: upstream's KWS, our int8 exports) loads IntList programs
// and refuses a program with a tensor list at method load, with NotSupported naming the feature.
#include <gtest/gtest.h>

#include <string>

#include "runtime/core/features.h"
#include "tests/runtime/mini_program.h"

static_assert(etmcu::kFeatureLists && !etmcu::kFeatureTensorLists,
              "this test is compiled with lists but without tensor lists");

namespace etmcu {
namespace {

using test::evalue;
using test::FbBuilder;
using test::MiniProgram;
using Obj = FbBuilder::Obj;

// values: [Int 7, <list_tag> [item]], no instructions; the list is read at method load.
host::AlignedBytes list_program(uint8_t list_tag, int width, uint64_t item) {
  MiniProgram p;
  Obj e_int = p.b.declare(), e_list = p.b.declare(), int_val = p.b.declare(),
      list_val = p.b.declare(), chain = p.b.declare(), instrs = p.b.declare(),
      items = p.b.declare();
  p.b.vec_refs({e_int, e_list}, p.values);
  p.b.vec(4, 0, 0, {}, p.inputs);
  p.b.vec(4, 0, 0, {}, p.outputs);
  p.b.vec_refs({chain}, p.chains);
  p.b.vec(8, 1, 0, {}, p.sizes);
  evalue(p.b, schema::kTagInt, int_val, e_int);
  evalue(p.b, list_tag, list_val, e_list);
  p.b.table({FbBuilder::u64(0, 7)}, int_val);
  p.b.table({FbBuilder::ref(0, items)}, list_val);
  p.b.vec(width, 1, 0, {item}, items);
  p.b.table({FbBuilder::ref(schema::chain::kInstructions, instrs)}, chain);
  p.b.vec_refs({}, instrs);
  return p.finish();
}

Error load(const host::AlignedBytes& bytes, Diagnostic* diag) {
  auto program = Program::load(Span<const uint8_t>(bytes.data(), bytes.size()), diag);
  if (!program.ok()) return program.error();
  test::TestPools pools(4096);
  auto method = program->load_method("forward", &pools.mm, diag);
  return method.ok() ? Error::Ok : method.error();
}

TEST(TensorListsOff, IntListProgramLoads) {
  Diagnostic diag;
  EXPECT_EQ(load(list_program(schema::kTagIntList, 8, 0), &diag), Error::Ok) << diag.what;
}

TEST(TensorListsOff, TensorListProgramIsRefusedNamingTheFeature) {
  // an OptionalTensorList of one None (-1): a tensor list without any tensor value
  Diagnostic diag;
  EXPECT_EQ(load(list_program(schema::kTagOptionalTensorList, 4, 0xffffffffu), &diag),
            Error::NotSupported);
  EXPECT_NE(std::string(diag.what).find("TENSOR_LISTS"), std::string::npos) << diag.what;
}

}  // namespace
}  // namespace etmcu
