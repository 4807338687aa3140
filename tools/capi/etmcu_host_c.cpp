// The host C API (etmcu_host_c.h) over Session: the same loading, input checks and output layout
// as `./etmcu run`, in-process. Host code: exceptions inside, error codes and messages outside.
#include "tools/capi/etmcu_host_c.h"

#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/cli/session.h"
#include "tools/cli/tensor_io.h"
#include "tools/cli/value_format.h"

using etmcu::Error;
using etmcu::EValue;
using etmcu::Method;
using etmcu::ScalarType;
using etmcu::Tensor;
using etmcu::TensorInfo;

struct etmcu_host_program {
  std::unique_ptr<etmcu::host::Session> session;
  std::string method_name;
  std::vector<std::vector<uint8_t>> inputs;  // each tensor input's bytes in its dim order
  bool ran = false;
  std::string error;
};

namespace {

constexpr int kInvalidArgument = static_cast<int>(Error::InvalidArgument);

// Runs `f`; an exception becomes `code` with its message kept in p->error.
template <typename F>
int guarded(etmcu_host_program* p, F&& f, int code = static_cast<int>(Error::InvalidArgument)) {
  if (p == nullptr) return kInvalidArgument;
  p->error.clear();
  try {
    return f();
  } catch (const std::exception& e) {
    p->error = e.what();
    return code;
  }
}

void describe_value(const EValue& v, etmcu_host_value* out) {
  std::memset(out, 0, sizeof(*out));
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    out->kind = ETMCU_HOST_TENSOR;
    out->dtype = static_cast<int32_t>(t.dtype);
    out->dim = t.dim;
    for (int d = 0; d < t.dim && d < ETMCU_HOST_MAX_DIM; ++d) out->sizes[d] = t.sizes[d];
    out->nbytes = t.nbytes;
  } else if (v.is_int()) {
    out->kind = ETMCU_HOST_INT;
    out->int_value = v.to_int();
  } else if (v.is_bool()) {
    out->kind = ETMCU_HOST_BOOL;
    out->int_value = v.to_bool() ? 1 : 0;
  } else if (v.is_double()) {
    out->kind = ETMCU_HOST_DOUBLE;
    out->double_value = v.to_double();
  } else {
    out->kind = v.is_none() ? ETMCU_HOST_NONE : ETMCU_HOST_OTHER;
  }
}

void check_index(size_t index, size_t n, const char* what) {
  if (index >= n)
    throw std::runtime_error(std::string(what) + " " + std::to_string(index) +
                             " does not exist (the method has " + std::to_string(n) + ")");
}

}  // namespace

extern "C" etmcu_host_program* etmcu_host_open(const char* pte_path, const char* ptd_path,
                                               const char* method, char* err, size_t err_size) {
  auto p = std::make_unique<etmcu_host_program>();
  try {
    if (pte_path == nullptr) throw std::runtime_error("no program path given");
    p->session = etmcu::host::Session::open_files(pte_path, ptd_path ? ptd_path : "");
    p->method_name = method ? method : "forward";
    Method& m = p->session->load_method(p->method_name);
    etmcu::MethodMeta meta = m.method_meta();
    p->inputs.resize(m.inputs_size());
    for (size_t i = 0; i < m.inputs_size(); ++i) {
      if (!m.get_input(i).is_tensor()) continue;
      TensorInfo info = meta.input_tensor_meta(i).get();
      p->inputs[i].assign(info.nbytes, 0);
      etmcu::host::fill_ones(info.dtype, p->inputs[i].data(),
                             info.nbytes / etmcu::element_size(info.dtype));
    }
  } catch (const std::exception& e) {
    if (err != nullptr && err_size > 0) {
      std::strncpy(err, e.what(), err_size - 1);
      err[err_size - 1] = '\0';
    }
    return nullptr;
  }
  return p.release();
}

extern "C" void etmcu_host_close(etmcu_host_program* p) { delete p; }

extern "C" const char* etmcu_host_error(const etmcu_host_program* p) {
  return p == nullptr ? "no program (NULL handle)" : p->error.c_str();
}

extern "C" size_t etmcu_host_num_inputs(const etmcu_host_program* p) {
  return p == nullptr ? 0 : p->session->method().inputs_size();
}

extern "C" size_t etmcu_host_num_outputs(const etmcu_host_program* p) {
  return p == nullptr ? 0 : p->session->method().outputs_size();
}

extern "C" int etmcu_host_input_info(etmcu_host_program* p, size_t index, etmcu_host_value* info) {
  return guarded(p, [&] {
    Method& m = p->session->method();
    check_index(index, m.inputs_size(), "input");
    describe_value(m.get_input(index), info);
    if (info->kind == ETMCU_HOST_TENSOR) {
      // The program's shape (the slot's tensor may not describe it before the first set).
      TensorInfo t = m.method_meta().input_tensor_meta(index).get();
      info->dtype = static_cast<int32_t>(t.dtype);
      info->dim = static_cast<int32_t>(t.sizes.size());
      for (size_t d = 0; d < t.sizes.size() && d < ETMCU_HOST_MAX_DIM; ++d)
        info->sizes[d] = t.sizes[d];
      info->nbytes = t.nbytes;
      auto q = m.method_meta().input_quant(index);
      if (q.ok()) {
        info->has_quant = 1;
        info->scale = q.get().scale;
        info->zero_point = q.get().zero_point;
      }
    }
    return 0;
  });
}

extern "C" int etmcu_host_set_input(etmcu_host_program* p, size_t index, int32_t dtype,
                                    const int64_t* shape, size_t dim, const void* data,
                                    size_t nbytes) {
  return guarded(p, [&] {
    Method& m = p->session->method();
    check_index(index, m.inputs_size(), "input");
    if (!m.get_input(index).is_tensor())
      throw std::runtime_error("input " + std::to_string(index) + " is not a tensor");
    if (!etmcu::is_valid_scalar_type(dtype))
      throw std::runtime_error("input " + std::to_string(index) + ": unknown dtype number " +
                               std::to_string(dtype));
    etmcu::host::NpyArray a;
    a.dtype = static_cast<ScalarType>(dtype);
    a.shape.assign(shape, shape + dim);
    const auto* bytes = static_cast<const uint8_t*>(data);
    a.data.assign(bytes, bytes + nbytes);
    size_t numel = 1;
    for (int64_t d : a.shape) numel *= static_cast<size_t>(d);
    if (numel * etmcu::element_size(a.dtype) != nbytes)
      throw std::runtime_error("input " + std::to_string(index) + ": " + std::to_string(nbytes) +
                               " bytes do not hold the array's shape and dtype");
    TensorInfo info = m.method_meta().input_tensor_meta(index).get();
    p->inputs[index] =
        etmcu::host::input_from_array(a, "array", index, info, m.method_meta().input_quant(index));
    return 0;
  });
}

extern "C" int etmcu_host_run(etmcu_host_program* p) {
  int failed = static_cast<int>(Error::Internal);
  return guarded(
      p,
      [&] {
        Method& m = p->session->method();
        p->ran = false;
        // Every run starts from the inputs as set: execution may reuse their planned memory.
        for (size_t i = 0; i < m.inputs_size(); ++i) {
          if (!m.get_input(i).is_tensor()) continue;
          Error e = m.set_input_data(i, p->inputs[i].data(), p->inputs[i].size());
          if (e != Error::Ok) {
            p->error = "input " + std::to_string(i) + ": " + etmcu::host::describe(m.diagnostic());
            return static_cast<int>(e);
          }
        }
        Error e = m.execute();
        if (e != Error::Ok) {
          const etmcu::Diagnostic& d = m.diagnostic();
          char name[160] = "";
          const char* op =
              d.index >= 0 ? m.instruction_name(static_cast<size_t>(d.index), name, sizeof(name))
                           : nullptr;
          p->error =
              "execute failed: " + etmcu::host::describe(d) + (op ? std::string(" in ") + op : "");
          return static_cast<int>(e);
        }
        p->ran = true;
        return 0;
      },
      failed);
}

extern "C" int etmcu_host_output_info(etmcu_host_program* p, size_t index, etmcu_host_value* info) {
  return guarded(p, [&] {
    Method& m = p->session->method();
    if (!p->ran) throw std::runtime_error("no outputs: the method has not run successfully");
    check_index(index, m.outputs_size(), "output");
    describe_value(m.get_output(index), info);
    auto q = m.method_meta().output_quant(index);
    if (info->kind == ETMCU_HOST_TENSOR && q.ok()) {
      info->has_quant = 1;
      info->scale = q.get().scale;
      info->zero_point = q.get().zero_point;
    }
    return 0;
  });
}

extern "C" int etmcu_host_output_copy(etmcu_host_program* p, size_t index, void* dst,
                                      size_t nbytes) {
  return guarded(p, [&] {
    Method& m = p->session->method();
    if (!p->ran) throw std::runtime_error("no outputs: the method has not run successfully");
    check_index(index, m.outputs_size(), "output");
    const EValue& v = m.get_output(index);
    if (!v.is_tensor())
      throw std::runtime_error("output " + std::to_string(index) + " is not a tensor");
    std::vector<uint8_t> logical = etmcu::host::logical_bytes(v.to_tensor());
    if (logical.size() != nbytes)
      throw std::runtime_error("output " + std::to_string(index) + " has " +
                               std::to_string(logical.size()) + " bytes, " +
                               std::to_string(nbytes) + " asked for");
    if (nbytes) std::memcpy(dst, logical.data(), nbytes);
    return 0;
  });
}
