// Driver for unary ops of the form op.out(Tensor self, *, Tensor(a!) out): argument checks, then
// an elementwise map in float (f32 in/out), double (f64) or the tensor's own C type.
#pragma once
#include "kernels/portable/util/elementwise.h"

namespace etmcu {
namespace kernels {
namespace util {

// Checks the (self, out, out) layout; on success sets *in and *out.
inline bool unary_args(Span<EValue*> args, const Tensor** in, const Tensor** out) {
  if (args.size() != 3 || !is_valid_tensor_arg(args, 0) || !is_valid_tensor_arg(args, 1) ||
      !is_return_of(args, 2, 1))
    return false;
  *in = &tensor_arg(args, 0);
  *out = &tensor_arg(args, 1);
  return true;
}

// Ops whose result is floating (sigmoid, tanh, exp, rsqrt, gelu): integer and bool inputs are
// promoted to float like PyTorch; f64 computes in double, everything else in float.
template <typename FF, typename FD>
Error float_unary(KernelContext& ctx, const Tensor& in, const Tensor& out, FF ff, FD fd) {
  if (!is_supported_dtype(in.dtype) || !is_floating(out.dtype))
    return ctx.fail(Error::InvalidType, "unary op: unsupported dtype (out must be float)");
  if (!in.same_shape(out)) return ctx.fail(Error::InvalidArgument, "unary op: out shape != input");
  if (in.dtype == ScalarType::Double || out.dtype == ScalarType::Double) {
    if constexpr (kF64)
      map_unary<double>(in, out, fd);
    else
      return ctx.fail(Error::NotSupported, "unary op: f64 math is disabled in this build");
  } else {
    map_unary<float>(in, out, ff);
  }
  return Error::Ok;
}

// Ops that keep the dtype (relu, neg, hardtanh, ...): out dtype must equal the input dtype;
// f(T) is called with the tensor's C type.
template <typename F>
Error same_dtype_unary(KernelContext& ctx, const Tensor& in, const Tensor& out, bool allow_bool,
                       F f) {
  if (in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "unary op: out dtype must equal input dtype");
  if (!in.same_shape(out)) return ctx.fail(Error::InvalidArgument, "unary op: out shape != input");
  if (!allow_bool && in.dtype == ScalarType::Bool)
    return ctx.fail(Error::InvalidType, "unary op: bool input not supported");
  if (!dispatch_all(in.dtype, f))
    return ctx.fail(Error::InvalidType, "unary op: unsupported dtype");
  return Error::Ok;
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
