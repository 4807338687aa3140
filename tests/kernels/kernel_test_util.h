// Test helpers for portable kernels: build tensors (any dtype, any dim order) and EValue argument
// lists, call a kernel through the real ABI, read results back in logical order.
#pragma once
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <cmath>
#include <list>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/api/kernel.h"
#include "kernels/portable/portable_ops.h"
#include "runtime/core/evalue.h"
#include "runtime/core/memory_allocator.h"
#include "runtime/core/tensor.h"

namespace etmcu {

namespace test {

template <typename T>
constexpr ScalarType dtype_for();
template <>
constexpr ScalarType dtype_for<uint8_t>() {
  return ScalarType::Byte;
}
template <>
constexpr ScalarType dtype_for<int8_t>() {
  return ScalarType::Char;
}
template <>
constexpr ScalarType dtype_for<int16_t>() {
  return ScalarType::Short;
}
template <>
constexpr ScalarType dtype_for<int32_t>() {
  return ScalarType::Int;
}
template <>
constexpr ScalarType dtype_for<int64_t>() {
  return ScalarType::Long;
}
template <>
constexpr ScalarType dtype_for<float>() {
  return ScalarType::Float;
}
template <>
constexpr ScalarType dtype_for<double>() {
  return ScalarType::Double;
}
template <>
constexpr ScalarType dtype_for<bool>() {
  return ScalarType::Bool;
}

inline size_t numel_of(const std::vector<int32_t>& s) {
  size_t n = 1;
  for (int32_t v : s) n *= static_cast<size_t>(v);
  return n;
}

// Memory offset of every logical (row-major) index, for a given dim order.
inline std::vector<size_t> memory_offsets(const std::vector<int32_t>& sizes,
                                          const std::vector<uint8_t>& order) {
  const size_t n = numel_of(sizes);
  const size_t dim = sizes.size();
  std::vector<int64_t> stride(dim);
  int64_t s = 1;
  for (int k = static_cast<int>(dim) - 1; k >= 0; --k) {
    stride[order[k]] = s;
    s *= sizes[order[k]];
  }
  std::vector<size_t> offs(n);
  std::vector<int32_t> idx(dim, 0);
  for (size_t i = 0; i < n; ++i) {
    int64_t o = 0;
    for (size_t d = 0; d < dim; ++d) o += idx[d] * stride[d];
    offs[i] = static_cast<size_t>(o);
    for (int d = static_cast<int>(dim) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return offs;
}

inline std::vector<uint8_t> contiguous_order(size_t dim) {
  std::vector<uint8_t> o(dim);
  std::iota(o.begin(), o.end(), 0);
  return o;
}
inline std::vector<uint8_t> channels_last() { return {0, 2, 3, 1}; }

// Owns a Tensor's metadata and bytes. Values are given/read in logical row-major order.
struct TestTensor {
  std::vector<int32_t> sizes;
  std::vector<uint8_t> order;
  std::vector<uint8_t> bytes;
  Tensor t;

  template <typename T>
  std::vector<T> values() const {
    std::vector<T> out(t.numel());
    auto offs = memory_offsets(sizes, order);
    for (size_t i = 0; i < out.size(); ++i) {
      T v;  // through a temporary: std::vector<bool> has no addressable elements
      memcpy(&v, bytes.data() + offs[i] * sizeof(T), sizeof(T));
      out[i] = v;
    }
    return out;
  }
  template <typename T>
  void set(const std::vector<T>& v) {
    auto offs = memory_offsets(sizes, order);
    for (size_t i = 0; i < v.size() && i < offs.size(); ++i) {
      T x = v[i];
      memcpy(bytes.data() + offs[i] * sizeof(T), &x, sizeof(T));
    }
  }
};

// An argument list under construction; owns every tensor, EValue and list it hands out.
class Args {
 public:
  template <typename T>
  Tensor& tensor(std::vector<int32_t> sizes, std::vector<T> vals = {},
                 std::vector<uint8_t> order = {}) {
    if (order.empty()) order = contiguous_order(sizes.size());
    return raw_tensor(sizes, dtype_for<T>(), order, [&](TestTensor& tt) { tt.set(vals); });
  }
  // A tensor of any dtype, zero-filled.
  Tensor& empty(std::vector<int32_t> sizes, ScalarType dtype, std::vector<uint8_t> order = {}) {
    if (order.empty()) order = contiguous_order(sizes.size());
    return raw_tensor(sizes, dtype, order, [](TestTensor&) {});
  }
  // Repeats the EValue at index i (the returned-value slot of out-variants).
  void repeat(size_t i) { ptrs_.push_back(ptrs_.at(i)); }
  void add_int(int64_t v) { push(EValue::from_int(v)); }
  void add_double(double v) { push(EValue::from_double(v)); }
  void add_bool(bool v) { push(EValue::from_bool(v)); }
  void add_none() { push(EValue()); }
  void add_string(const std::string& s) {
    strings_.push_back(s);
    push(EValue::from_span(Tag::String, strings_.back().data(), strings_.back().size()));
  }
  void add_int_list(std::vector<int64_t> v) {
    int_lists_.push_back(std::move(v));
    push(EValue::from_span(Tag::ListInt, int_lists_.back().data(), int_lists_.back().size()));
  }
  void add_double_list(std::vector<double> v) {
    double_lists_.push_back(std::move(v));
    push(EValue::from_span(Tag::ListDouble, double_lists_.back().data(),
                           double_lists_.back().size()));
  }
  // A TensorList of the tensors at the given argument indices.
  void add_tensor_list(std::vector<size_t> arg_indices) {
    std::vector<Tensor*> l;
    for (size_t i : arg_indices) l.push_back(ptrs_.at(i)->payload.as_tensor);
    tensor_lists_.push_back(std::move(l));
    push(EValue::from_span(Tag::ListTensor, tensor_lists_.back().data(),
                           tensor_lists_.back().size()));
  }
  size_t size() const { return ptrs_.size(); }
  EValue& at(size_t i) { return *ptrs_.at(i); }
  TestTensor& tt(size_t i) {
    for (auto& t : tensors_)
      if (&t.t == ptrs_.at(i)->payload.as_tensor) return t;
    throw std::runtime_error("not a test tensor");
  }
  template <typename T>
  std::vector<T> values(size_t i) {
    return tt(i).values<T>();
  }
  // Calls fn with the arguments from index `first` on (earlier ones can hold list members).
  Error call(OpFunction fn, size_t first = 0) {
    if (temp_.size() == 0) temp_.resize(1 << 16);
    MemoryAllocator temp(temp_.data(), temp_.size());
    ctx.temp = &temp;
    ctx.failure = nullptr;
    Error e = fn(ctx, Span<EValue*>(ptrs_.data() + first, ptrs_.size() - first));
    ctx.temp = nullptr;
    return e;
  }
  // Pops the last n arguments (to build malformed variants).
  void pop(size_t n = 1) { ptrs_.resize(ptrs_.size() - n); }
  // Replaces argument i by a new EValue.
  void replace(size_t i, EValue v) {
    evalues_.push_back(v);
    ptrs_.at(i) = &evalues_.back();
  }

  KernelContext ctx;

 private:
  template <typename F>
  Tensor& raw_tensor(const std::vector<int32_t>& sizes, ScalarType dtype,
                     const std::vector<uint8_t>& order, F fill) {
    tensors_.emplace_back();
    TestTensor& tt = tensors_.back();
    tt.sizes = sizes;
    tt.order = order;
    size_t nbytes = numel_of(sizes) * element_size(dtype);
    tt.bytes.assign(nbytes + 1, 0);  // +1 keeps data() non-null for empty tensors
    tt.t.data = tt.bytes.data();
    tt.t.sizes = tt.sizes.empty() ? nullptr : tt.sizes.data();
    tt.t.dim_order = tt.order.empty() ? nullptr : tt.order.data();
    tt.t.nbytes = nbytes;
    tt.t.dtype = dtype;
    tt.t.dim = static_cast<uint8_t>(sizes.size());
    fill(tt);
    push(EValue::from_tensor(&tt.t));
    return tt.t;
  }
  void push(EValue v) {
    evalues_.push_back(v);
    ptrs_.push_back(&evalues_.back());
  }
  std::list<TestTensor> tensors_;
  std::list<EValue> evalues_;
  std::list<std::string> strings_;
  std::list<std::vector<int64_t>> int_lists_;
  std::list<std::vector<double>> double_lists_;
  std::list<std::vector<Tensor*>> tensor_lists_;
  std::vector<EValue*> ptrs_;
  std::vector<uint8_t> temp_;
};

// Element-wise comparison with a relative+absolute tolerance.
inline void expect_near(const std::vector<float>& got, const std::vector<double>& want,
                        double tol = 1e-5) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << "at " << i;
      continue;
    }
    if (std::isinf(want[i])) {
      EXPECT_EQ(double(got[i]), want[i]) << "at " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], tol * (1.0 + std::fabs(want[i]))) << "at " << i;
  }
}

}  // namespace test
}  // namespace etmcu
