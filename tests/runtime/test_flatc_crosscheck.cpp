// The hand-written reader against Debian's flatc: every corpus program is decoded by
// `flatc --json` with schema/program.fbs, and the two views (methods, values, tensors, memory plan,
// instructions, operators, segments) must agree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runtime/pte/schema.h"
#include "tests/runtime/corpus.h"
#include "tools/cli/session.h"

namespace etmcu {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

json flatc_json(const std::string& pte) {
  fs::path out = fs::temp_directory_path() / ("etmcu_flatc_" + std::to_string(::getpid()));
  fs::create_directories(out);
  std::string cmd = "flatc --json --raw-binary --strict-json --defaults-json -o " + out.string() +
                    " " + std::string(ETMCU_SOURCE_DIR) + "/schema/program.fbs -- " + pte + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  fs::path file = out / (fs::path(pte).stem().string() + ".json");
  std::ifstream in(file);
  json j = json::parse(in);
  fs::remove_all(out);
  return j;
}

void compare(const std::string& name) {
  SCOPED_TRACE(name);
  std::string path = test::corpus(name);
  json j = flatc_json(path);
  auto s = host::Session::open_files(path);
  const PteFile& f = s->program().file();
  fb::Table root = f.program();
  ASSERT_EQ(s->program().num_methods(), j["execution_plan"].size());
  EXPECT_EQ(f.num_segments(), j.value("segments", json::array()).size());
  for (size_t k = 0; k < f.num_segments(); ++k)
    EXPECT_EQ(f.segment(static_cast<uint32_t>(k)).size(), j["segments"][k]["size"].get<uint64_t>());
  for (size_t m = 0; m < s->program().num_methods(); ++m) {
    const json& plan = j["execution_plan"][m];
    fb::Table p(root.vector(schema::program::kExecutionPlan).ref(static_cast<uint32_t>(m)));
    EXPECT_EQ(std::string(s->program().get_method_name(m).get()), plan["name"].get<std::string>());
    fb::Vector values = p.vector(schema::plan::kValues);
    ASSERT_EQ(values.size, plan["values"].size());
    for (uint32_t v = 0; v < values.size; ++v) {
      const json& jv = plan["values"][v];
      fb::Table ev(values.ref(v));
      fb::Table val = ev.table(schema::evalue::kVal);
      std::string type = jv["val_type"];
      if (type != "Tensor") continue;
      EXPECT_EQ(ev.scalar<uint8_t>(schema::evalue::kValType), schema::kTagTensor);
      fb::Vector sizes = val.vector(schema::tensor::kSizes);
      ASSERT_EQ(sizes.size, jv["val"]["sizes"].size());
      for (uint32_t d = 0; d < sizes.size; ++d)
        EXPECT_EQ(sizes.scalar<int32_t>(d), jv["val"]["sizes"][d].get<int32_t>());
      EXPECT_EQ(val.scalar<uint32_t>(schema::tensor::kDataBufferIdx),
                jv["val"]["data_buffer_idx"].get<uint32_t>());
      if (jv["val"].contains("allocation_info") && !jv["val"]["allocation_info"].is_null()) {
        fb::Table a = val.table(schema::tensor::kAllocationInfo);
        ASSERT_TRUE(a.valid());
        EXPECT_EQ(a.scalar<uint32_t>(schema::alloc::kMemoryId),
                  jv["val"]["allocation_info"]["memory_id"].get<uint32_t>());
        EXPECT_EQ(a.scalar<uint32_t>(schema::alloc::kOffsetLow),
                  jv["val"]["allocation_info"]["memory_offset_low"].get<uint32_t>());
      }
    }
    fb::Vector ops = p.vector(schema::plan::kOperators);
    ASSERT_EQ(ops.size, plan.value("operators", json::array()).size());
    for (uint32_t k = 0; k < ops.size; ++k)
      EXPECT_EQ(std::string(fb::Table(ops.ref(k)).string(schema::op::kName).data),
                plan["operators"][k]["name"].get<std::string>());
    fb::Vector sizes = p.vector(schema::plan::kNonConstBufferSizes);
    ASSERT_EQ(sizes.size, plan["non_const_buffer_sizes"].size());
    for (uint32_t k = 0; k < sizes.size; ++k)
      EXPECT_EQ(sizes.scalar<int64_t>(k), plan["non_const_buffer_sizes"][k].get<int64_t>());
    fb::Vector instrs =
        fb::Table(p.vector(schema::plan::kChains).ref(0)).vector(schema::chain::kInstructions);
    const json& jinstrs = plan["chains"][0].value("instructions", json::array());
    ASSERT_EQ(instrs.size, jinstrs.size());
    for (uint32_t k = 0; k < instrs.size; ++k) {
      fb::Vector args =
          fb::Table(instrs.ref(k)).table(schema::instr::kArgs).vector(schema::call::kArgs);
      const json& jargs = jinstrs[k]["instr_args"]["args"];
      ASSERT_EQ(args.size, jargs.size());
      for (uint32_t a = 0; a < args.size; ++a)
        EXPECT_EQ(args.scalar<int32_t>(a), jargs[a].get<int32_t>());
    }
  }
}

TEST(FlatcCrossCheck, EveryCorpusProgram) {
  ETMCU_NEEDS_CORPUS();
  for (const auto& dir : {"upstream", "upstream-history"})
    for (const auto& e : fs::directory_iterator(test::corpus(dir)))
      if (e.path().extension() == ".pte")
        compare(std::string(dir) + "/" + e.path().filename().string());
}

}  // namespace
}  // namespace etmcu
