// Every file of the shared corpus loads, or fails with the expected clean error; the programs our
// kernels cover run (numerical checks against numpy live in tests/python/test_corpus_numpy.py).
#include <gtest/gtest.h>

#include <cstring>

#include "tests/runtime/corpus.h"
#include "tools/cli/file_io.h"
#include "tools/cli/session.h"

namespace etmcu {
namespace {

using host::Session;
using test::corpus;

std::string load_error(const std::string& file, const std::string& method = "forward",
                       const std::string& data = "") {
  try {
    auto s = Session::open_files(corpus(file), data.empty() ? "" : corpus(data));
    s->load_method(method);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::vector<float> run_f32(const std::string& file, const std::vector<std::vector<float>>& inputs) {
  auto s = Session::open_files(corpus(file));
  Method& m = s->load_method("forward");
  for (size_t i = 0; i < inputs.size(); ++i)
    EXPECT_EQ(m.set_input_data(i, inputs[i].data(), inputs[i].size() * 4), Error::Ok);
  EXPECT_EQ(m.execute(), Error::Ok) << host::describe(m.diagnostic());
  const Tensor& t = m.get_output(0).to_tensor();
  EXPECT_EQ(t.dtype, ScalarType::Float);
  const float* p = t.const_data_ptr<float>();
  return std::vector<float>(p, p + t.numel());
}

TEST(Corpus, ArduinoAddModelAddsOne) {
  ETMCU_NEEDS_CORPUS();
  for (const char* f : {"upstream/examples__arduino__examples__AddModel__model.pte",
                        "upstream/examples__arduino__examples__HelloExecuTorch__model.pte"}) {
    EXPECT_EQ(run_f32(f, {{1, 2, 3}}), (std::vector<float>{2, 3, 4})) << f;
  }
}

TEST(Corpus, AddTwoInputs) {
  ETMCU_NEEDS_CORPUS();
  for (const char* f :
       {"upstream/extension__apple__ExecuTorch____tests____resources__add.pte",
        "upstream-history/hist-8f6de2cd__extension__module__test__resources__add.pte"}) {
    EXPECT_EQ(run_f32(f, {{1.5f}, {2.25f}}), (std::vector<float>{3.75f})) << f;
  }
}

TEST(Corpus, DeprecatedInlineConstantBuffer) {
  ETMCU_NEEDS_CORPUS();
  // 3*x + 2 with constants in the deprecated inline constant_buffer.
  EXPECT_EQ(run_f32("upstream/test__models__deprecated__ModuleLinear-no-constant-segment.pte",
                    {{0, 1, -2, 0.5f}}),
            (std::vector<float>{2, 5, -4, 3.5f}));
}

TEST(Corpus, BundledEmbeddedProgramInt32) {
  ETMCU_NEEDS_CORPUS();
  auto s = Session::open_files(corpus(
      "upstream/extension__module__test__resources__bundled_program.bpte.embedded-program.pte"));
  Method& m = s->load_method("forward");
  int32_t x[4] = {1, -2, 3, 0}, y[4] = {10, 20, 30, 40};
  ASSERT_EQ(m.set_input_data(0, x, sizeof(x)), Error::Ok);
  ASSERT_EQ(m.set_input_data(1, y, sizeof(y)), Error::Ok);
  ASSERT_EQ(m.execute(), Error::Ok) << host::describe(m.diagnostic());
  const int32_t* out = m.get_output(0).to_tensor().const_data_ptr<int32_t>();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], 3 * x[i] + 2 + y[i]);
}

TEST(Corpus, OldLayoutPtdIsRejectedClearly) {
  ETMCU_NEEDS_CORPUS();
  std::string e = load_error(
      "upstream-history/hist-8f6de2cd__extension__module__test__resources__linear.pte", "forward",
      "upstream-history/hist-8f6de2cd__extension__module__test__resources__linear.ptd");
  EXPECT_NE(e.find("InvalidExternalData"), std::string::npos) << e;
  EXPECT_NE(e.find("old FlatTensor layout"), std::string::npos) << e;
}

TEST(Corpus, ExternalTensorWithoutPtdNamesTheTensor) {
  ETMCU_NEEDS_CORPUS();
  std::string e =
      load_error("upstream-history/hist-8f6de2cd__extension__module__test__resources__linear.pte");
  EXPECT_NE(e.find("'linear.weight'"), std::string::npos) << e;
}

TEST(Corpus, QnnProgramLoadsAndReportsMissingBackend) {
  ETMCU_NEEDS_CORPUS();
  auto s = Session::open_files(corpus(
      "upstream/"
      "examples__qualcomm__oss_scripts__llama__artifacts__stories260k_hybrid_llama_qnn.pte"));
  EXPECT_EQ(s->program().num_methods(), 29u);
  for (const char* m : {"kv_forward", "prefill_forward"}) {
    std::string e = load_error(
        "upstream/"
        "examples__qualcomm__oss_scripts__llama__artifacts__stories260k_hybrid_llama_qnn.pte",
        m);
    EXPECT_NE(e.find("NotFound"), std::string::npos) << e;
    EXPECT_NE(e.find("'QnnBackend'"), std::string::npos) << e;
  }
  // Constant methods (0 instructions) run and return their metadata.
  for (size_t i = 0; i < s->program().num_methods(); ++i) {
    std::string name = s->program().get_method_name(i).get();
    if (name.rfind("get_", 0) != 0) continue;
    Method& m = s->load_method(name);
    EXPECT_EQ(m.method_meta().num_instructions(), 0u) << name;
    EXPECT_EQ(m.execute(), Error::Ok) << name;
    EXPECT_GE(m.outputs_size(), 1u) << name;
  }
  Method& m = s->load_method("get_max_seq_len");
  ASSERT_TRUE(m.get_output(0).is_int());
  EXPECT_EQ(m.get_output(0).to_int(), 128);
}

TEST(Corpus, KeywordSpottingRunsAndHearsYes) {
  ETMCU_NEEDS_CORPUS();
  // Bit-exactness against upstream per layer is tests/kernels/int8; here: it loads and labels
  // "yes".
  auto s = Session::open_files(
      corpus("upstream/examples__arduino__examples__KeywordSpotting__model.pte"));
  Method& m = s->load_method("forward");
  host::AlignedBytes x =
      host::read_file(test::shared("pte-corpus/upstream/kws_test_inputs/mfcc_yes.f32.bin"));
  ASSERT_EQ(m.set_input_data(0, x.data(), x.size()), Error::Ok) << host::describe(m.diagnostic());
  ASSERT_EQ(m.execute(), Error::Ok) << host::describe(m.diagnostic());
  const Tensor& out = m.get_output(0).to_tensor();
  ASSERT_EQ(out.numel(), 12u);
  const float* p = out.const_data_ptr<float>();
  int best = 0;
  for (int k = 1; k < 12; ++k)
    if (p[k] > p[best]) best = k;
  EXPECT_EQ(best, 2);  // [silence, unknown, yes, ...]
}

TEST(Corpus, EtdumpIsNotAProgram) {
  ETMCU_NEEDS_CORPUS();
  std::string e = load_error("upstream/docs__source__tutorials_source__etdump.etdp");
  EXPECT_NE(e.find("not an ExecuTorch program"), std::string::npos) << e;
}

TEST(Corpus, MeanEqWhereModel) {
  ETMCU_NEEDS_CORPUS();
  // m = mean(x, dim=1); out = where(m == 0, 1.1, m)
  const char* f = "upstream-history/hist-89829b5f__extension__module__test__resources__model.pte";
  std::string e = load_error(f);
  if (e.find("OperatorMissing") != std::string::npos)
    GTEST_SKIP() << "kernels not linked yet: " << e;
  EXPECT_EQ(run_f32(f, {{1, 3}}), (std::vector<float>{2}));
  EXPECT_EQ(run_f32(f, {{-1, 1}}), (std::vector<float>{1.1f}));
}

}  // namespace
}  // namespace etmcu
