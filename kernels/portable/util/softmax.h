// Shared body of _softmax.out and _log_softmax.out: along `dim`, with max subtraction for
// stability; f32 computes in float (expf/logf), f64 in double; any dim order.
#pragma once
#include <math.h>

#include "kernels/portable/util/lines.h"

namespace etmcu {
namespace kernels {
namespace util {

inline float exp_of(float x) { return expf(x); }
inline double exp_of(double x) { return exp(x); }
inline float log_of(float x) { return logf(x); }
inline double log_of(double x) { return log(x); }

template <typename T>
void softmax_line(const T* x, Index xs, T* y, Index ys, Index n, bool log_mode) {
  T mx = x[0];
  for (Index i = 1; i < n; ++i) mx = (x[i * xs] > mx || x[i * xs] != x[i * xs]) ? x[i * xs] : mx;
  T sum = 0;
  if (log_mode) {
    for (Index i = 0; i < n; ++i) sum += exp_of(x[i * xs] - mx);
    const T lse = log_of(sum);
    for (Index i = 0; i < n; ++i) y[i * ys] = x[i * xs] - mx - lse;
  } else {
    // exp written first so that y may alias x.
    for (Index i = 0; i < n; ++i) {
      T e = exp_of(x[i * xs] - mx);
      y[i * ys] = e;
      sum += e;
    }
    const T inv = static_cast<T>(1) / sum;
    for (Index i = 0; i < n; ++i) y[i * ys] *= inv;
  }
}

inline Error softmax_common(KernelContext& ctx, Span<EValue*> args, bool log_mode) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_arg(args, 1) ||
      !util::is_bool_arg(args, 2) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "softmax: expected (self, dim, half_to_float, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  if (args[2]->to_bool())
    return ctx.fail(Error::NotSupported, "softmax: half_to_float unsupported");
  if (!util::is_float_compute(in.dtype) || in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "softmax: self and out must have the same float dtype");
  if (!in.same_shape(out)) return ctx.fail(Error::InvalidArgument, "softmax: shape mismatch");
  int dim;
  if (!util::normalize_dim(args[1]->to_int(), in.dim, &dim))
    return ctx.fail(Error::InvalidArgument, "softmax: dim out of range");
  if (in.numel() == 0) return Error::Ok;
  if (in.dim == 0) {  // a single element: softmax 1, log_softmax 0
    util::store_as<double>(out.data, out.dtype, 0, log_mode ? 0.0 : 1.0);
    return Error::Ok;
  }
  (void)util::dispatch_float(in.dtype, [&](auto tag) {
    using T = decltype(tag);
    const T* x = in.const_data_ptr<T>();
    T* y = out.mutable_data_ptr<T>();
    int64_t xs, ys;
    const Index n = in.sizes[dim];
    util::for_each_line(in, out, dim, &xs, &ys, [&](Index xo, Index yo) {
      softmax_line(x + xo, xs, y + yo, ys, n, log_mode);
    });
  });
  return Error::Ok;
}
}  // namespace util
}  // namespace kernels
}  // namespace etmcu
