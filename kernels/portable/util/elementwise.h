// Elementwise loops shared by the portable kernels: unary/binary/ternary maps with broadcasting,
// dim-order-aware strides and dtype conversion, plus a 0-dim tensor view of a Scalar argument.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "kernels/api/kernel_paths.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {
namespace util {

// A Scalar EValue viewed as a 0-dim tensor (Double, Long or Bool) so it can join tensor loops.
struct ScalarTensor {
  union {
    double d;
    int64_t i;
    bool b;
  } v;
  Tensor t;
  explicit ScalarTensor(const EValue& e) {
    t.dim = 0;
    t.data = &v;
    t.nbytes = 8;
    t.dtype = scalar_dtype(e);
    if (e.is_double())
      v.d = e.to_double();
    else if (e.is_bool())
      v.b = e.to_bool();
    else
      v.i = e.to_int();
  }
  ScalarTensor(const ScalarTensor&) = delete;
  ScalarTensor& operator=(const ScalarTensor&) = delete;
};

// out[i] = op(in[i]) computed in C; `in` has out's shape (dim orders and dtypes may differ).
template <typename C, typename Op>
void map_unary(const Tensor& in, const Tensor& out, Op op) {
  const size_t n = out.numel();
  constexpr ScalarType kC = dtype_of<C>();
  if (in.dtype == kC && out.dtype == kC && in.same_shape(out) && in.same_dim_order(out)) {
    const C* x = in.const_data_ptr<C>();
    C* y = out.mutable_data_ptr<C>();
    for (size_t i = 0; i < n; ++i) y[i] = op(x[i]);
    return;
  }
  const Tensor* ins[1] = {&in};
  StridedIter it(out, ins, 1);
  for (size_t i = 0; i < n; ++i, it.next())
    store_as<C, true>(out.data, out.dtype, i,
                      op(load_as<C, true>(in.data, in.dtype, it.offset(0))));
}

// The general case of map_binary: broadcasting, dim orders, dtype conversion. Kept out of line
// (the slow path): ops that share `op` share one copy.
template <typename C, typename Op>
__attribute__((noinline)) void map_binary_strided(const Tensor& a, const Tensor& b,
                                                  const Tensor& out, Op op) {
  constexpr ScalarType kC = dtype_of<C>();
  const bool b_one = b.dtype == kC && b.numel() == 1;
  const C s = b_one ? b.const_data_ptr<C>()[0] : static_cast<C>(0);
  const size_t n = out.numel();
  const Tensor* ins[2] = {&a, &b};
  StridedIter it(out, ins, 2);
  for (size_t i = 0; i < n; ++i, it.next()) {
    const C x = load_as<C, true>(a.data, a.dtype, it.offset(0));
    const C y = b_one ? s : load_as<C, true>(b.data, b.dtype, it.offset(1));
    store_as<C, true>(out.data, out.dtype, i, op(x, y));
  }
}

// out[i] = op(a[i], b[i]) computed in C with broadcasting; out has the broadcast shape. a and out
// are validated tensors; b is one too, or a one-element tensor of dtype C (a converted Scalar).
// `fast` serves the contiguous same-dtype loops, `op` (same results) the general case. False:
// the general case is needed and this build left it out (kPathBinaryStrided); nothing written.
template <typename C, typename FastOp, typename Op>
bool map_binary(const Tensor& a, const Tensor& b, const Tensor& out, FastOp fast, Op op) {
  const BinaryLayout layout = binary_layout(a, b, out, dtype_of<C>());
  if (layout == BinaryLayout::kGeneral) {
    if (!kernel_path(kPathBinaryStrided)) return false;
    map_binary_strided<C>(a, b, out, op);
    return true;
  }
  const size_t n = out.numel();
  const C* x = a.const_data_ptr<C>();
  const C* y = b.const_data_ptr<C>();
  C* z = out.mutable_data_ptr<C>();
  if (layout == BinaryLayout::kScalar) {  // tensor op scalar, the common case
    const C s = y[0];
    for (size_t i = 0; i < n; ++i) z[i] = fast(x[i], s);
  } else {
    for (size_t i = 0; i < n; ++i) z[i] = fast(x[i], y[i]);
  }
  return true;
}
template <typename C, typename Op>
bool map_binary(const Tensor& a, const Tensor& b, const Tensor& out, Op op) {
  return map_binary<C>(a, b, out, op, op);
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
