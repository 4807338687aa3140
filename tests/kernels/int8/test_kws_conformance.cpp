// The upstream int8 keyword-spotting program on the host runtime with the cortex_m kernels:
// every instruction's output tensor and the final logits must equal upstream + CMSIS-NN bit for bit
// (kws_reference), and all ten real inputs must be labelled as upstream labels them.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/runtime/corpus.h"
#include "tools/cli/session.h"

namespace etmcu {
namespace {

const std::string kUpstream = std::string(ETMCU_SHARED_DIR) + "/pte-corpus/upstream/";
const std::string kProgram = kUpstream + "examples__arduino__examples__KeywordSpotting__model.pte";

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}
nlohmann::json read_json(const std::string& path) {
  std::ifstream f(path);
  EXPECT_TRUE(f.good()) << path;
  return nlohmann::json::parse(f);
}

// Snapshot of every instruction's output (its trailing return value) right after it runs.
struct Recorder {
  Method* method = nullptr;
  std::vector<std::vector<uint8_t>> outs;
  static void after(void* ctx, uint32_t pc) {
    auto* r = static_cast<Recorder*>(ctx);
    Span<EValue*> args = r->method->current_args();  // those of instruction pc
    const Tensor& t = args[args.size() - 1]->to_tensor();
    const uint8_t* p = static_cast<const uint8_t*>(t.data);
    if (r->outs.size() <= pc) r->outs.resize(pc + 1);
    r->outs[pc].assign(p, p + t.numel() * t.element_size());
  }
};

struct KwsRun {
  std::vector<std::vector<uint8_t>> outs;
  std::vector<float> logits;
};

KwsRun run(const std::string& input_file) {
  auto s = host::Session::open_files(kProgram);
  Method& m = s->load_method("forward");
  std::vector<uint8_t> in = read_bytes(kUpstream + "kws_test_inputs/" + input_file);
  EXPECT_EQ(in.size(), 490u * 4);
  EXPECT_EQ(m.set_input_data(0, in.data(), in.size()), Error::Ok);
  Recorder rec;
  rec.method = &m;
  InstructionObserver obs;
  obs.after = &Recorder::after;
  obs.ctx = &rec;
  m.set_observer(obs);
  const Error e = m.execute();
  EXPECT_EQ(e, Error::Ok) << host::describe(m.diagnostic());
  KwsRun r;
  r.outs = rec.outs;
  const Tensor& t = m.get_output(0).to_tensor();
  r.logits.assign(t.const_data_ptr<float>(), t.const_data_ptr<float>() + t.numel());
  return r;
}

class KwsReference : public ::testing::TestWithParam<const char*> {};

TEST_P(KwsReference, EveryInstructionBitExact) {
  ETMCU_NEEDS_CORPUS();
  const std::string word = GetParam();
  const nlohmann::json index = read_json(kUpstream + "kws_reference/index.json");
  const nlohmann::json ref = read_json(kUpstream + "kws_reference/kws_reference.json");
  KwsRun r = run("mfcc_" + word + ".f32.bin");
  const auto& entries = index["inputs"]["mfcc_" + word + ".f32.bin"];
  ASSERT_EQ(r.outs.size(), index["instructions"].size());
  ASSERT_EQ(entries.size(), r.outs.size());
  for (const auto& e : entries) {
    const size_t i = e["index"].get<size_t>();
    std::string file = e["file"].get<std::string>();
    file = file.substr(file.find('/') + 1);  // "layers/mfcc_yes/..." -> "mfcc_yes/..."
    const std::vector<uint8_t> want = read_bytes(kUpstream + "kws_reference/" + file);
    const std::string op = index["instructions"][i]["op"].get<std::string>();
    ASSERT_EQ(r.outs[i].size(), want.size()) << "instruction " << i << " " << op;
    size_t diffs = 0, first = 0;
    for (size_t k = 0; k < want.size(); ++k)
      if (r.outs[i][k] != want[k] && diffs++ == 0) first = k;
    EXPECT_EQ(diffs, 0u) << "instruction " << i << " " << op << ": " << diffs
                         << " bytes differ, first at " << first;
  }
  // The final float32 logits, as hex bit patterns.
  for (const auto& c : ref["cases"]) {
    if (c["input"] != "mfcc_" + word + ".f32.bin") continue;
    const auto& hex = c["outputs_f32_hex"];
    ASSERT_EQ(hex.size(), r.logits.size());
    for (size_t k = 0; k < hex.size(); ++k) {
      uint32_t bits;
      std::memcpy(&bits, &r.logits[k], 4);
      EXPECT_EQ(bits, std::stoul(hex[k].get<std::string>(), nullptr, 16)) << "logit " << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Upstream, KwsReference, ::testing::Values("yes", "no", "up"));

TEST(Kws, TenRealInputsLabelled) {
  ETMCU_NEEDS_CORPUS();
  const nlohmann::json labels = read_json(kUpstream + "kws_test_inputs/labels.json");
  const nlohmann::json ref = read_json(kUpstream + "kws_reference/kws_reference.json");
  const auto& classes = ref["class_order"];
  int correct = 0;
  for (auto it = labels.begin(); it != labels.end(); ++it) {
    if (it.key().rfind("mfcc_", 0) != 0) continue;  // skip _provenance etc.
    KwsRun r = run(it.key());
    size_t best = 0;
    for (size_t k = 1; k < r.logits.size(); ++k)
      if (r.logits[k] > r.logits[best]) best = k;
    const std::string got = classes[best].get<std::string>();
    const std::string want = it.value()["label"].get<std::string>();
    std::printf("[kws] %-20s expected %-6s predicted %-6s %s\n", it.key().c_str(), want.c_str(),
                got.c_str(), got == want ? "ok" : "WRONG");
    EXPECT_EQ(got, want) << it.key();
    correct += got == want;
  }
  std::printf("[kws] %d/10 correct\n", correct);
  EXPECT_EQ(correct, 10);
}

}  // namespace
}  // namespace etmcu
