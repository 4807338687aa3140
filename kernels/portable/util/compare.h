// Comparison ops (eq/ne/lt/le/gt/ge, Scalar and Tensor overloads): PyTorch promotion of the two
// operands, broadcasting, any dim order; the result is written as bool (or 1/0 in other dtypes).
#pragma once
#include "kernels/portable/util/elementwise.h"

namespace etmcu {
namespace kernels {
namespace util {

enum class CmpKind { kEq, kNe, kLt, kLe, kGt, kGe };

template <CmpKind K, typename C>
inline bool compare(C x, C y) {
  if constexpr (K == CmpKind::kEq)
    return x == y;
  else if constexpr (K == CmpKind::kNe)
    return x != y;  // NaN != anything
  else if constexpr (K == CmpKind::kLt)
    return x < y;
  else if constexpr (K == CmpKind::kLe)
    return x <= y;
  else if constexpr (K == CmpKind::kGt)
    return x > y;
  else
    return x >= y;
}

template <CmpKind K, typename C>
void compare_loop(const Tensor& a, const Tensor& b, const Tensor& out) {
  const size_t n = out.numel();
  constexpr ScalarType kC = dtype_of<C>();
  if (a.dtype == kC && b.dtype == kC && b.numel() == 1 && out.dtype == ScalarType::Bool &&
      a.same_shape(out) && a.same_dim_order(out)) {  // tensor vs scalar, the common case
    const C* x = a.const_data_ptr<C>();
    const C s = b.const_data_ptr<C>()[0];
    bool* z = out.mutable_data_ptr<bool>();
    for (size_t i = 0; i < n; ++i) z[i] = compare<K>(x[i], s);
    return;
  }
  const Tensor* ins[2] = {&a, &b};
  StridedIter it(out, ins, 2);
  for (size_t i = 0; i < n; ++i, it.next()) {
    const bool r = compare<K>(load_as<C>(a.data, a.dtype, it.offset(0)),
                              load_as<C>(b.data, b.dtype, it.offset(1)));
    store_as<int64_t>(out.data, out.dtype, static_cast<Index>(i), r ? 1 : 0);
  }
}

// out = a <K> b; `b_scalar` marks a wrapped Scalar argument (viewed as a 0-dim tensor).
template <CmpKind K>
Error compare_op(KernelContext& ctx, const Tensor& a, const Tensor& b, bool b_scalar,
                 const Tensor& out) {
  if (!is_supported_dtype(a.dtype) || !(b_scalar || is_supported_dtype(b.dtype)) ||
      !is_supported_dtype(out.dtype))
    return ctx.fail(Error::InvalidType, "compare op: unsupported dtype");
  const Tensor* ins[2] = {&a, &b};
  if (!is_broadcast_shape(out, ins, 2))
    return ctx.fail(Error::InvalidArgument, "compare op: out shape is not the broadcast shape");
  const ScalarType common = result_type(a, b.dtype, b.dim == 0, b_scalar);
  // A 0-dim other is converted once to the common dtype, as PyTorch does.
  Tensor b_conv;
  alignas(8) uint8_t b_buf[8];  // holds any dtype
  const Tensor* pb = &b;
  if (b.dim == 0 && b.dtype != common) {
    convert_element(b.data, b.dtype, 0, b_buf, common, 0);
    b_conv.data = b_buf;
    b_conv.nbytes = sizeof(b_buf);
    b_conv.dtype = common;
    b_conv.dim = 0;
    pb = &b_conv;
  }
  if (common == ScalarType::Double) {
    if constexpr (kF64) compare_loop<K, double>(a, *pb, out);
  } else if (common == ScalarType::Float) {
    compare_loop<K, float>(a, *pb, out);
  } else {
    dispatch_all(common, [&](auto tag) {  // integers and bool compare in their own type
      using T = decltype(tag);
      if constexpr (!IsFloat<T>::value) compare_loop<K, T>(a, *pb, out);
    });
  }
  return Error::Ok;
}

// Shared argument handling of `op.Scalar_out(self, Scalar other, *, out)` and
// `op.Tensor_out(self, Tensor other, *, out)` (4 values each).
template <CmpKind K>
Error compare_kernel(KernelContext& ctx, Span<EValue*> args, bool scalar_other) {
  if (args.size() != 4 || !is_valid_tensor_arg(args, 0) ||
      !(scalar_other ? is_scalar_arg(args, 1) : is_valid_tensor_arg(args, 1)) ||
      !is_valid_tensor_arg(args, 2) || !is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "compare op: expected (self, other, out, out)");
  if (scalar_other) {
    ScalarTensor other(*args[1]);
    return compare_op<K>(ctx, tensor_arg(args, 0), other.t, true, tensor_arg(args, 2));
  }
  return compare_op<K>(ctx, tensor_arg(args, 0), tensor_arg(args, 1), false, tensor_arg(args, 2));
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
