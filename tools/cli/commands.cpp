// The run, run --verify and inspect commands of etmcu-cli.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "runtime/pte/schema.h"
#include "runtime/pte/verifier.h"
#include "tools/cli/file_io.h"
#include "tools/cli/session.h"
#include "tools/cli/tensor_io.h"
#include "tools/cli/value_format.h"

using nlohmann::json;
namespace fs = std::filesystem;

namespace etmcu::host {

namespace {

std::string ends(const std::string& s, size_t n) {
  return s.size() >= n ? s.substr(s.size() - n) : "";
}

// Reads input file `path` for tensor input `index` with the program's dtype and shape. A .npy
// is in logical order and is written in the tensor's dim order; a float32 .npy for an int8
// input of a program with int8 I/O is quantized with the input's recorded scale/zero point.
std::vector<uint8_t> input_bytes(const std::string& path, const TensorInfo& info, size_t index,
                                 const Result<QuantParams>& quant) {
  if (ends(path, 4) == ".npy")
    return input_from_array(read_npy(path), "'" + path + "'", index, info, quant);
  AlignedBytes raw = read_file(path);
  if (raw.size() != info.nbytes)
    throw std::runtime_error("input " + std::to_string(index) + " ('" + path + "') has " +
                             std::to_string(raw.size()) + " bytes, the program expects " +
                             std::to_string(info.nbytes) + " (" + scalar_type_name(info.dtype) +
                             ")");
  return std::vector<uint8_t>(raw.data(), raw.data() + raw.size());
}

}  // namespace

namespace {

struct Layer {
  std::string name, source;  // module path ("features.3"), "file.py:12"
};

// One Layer per instruction of the method (flattened across chains as the executor numbers
// them), from the chains' stacktraces (one FrameList per instruction, written by the exporter;
// the first frame is the layer). Programs without stacktraces give empty names.
std::vector<Layer> instruction_layers(const Method& method) {
  std::vector<Layer> layers;
  fb::Vector chains = method.method_meta().plan().vector(schema::plan::kChains);
  for (uint32_t c = 0; c < chains.size; ++c) {
    fb::Table chain(chains.ref(c));
    uint32_t n = chain.vector(schema::chain::kInstructions).size;
    fb::Vector traces = chain.vector(schema::chain::kStacktrace);
    for (uint32_t k = 0; k < n; ++k) {
      Layer l;
      if (k < traces.size) {
        fb::Vector frames = fb::Table(traces.ref(k)).vector(0);  // FrameList.items
        if (frames.size > 0) {
          fb::Table f(frames.ref(0));  // Frame: filename, lineno, name, context
          fb::String name = f.string(2), file = f.string(0);
          if (name.data) l.name.assign(name.data, name.size);
          if (file.data && !file.empty())
            l.source =
                std::string(file.data, file.size) + ":" + std::to_string(f.scalar<uint32_t>(1));
        }
      }
      layers.push_back(l);
    }
  }
  return layers;
}

}  // namespace

// The per-instruction profile as rows {instruction, layer, source, op, ticks}; printed (unless
// JSON) as one row per instruction with the layer's module path, then the per-operator totals.
json profile_report(const Method& method, const Profiler& profiler, bool print) {
  json rows = json::array();
  std::map<std::string, std::pair<uint64_t, int>> by_op;
  std::vector<Layer> layers = instruction_layers(method);
  struct Row {
    uint32_t instruction;
    std::string layer, op;
    uint64_t ticks;
  };
  std::vector<Row> table;
  uint64_t total = 0;
  for (size_t k = 0; k < profiler.size(); ++k) {
    const ProfileEvent& e = profiler[k];
    char buf[160];
    const char* name = method.instruction_name(e.instruction, buf, sizeof(buf));
    std::string op = name ? name : (e.kind == 2 ? "delegate" : "control");
    uint64_t ticks = e.end - e.start;
    Layer l = e.instruction < layers.size() ? layers[e.instruction] : Layer{};
    rows.push_back({{"instruction", e.instruction},
                    {"layer", l.name},
                    {"source", l.source},
                    {"op", op},
                    {"ticks", ticks}});
    // as the firmware's profile names a layer: its module path, else its source line, else "-"
    table.push_back({e.instruction,
                     !l.name.empty()     ? l.name
                     : !l.source.empty() ? "(" + l.source + ")"
                                         : "-",
                     op, ticks});
    by_op[op].first += ticks;
    by_op[op].second += 1;
    total += ticks;
  }
  if (print) {
    et_tick_ratio_t r = et_pal_ticks_to_ns_multiplier();
    std::string unit = r.numerator == r.denominator ? "ns" : "ticks";
    std::cout << "profile (" << profiler.size() << " instructions, " << unit
              << " per program instruction on this host):\n";
    size_t w_layer = 5, w_op = 2;
    for (const Row& row : table) {
      w_layer = std::max(w_layer, row.layer.size());
      w_op = std::max(w_op, row.op.size());
    }
    char line[1024];
    std::snprintf(line, sizeof(line), "%4s  %-*s  %-*s  %12s\n", "#", static_cast<int>(w_layer),
                  "layer", static_cast<int>(w_op), "op", unit.c_str());
    std::cout << line;
    for (const Row& row : table) {
      std::snprintf(line, sizeof(line), "%4u  %-*s  %-*s  %12llu\n", row.instruction,
                    static_cast<int>(w_layer), row.layer.c_str(), static_cast<int>(w_op),
                    row.op.c_str(), static_cast<unsigned long long>(row.ticks));
      std::cout << line;
    }
    std::snprintf(line, sizeof(line), "%4s  %-*s  %-*s  %12llu\n", "", static_cast<int>(w_layer),
                  "total", static_cast<int>(w_op), "", static_cast<unsigned long long>(total));
    std::cout << line << "per operator:\n";
    std::vector<std::pair<std::string, std::pair<uint64_t, int>>> sorted(by_op.begin(),
                                                                         by_op.end());
    std::sort(sorted.begin(), sorted.end(),
              [](auto& a, auto& b) { return a.second.first > b.second.first; });
    for (auto& [op, v] : sorted) {
      std::snprintf(line, sizeof(line), "  %-48s %5d calls %12llu %s %6.1f%%\n", op.c_str(),
                    v.second, static_cast<unsigned long long>(v.first), unit.c_str(),
                    total ? 100.0 * v.first / total : 0.0);
      std::cout << line;
    }
  }
  return rows;
}

int run_command(const std::string& model, const std::string& method_name,
                const std::vector<std::string>& inputs, const std::string& data,
                const std::string& output_dir, bool as_json, bool profile) {
  auto session = Session::open_files(model, data);
  Method& method = session->load_method(method_name);
  MethodMeta meta = method.method_meta();
  if (!inputs.empty() && inputs.size() != method.inputs_size())
    throw std::runtime_error("method '" + method_name + "' takes " +
                             std::to_string(method.inputs_size()) + " inputs, " +
                             std::to_string(inputs.size()) + " --input given");
  std::vector<std::vector<uint8_t>> buffers(method.inputs_size());
  for (size_t i = 0; i < method.inputs_size(); ++i) {
    const EValue& slot = method.get_input(i);
    if (!slot.is_tensor()) {
      if (method.set_input(slot, i) != Error::Ok)
        throw std::runtime_error(describe(method.diagnostic()));
      continue;
    }
    TensorInfo info = meta.input_tensor_meta(i).get();
    if (inputs.empty()) {
      buffers[i].assign(info.nbytes, 0);
      fill_ones(info.dtype, buffers[i].data(), info.nbytes / element_size(info.dtype));
    } else {
      buffers[i] = input_bytes(inputs[i], info, i, meta.input_quant(i));
    }
    if (method.set_input_data(i, buffers[i].data(), buffers[i].size()) != Error::Ok)
      throw std::runtime_error("input " + std::to_string(i) + ": " + describe(method.diagnostic()));
  }
  std::vector<ProfileEvent> events(profile ? method.num_instructions() + 16 : 0);
  Profiler profiler(events.data(), events.size());
  if (profile && method.set_profiler(&profiler) != Error::Ok)
    throw std::runtime_error(
        "this runtime was built without instruction hooks (ETMCU_INSTRUCTION_HOOKS)");
  if (method.execute() != Error::Ok) {
    const Diagnostic& d = method.diagnostic();
    char name[160] = "";
    const char* op = d.index >= 0
                         ? method.instruction_name(static_cast<size_t>(d.index), name, sizeof(name))
                         : nullptr;
    throw std::runtime_error("execute failed: " + describe(d) +
                             (op ? std::string(" in ") + op : ""));
  }
  json outputs = json::array();
  for (size_t i = 0; i < method.outputs_size(); ++i) {
    const EValue& v = method.get_output(i);
    outputs.push_back(evalue_to_json(v));
    if (!as_json) std::cout << "output " << i << ": " << evalue_to_text(v) << "\n";
    if (!output_dir.empty() && v.is_tensor()) {
      fs::create_directories(output_dir);
      const Tensor& t = v.to_tensor();
      // .npy is C order: the logical order even for channels-last tensors.
      std::vector<uint8_t> logical = logical_bytes(t);
      write_npy((fs::path(output_dir) / ("output_" + std::to_string(i) + ".npy")).string(), t.dtype,
                tensor_shape(t), logical.data(), logical.size());
    }
  }
  json profile_rows = profile ? profile_report(method, profiler, !as_json) : json();
  if (as_json) {
    json j;
    j["method"] = method_name;
    if (profile) j["profile"] = profile_rows;
    j["outputs"] = outputs;
    for (size_t i = 0; i < method.outputs_size(); ++i) {
      auto q = meta.output_quant(i);  // int8 I/O: how to dequantize output i
      if (q.ok())
        j["output_quant"].push_back({{"scale", q.get().scale}, {"zero_point", q.get().zero_point}});
    }
    j["memory"] = {{"planned", session->planned_sizes()},
                   {"method_allocator_used", session->method_allocator().used()},
                   {"temp_used", session->temp_allocator().peak()}};
    std::cout << j.dump() << "\n";
  }
  return 0;
}

int verify_bundled(const std::string& path, bool as_json) {
  AlignedBytes file = read_file(path);
  if (file.size() < 8 || std::memcmp(file.data() + 4, "BP08", 4) != 0)
    throw std::runtime_error("'" + path + "' is not a bundled program (bytes 4..7 are not BP08)");
  Diagnostic diag;
  if (verify_buffer(file.data(), file.size(), schema::kBundledProgram, &diag) != Error::Ok)
    throw std::runtime_error("malformed bundled program: " + describe(diag));
  fb::Table root = fb::root(file.data());
  fb::Vector program = root.vector(schema::bundled::kProgram);
  auto session = Session::open(program.base, program.size);
  fb::Vector suites = root.vector(schema::bundled::kSuites);
  int passed = 0, failed = 0;
  json cases = json::array();
  for (uint32_t s = 0; s < suites.size; ++s) {
    fb::Table suite(suites.ref(s));
    std::string name = suite.string(schema::suite::kMethodName).data;
    fb::Vector tcs = suite.vector(schema::suite::kTestCases);
    for (uint32_t c = 0; c < tcs.size; ++c) {
      fb::Table tc(tcs.ref(c));
      Method& m = session->load_method(name);
      std::string why;
      fb::Vector ins = tc.vector(schema::tcase::kInputs);
      std::vector<Tensor> in_tensors(ins.size);
      for (uint32_t i = 0; i < ins.size && why.empty(); ++i) {
        fb::Table v(ins.ref(i));
        uint8_t type = v.scalar<uint8_t>(schema::bvalue::kValType);
        fb::Table val = v.table(schema::bvalue::kVal);
        EValue ev;
        if (type == 1) {  // Tensor
          Tensor& t = in_tensors[i];
          fb::Vector sizes = val.vector(schema::btensor::kSizes),
                     order = val.vector(schema::btensor::kDimOrder);
          fb::Vector bytes = val.vector(schema::btensor::kData);
          t.dtype = static_cast<ScalarType>(val.scalar<int8_t>(schema::btensor::kScalarType));
          t.dim = static_cast<uint8_t>(sizes.size);
          t.sizes = sizes.data<int32_t>();
          t.dim_order = order.data<uint8_t>();
          t.data = const_cast<uint8_t*>(bytes.base);
          t.nbytes = bytes.size;
          if (t.numel() * t.element_size() != bytes.size) why = "input tensor data size mismatch";
          ev = EValue::from_tensor(&t);
        } else if (type == 2) {
          ev = EValue::from_int(val.scalar<int64_t>(0));
        } else if (type == 3) {
          ev = EValue::from_bool(val.scalar<uint8_t>(0) != 0);
        } else {
          ev = EValue::from_double(val.scalar<double>(0));
        }
        if (why.empty() && m.set_input(ev, i) != Error::Ok)
          why = "set_input: " + describe(m.diagnostic());
      }
      if (why.empty() && m.execute() != Error::Ok) why = "execute: " + describe(m.diagnostic());
      fb::Vector outs = tc.vector(schema::tcase::kExpectedOutputs);
      if (why.empty() && outs.size != m.outputs_size()) why = "output count differs";
      for (uint32_t o = 0; o < outs.size && why.empty(); ++o) {
        fb::Table v(outs.ref(o));
        fb::Table val = v.table(schema::bvalue::kVal);
        const EValue& got = m.get_output(o);
        if (v.scalar<uint8_t>(schema::bvalue::kValType) != 1 || !got.is_tensor()) {
          why = "only tensor outputs are compared";
          break;
        }
        const Tensor& t = got.to_tensor();
        Tensor expected = t;
        fb::Vector bytes = val.vector(schema::btensor::kData);
        expected.dtype = static_cast<ScalarType>(val.scalar<int8_t>(schema::btensor::kScalarType));
        expected.data = const_cast<uint8_t*>(bytes.base);
        if (expected.dtype != t.dtype || bytes.size != t.nbytes) {
          why = "output " + std::to_string(o) + " dtype or size differs";
          break;
        }
        for (size_t k = 0; k < t.numel(); ++k) {
          double a = tensor_element(t, k), b = tensor_element(expected, k);
          // Upstream's bundled-program tolerance: rtol 1e-5, atol 1e-8 (exact for integers).
          if (!(std::fabs(a - b) <= 1e-8 + 1e-5 * std::fabs(b))) {
            why = "output " + std::to_string(o) + "[" + std::to_string(k) +
                  "] = " + std::to_string(a) + ", expected " + std::to_string(b);
            break;
          }
        }
      }
      bool ok = why.empty();
      ok ? ++passed : ++failed;
      cases.push_back({{"method", name}, {"case", c}, {"passed", ok}, {"reason", why}});
      if (!as_json)
        std::cout << "case " << name << "[" << c << "]: " << (ok ? "PASS" : "FAIL " + why) << "\n";
    }
  }
  if (as_json)
    std::cout << json{{"cases", cases}, {"passed", passed}, {"failed", failed}}.dump() << "\n";
  else
    std::cout << passed << " passed, " << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}

namespace {
// Planned byte range [begin, end) of tensor value `v` in memory `id`, or {0, 0, 0}.
struct PlannedRange {
  uint32_t id = 0;
  uint64_t begin = 0, end = 0;
};
PlannedRange planned_range(fb::Vector values, int64_t v) {
  PlannedRange r;
  if (v < 0 || v >= values.size) return r;
  fb::Table ev(values.ref(static_cast<uint32_t>(v)));
  if (ev.scalar<uint8_t>(schema::evalue::kValType) != schema::kTagTensor) return r;
  fb::Table t = ev.table(schema::evalue::kVal);
  fb::Table alloc = t.table(schema::tensor::kAllocationInfo);
  if (!alloc.valid()) return r;
  uint64_t n = element_size(static_cast<ScalarType>(t.scalar<int8_t>(schema::tensor::kScalarType)));
  fb::Vector sizes = t.vector(schema::tensor::kSizes);
  for (uint32_t k = 0; k < sizes.size; ++k) n *= static_cast<uint64_t>(sizes.scalar<int32_t>(k));
  r.id = alloc.scalar<uint32_t>(schema::alloc::kMemoryId);
  r.begin = (static_cast<uint64_t>(alloc.scalar<uint32_t>(schema::alloc::kOffsetHigh)) << 32) |
            alloc.scalar<uint32_t>(schema::alloc::kOffsetLow);
  r.end = r.begin + n;
  return r;
}

// True when some kernel call's returned out (a single tensor) shares planned bytes with another
// tensor argument of the call: the program needs the load-time alias check.
bool plan_overlaps(fb::Table plan) {
  fb::Vector values = plan.vector(schema::plan::kValues);
  fb::Vector chains = plan.vector(schema::plan::kChains);
  for (uint32_t c = 0; c < chains.size; ++c) {
    fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
    for (uint32_t i = 0; i < instrs.size; ++i) {
      fb::Table in(instrs.ref(i));
      if (in.scalar<uint8_t>(schema::instr::kArgsType) != schema::kInstrKernelCall) continue;
      fb::Vector args = in.table(schema::instr::kArgs).vector(schema::call::kArgs);
      if (args.size < 2) continue;
      const int32_t ret = args.scalar<int32_t>(args.size - 1);
      PlannedRange out = planned_range(values, ret);
      if (out.end <= out.begin) continue;
      for (uint32_t j = 0; j + 1 < args.size; ++j) {
        const int32_t a = args.scalar<int32_t>(j);
        if (a == ret) continue;
        PlannedRange r = planned_range(values, a);
        if (r.end > r.begin && r.id == out.id && r.begin < out.end && out.begin < r.end)
          return true;
      }
    }
  }
  return false;
}

// The runtime features (runtime/core/features.h) a program needs, for selective firmware builds.
std::vector<std::pair<std::string, bool>> program_features(const PteFile& file) {
  bool delegates = false, external = false, mutable_data = false, control_flow = false;
  bool lists = false, tensor_lists = false, strings = false, alias_check = false;
  fb::Table root = file.program();
  fb::Vector plans = root.vector(schema::program::kExecutionPlan);
  for (uint32_t p = 0; p < plans.size; ++p) {
    fb::Table plan(plans.ref(p));
    delegates = delegates || plan.vector(schema::plan::kDelegates).size > 0;
    alias_check = alias_check || plan_overlaps(plan);
    fb::Vector values = plan.vector(schema::plan::kValues);
    for (uint32_t v = 0; v < values.size; ++v) {
      fb::Table ev(values.ref(v));
      const uint8_t type = ev.scalar<uint8_t>(schema::evalue::kValType);
      lists = lists || (type >= schema::kTagIntList && type <= schema::kTagOptionalTensorList);
      tensor_lists =
          tensor_lists || type == schema::kTagTensorList || type == schema::kTagOptionalTensorList;
      strings = strings || type == schema::kTagString;
      if (type != schema::kTagTensor) continue;
      fb::Table t = ev.table(schema::evalue::kVal);
      fb::Table extra = t.table(schema::tensor::kExtraTensorInfo);
      external = external || (extra.valid() && extra.scalar<int8_t>(schema::extra::kLocation) == 1);
      mutable_data =
          mutable_data || (t.scalar<uint32_t>(schema::tensor::kDataBufferIdx) > 0 &&
                           t.has(schema::tensor::kAllocationInfo) &&
                           !(extra.valid() && extra.scalar<int8_t>(schema::extra::kLocation) == 1));
    }
    fb::Vector chains = plan.vector(schema::plan::kChains);
    for (uint32_t c = 0; c < chains.size; ++c) {
      fb::Vector instrs = fb::Table(chains.ref(c)).vector(schema::chain::kInstructions);
      for (uint32_t i = 0; i < instrs.size; ++i) {
        uint8_t kind = fb::Table(instrs.ref(i)).scalar<uint8_t>(schema::instr::kArgsType);
        control_flow = control_flow || kind >= schema::kInstrMoveCall;
      }
    }
  }
  fb::Table cs = root.table(schema::program::kConstantSegment);
  bool constant_buffer = root.vector(schema::program::kConstantBuffer).size > 1 &&
                         !(cs.valid() && cs.vector(schema::subseg::kOffsets).size > 0);
  return {{"DELEGATES", delegates},
          {"EXTERNAL_DATA", external},
          {"MUTABLE_DATA", mutable_data},
          {"CONTROL_FLOW", control_flow},
          {"CONSTANT_BUFFER", constant_buffer},
          {"LISTS", lists},
          {"TENSOR_LISTS", tensor_lists},
          {"STRINGS", strings},
          {"ALIAS_CHECK", alias_check}};
}
// Bit i set when some tensor value of some method has ScalarType i (for ETMCU_KERNEL_DTYPES).
uint32_t program_dtype_mask(const PteFile& file) {
  uint32_t mask = 0;
  fb::Vector plans = file.program().vector(schema::program::kExecutionPlan);
  for (uint32_t p = 0; p < plans.size; ++p) {
    fb::Vector values = fb::Table(plans.ref(p)).vector(schema::plan::kValues);
    for (uint32_t v = 0; v < values.size; ++v) {
      fb::Table ev(values.ref(v));
      if (ev.scalar<uint8_t>(schema::evalue::kValType) != schema::kTagTensor) continue;
      int8_t t = ev.table(schema::evalue::kVal).scalar<int8_t>(schema::tensor::kScalarType);
      if (t >= 0 && t < 32) mask |= 1u << t;
    }
  }
  return mask;
}
}  // namespace

// `inspect FILE.ptd`: the named blobs of an external-data file, with their layouts.
int inspect_ptd(const std::string& path, const AlignedBytes& bytes, bool as_json) {
  Diagnostic diag;
  auto ptd = PtdFile::parse(Span<const uint8_t>(bytes.data(), bytes.size()), &diag);
  if (!ptd.ok()) throw std::runtime_error("cannot read external data: " + describe(diag));
  json blobs = json::array();
  for (uint32_t k = 0; k < ptd->num_keys(); ++k) {
    const char* key = ptd->key(k);
    auto blob = ptd->get(key, std::strlen(key));
    if (!blob.ok()) throw std::runtime_error(std::string("key '") + key + "': unreadable");
    json b = {{"key", key}, {"bytes", blob->bytes.size()}};
    const TensorLayoutView& l = blob->layout;
    if (l.present) {
      b["dtype"] = scalar_type_name(l.dtype);
      b["shape"] = std::vector<int32_t>(l.sizes, l.sizes + l.dim);
      b["dim_order"] = std::vector<int>(l.dim_order, l.dim_order + l.dim);
    }
    blobs.push_back(b);
  }
  json j = {{"file", path}, {"bytes", bytes.size()}, {"kind", "ptd"}, {"named_data", blobs}};
  if (as_json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << path << ": external data (.ptd), " << bytes.size() << " bytes, " << blobs.size()
            << " named blobs\n";
  for (auto& b : blobs) {
    std::cout << "  " << b["key"].get<std::string>() << ": " << b["bytes"] << " bytes";
    if (b.contains("dtype"))
      std::cout << ", " << b["dtype"].get<std::string>() << b["shape"].dump() << " dim_order "
                << b["dim_order"].dump();
    std::cout << "\n";
  }
  return 0;
}

int inspect_command(const std::string& model, bool as_json, bool ops_only, bool features_only) {
  {
    AlignedBytes bytes = read_file(model);
    if (bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "FT01", 4) == 0) {
      if (ops_only || features_only)
        throw std::runtime_error(model +
                                 " is external data (.ptd): --ops and --features apply "
                                 "to programs");
      return inspect_ptd(model, bytes, as_json);
    }
  }
  auto session = Session::open_files(model);
  Program& program = session->program();
  const PteFile& file = program.file();
  auto features = program_features(file);
  uint32_t dtype_mask = program_dtype_mask(file);
  if (features_only) {
    for (const auto& [name, needed] : features)
      std::cout << "ETMCU_FEATURE_" << name << "=" << (needed ? 1 : 0) << "\n";
    char mask[16];
    std::snprintf(mask, sizeof(mask), "0x%x", dtype_mask);
    std::cout << "ETMCU_KERNEL_DTYPES=" << mask << "\n";
    return 0;
  }
  json j;
  for (const auto& [name, needed] : features) j["features"][name] = needed;
  j["kernel_dtypes_mask"] = dtype_mask;
  for (int t = 0; t < 32; ++t)
    if (dtype_mask & (1u << t)) j["dtypes"].push_back(scalar_type_name(static_cast<ScalarType>(t)));
  j["file"] = model;
  j["bytes"] = file.file().size();
  const ExtendedHeader& h = file.header();
  j["header"] = h.present ? json{{"magic", "eh00"},
                                 {"length", h.length},
                                 {"program_size", h.program_size},
                                 {"segment_base_offset", h.segment_base_offset},
                                 {"segment_data_size", h.segment_data_size}}
                          : json(nullptr);
  json segments = json::array();
  for (uint32_t i = 0; i < file.num_segments(); ++i) segments.push_back(file.segment(i).size());
  j["segments"] = segments;
  j["constant_bytes"] = file.constant_bytes();
  j["constants"] = file.num_constants() > 0 ? file.num_constants() - 1 : 0;
  std::vector<std::string> all_ops;
  json methods = json::array();
  for (size_t mi = 0; mi < program.num_methods(); ++mi) {
    auto method_name = program.get_method_name(mi);
    if (!method_name.ok())
      throw std::runtime_error("execution_plan[" + std::to_string(mi) + "] has no name");
    const char* name = method_name.get();
    auto method_meta = program.method_meta(name);
    if (!method_meta.ok())
      throw std::runtime_error(std::string("method '") + name +
                               "': " + error_name(method_meta.error()));
    MethodMeta meta = method_meta.get();
    json m;
    m["name"] = name;
    auto io = [&](bool input, size_t i) {
      json x;
      auto tag = input ? meta.input_tag(i) : meta.output_tag(i);
      if (tag.ok() && tag.get() == Tag::Tensor) {
        TensorInfo t = (input ? meta.input_tensor_meta(i) : meta.output_tensor_meta(i)).get();
        x = {{"kind", "tensor"},
             {"dtype", scalar_type_name(t.dtype)},
             {"shape", std::vector<int32_t>(t.sizes.begin(), t.sizes.end())},
             {"dim_order", std::vector<int>(t.dim_order.begin(), t.dim_order.end())},
             {"nbytes", t.nbytes},
             {"planned", t.is_memory_planned}};
        auto q = input ? meta.input_quant(i) : meta.output_quant(i);
        if (q.ok()) {
          x["scale"] = q.get().scale;
          x["zero_point"] = q.get().zero_point;
        } else if (q.error() != Error::NotFound) {
          x["quant_error"] = error_name(q.error());
        }
      } else {
        x = {{"kind", tag.ok() ? static_cast<int>(tag.get()) : -1}};
      }
      return x;
    };
    for (size_t i = 0; i < meta.num_inputs(); ++i) m["inputs"].push_back(io(true, i));
    for (size_t i = 0; i < meta.num_outputs(); ++i) m["outputs"].push_back(io(false, i));
    fb::Vector ops = meta.plan().vector(schema::plan::kOperators);
    json opnames = json::array();
    for (uint32_t k = 0; k < ops.size; ++k) {
      fb::Table op(ops.ref(k));
      std::string full = op.string(schema::op::kName).data ? op.string(schema::op::kName).data : "";
      fb::String ov = op.string(schema::op::kOverload);
      if (ov.size) full += std::string(".") + ov.data;
      opnames.push_back(full);
      all_ops.push_back(full);
    }
    m["operators"] = opnames;
    fb::Vector dels = meta.plan().vector(schema::plan::kDelegates);
    json delegates = json::array();
    for (uint32_t k = 0; k < dels.size; ++k) {
      fb::Table d(dels.ref(k));
      fb::Table ref = d.table(schema::delegate::kProcessed);
      delegates.push_back(
          {{"id", d.string(schema::delegate::kId).data ? d.string(schema::delegate::kId).data : ""},
           {"location", ref.valid() && ref.scalar<int8_t>(0) == 1 ? "segment" : "inline"},
           {"index", ref.valid() ? ref.scalar<uint32_t>(1) : 0}});
    }
    m["delegates"] = delegates;
    m["instructions"] = meta.num_instructions();
    m["values"] = meta.plan().vector(schema::plan::kValues).size;
    json planned = json::array();
    for (size_t b = 0; b < meta.num_memory_planned_buffers(); ++b)
      planned.push_back(meta.memory_planned_buffer_size(b).get());
    m["planned"] = planned;
    m["method_allocator_bytes"] = meta.method_allocator_bytes();
    methods.push_back(m);
  }
  j["methods"] = methods;
  if (ops_only) {
    std::sort(all_ops.begin(), all_ops.end());
    all_ops.erase(std::unique(all_ops.begin(), all_ops.end()), all_ops.end());
    for (const auto& op : all_ops) std::cout << op << "\n";
    return 0;
  }
  if (as_json) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << model << ": " << j["bytes"] << " bytes, header "
            << (h.present ? "eh00/" + std::to_string(h.length) : std::string("none")) << ", "
            << file.num_segments() << " segments, " << j["constants"] << " constants ("
            << j["constant_bytes"] << " bytes)\n";
  for (auto& m : methods) {
    std::cout << "method " << m["name"].get<std::string>() << ": " << m["instructions"]
              << " instructions, " << m["values"] << " values, planned " << m["planned"].dump()
              << " bytes, method allocator " << m["method_allocator_bytes"] << " bytes\n";
    for (auto& x : m["inputs"]) std::cout << "  input  " << x.dump() << "\n";
    for (auto& x : m["outputs"]) std::cout << "  output " << x.dump() << "\n";
    for (auto& x : m["operators"]) std::cout << "  op     " << x.get<std::string>() << "\n";
    for (auto& x : m["delegates"]) std::cout << "  delegate " << x.dump() << "\n";
  }
  return 0;
}

}  // namespace etmcu::host
