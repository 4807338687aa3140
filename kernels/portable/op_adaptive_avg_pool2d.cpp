// aten::_adaptive_avg_pool2d.out: average over adaptive windows [floor(i*in/out),
// ceil((i+1)*in/out)) per output cell, f32/f64, [N,]C,H,W in any dim order.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/pool.h"

namespace etmcu {
namespace kernels {

namespace {
using util::Index;

template <typename T>
void adaptive_avg(const Tensor& in, const Tensor& out) {
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  const T* px = in.const_data_ptr<T>();
  T* py = out.mutable_data_ptr<T>();
  for (Index n = 0; n < y.size[0]; ++n)
    for (Index c = 0; c < y.size[1]; ++c) {
      const T* plane = px + n * x.stride[0] + c * x.stride[1];
      for (Index oh = 0; oh < y.size[2]; ++oh) {
        const Index h0 = oh * x.size[2] / y.size[2];
        const Index h1 = ((oh + 1) * x.size[2] + y.size[2] - 1) / y.size[2];
        for (Index ow = 0; ow < y.size[3]; ++ow) {
          const Index w0 = ow * x.size[3] / y.size[3];
          const Index w1 = ((ow + 1) * x.size[3] + y.size[3] - 1) / y.size[3];
          T sum = 0;
          for (Index h = h0; h < h1; ++h)
            for (Index w = w0; w < w1; ++w) sum += plane[h * x.stride[2] + w * x.stride[3]];
          py[n * y.stride[0] + c * y.stride[1] + oh * y.stride[2] + ow * y.stride[3]] =
              sum / static_cast<T>((h1 - h0) * (w1 - w0));
        }
      }
    }
}
}  // namespace

// _adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out) -> out
Error aten__adaptive_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      !util::is_valid_tensor_arg(args, 2) || !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "_adaptive_avg_pool2d.out: bad argument count or tags");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  int64_t os[2];
  if (!util::read_pair(*args[1], 2, os, 1, false))
    return ctx.fail(Error::InvalidArgument, "_adaptive_avg_pool2d.out: bad output_size");
  if ((in.dim != 3 && in.dim != 4) || out.dim != in.dim)
    return ctx.fail(Error::InvalidArgument, "_adaptive_avg_pool2d.out: expected 3-D or 4-D");
  if (!util::is_float_compute(in.dtype) || out.dtype != in.dtype)
    return ctx.fail(Error::InvalidType, "_adaptive_avg_pool2d.out: float dtype required");
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  if (y.size[0] != x.size[0] || y.size[1] != x.size[1] || y.size[2] != os[0] ||
      y.size[3] != os[1] || x.size[2] == 0 || x.size[3] == 0)
    return ctx.fail(Error::InvalidArgument, "_adaptive_avg_pool2d.out: out shape mismatch");
  (void)util::dispatch_float(in.dtype, [&](auto tag) { adaptive_avg<decltype(tag)>(in, out); });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
