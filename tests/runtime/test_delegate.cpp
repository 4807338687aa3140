// Delegation end to end with a test backend standing in for "QnnBackend" on the real QNN program:
// payload and compile specs reach init, execute gets the DelegateCall's values, destroy runs.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "runtime/backend/backend.h"
#include "tests/runtime/corpus.h"
#include "tools/cli/session.h"

namespace etmcu {
namespace {

const char* kQnn =
    "upstream/examples__qualcomm__oss_scripts__llama__artifacts__stories260k_hybrid_llama_qnn.pte";

struct Seen {
  size_t payload_size = 0;
  uint8_t payload_head[4] = {};
  std::string spec_key;
  size_t spec_bytes = 0;
  size_t executes = 0;
  size_t args = 0;
  int destroyed = 0;
};
Seen g_seen;
int g_handle;

class TestBackend final : public BackendInterface {
 public:
  bool is_available() const override { return true; }
  Result<DelegateHandle*> init(BackendInitContext& ctx, Span<const uint8_t> processed,
                               CompileSpecs specs) const override {
    g_seen.payload_size = processed.size();
    std::memcpy(g_seen.payload_head, processed.data(), 4);
    if (specs.size() > 0) {
      g_seen.spec_key = specs[0].key;
      g_seen.spec_bytes = specs[0].value.size();
    }
    EXPECT_NE(ctx.runtime_allocator, nullptr);
    return static_cast<DelegateHandle*>(&g_handle);
  }
  Error execute(BackendExecutionContext&, DelegateHandle* handle,
                Span<EValue*> args) const override {
    EXPECT_EQ(handle, &g_handle);
    ++g_seen.executes;
    g_seen.args = args.size();
    // Marks every output tensor (the last 11 args) with its position.
    for (size_t k = args.size() - 11; k < args.size(); ++k) {
      Tensor& t = args[k]->to_tensor();
      if (t.data == nullptr) return Error::InvalidState;
      std::memset(t.data, static_cast<int>(k), t.nbytes);
    }
    return Error::Ok;
  }
  void destroy(DelegateHandle* handle) const override {
    EXPECT_EQ(handle, &g_handle);
    ++g_seen.destroyed;
  }
};

const TestBackend kTestBackend;
const Backend kBackends[] = {{"QnnBackend", &kTestBackend}};

TEST(Delegate, TestBackendRunsTheQnnProgramsDelegateCall) {
  ETMCU_NEEDS_CORPUS();
  set_backend_table(Span<const Backend>(kBackends, 1));
  g_seen = Seen();
  {
    auto s = host::Session::open_files(test::corpus(kQnn));
    Method& m = s->load_method("kv_forward");
    EXPECT_EQ(g_seen.payload_size, 1331456u);
    EXPECT_EQ(g_seen.payload_head[0], 0xcd);
    EXPECT_EQ(g_seen.payload_head[3], 0x56);
    EXPECT_EQ(g_seen.spec_key, "qnn_compile_spec");
    EXPECT_EQ(g_seen.spec_bytes, 200u);
    std::vector<std::vector<uint8_t>> in(m.inputs_size()), out(m.outputs_size());
    for (size_t i = 0; i < m.inputs_size(); ++i) {
      Tensor t = m.get_input(i).to_tensor();
      in[i].assign(t.nbytes, 1);
      t.data = in[i].data();  // unplanned: the method shares this memory
      ASSERT_EQ(m.set_input(EValue::from_tensor(&t), i), Error::Ok);
    }
    for (size_t o = 0; o < m.outputs_size(); ++o) {
      out[o].assign(m.get_output(o).to_tensor().nbytes, 0);
      ASSERT_EQ(m.set_output_data_ptr(out[o].data(), out[o].size(), o), Error::Ok);
    }
    ASSERT_EQ(m.execute(), Error::Ok) << host::describe(m.diagnostic());
    EXPECT_EQ(g_seen.executes, 1u);
    EXPECT_EQ(g_seen.args, 24u);
    for (size_t o = 0; o < m.outputs_size(); ++o) EXPECT_NE(out[o][0], 0) << "output " << o;
  }
  EXPECT_EQ(g_seen.destroyed, 1);
  set_backend_table(Span<const Backend>());
}

class UnavailableBackend final : public BackendInterface {
 public:
  bool is_available() const override { return false; }
  Result<DelegateHandle*> init(BackendInitContext&, Span<const uint8_t>,
                               CompileSpecs) const override {
    return Error::Internal;
  }
  Error execute(BackendExecutionContext&, DelegateHandle*, Span<EValue*>) const override {
    return Error::Internal;
  }
};

TEST(Delegate, UnavailableBackendFailsAtLoad) {
  ETMCU_NEEDS_CORPUS();
  static const UnavailableBackend unavailable;
  static const Backend table[] = {{"QnnBackend", &unavailable}};
  set_backend_table(Span<const Backend>(table, 1));
  auto s = host::Session::open_files(test::corpus(kQnn));
  try {
    s->load_method("kv_forward");
    ADD_FAILURE() << "load should fail";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("not available"), std::string::npos) << e.what();
  }
  set_backend_table(Span<const Backend>());
}

}  // namespace
}  // namespace etmcu
