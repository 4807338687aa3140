// aten::avg_pool2d.out: 2-D average pooling over [N,]C,H,W (f32/f64) with padding, ceil_mode,
// count_include_pad and divisor_override, following PyTorch's window/divisor rules; any dim order.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/pool.h"

namespace etmcu {
namespace kernels {

namespace {
using util::Index;

template <typename T>
void avg_pool(const Tensor& in, const Tensor& out, const int64_t* k64, const int64_t* s64,
              const int64_t* p64, bool include_pad, Index divisor) {
  const Index k[2] = {static_cast<Index>(k64[0]), static_cast<Index>(k64[1])};
  const Index s[2] = {static_cast<Index>(s64[0]), static_cast<Index>(s64[1])};
  const Index p[2] = {static_cast<Index>(p64[0]), static_cast<Index>(p64[1])};
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  const T* px = in.const_data_ptr<T>();
  T* py = out.mutable_data_ptr<T>();
  for (Index n = 0; n < y.size[0]; ++n)
    for (Index c = 0; c < y.size[1]; ++c) {
      const T* plane = px + n * x.stride[0] + c * x.stride[1];
      for (Index oh = 0; oh < y.size[2]; ++oh)
        for (Index ow = 0; ow < y.size[3]; ++ow) {
          Index h0 = oh * s[0] - p[0], w0 = ow * s[1] - p[1];
          Index h1 = h0 + k[0], w1 = w0 + k[1];
          // The padded window (clipped to input + padding) counts for count_include_pad.
          if (h1 > x.size[2] + p[0]) h1 = x.size[2] + p[0];
          if (w1 > x.size[3] + p[1]) w1 = x.size[3] + p[1];
          const Index pool_size = (h1 - h0) * (w1 - w0);
          if (h0 < 0) h0 = 0;
          if (w0 < 0) w0 = 0;
          if (h1 > x.size[2]) h1 = x.size[2];
          if (w1 > x.size[3]) w1 = x.size[3];
          T v = 0;
          if (h0 < h1 && w0 < w1) {
            T sum = 0;
            for (Index h = h0; h < h1; ++h)
              for (Index w = w0; w < w1; ++w) sum += plane[h * x.stride[2] + w * x.stride[3]];
            const Index div = divisor ? divisor : (include_pad ? pool_size : (h1 - h0) * (w1 - w0));
            v = sum / static_cast<T>(div);
          }
          py[n * y.stride[0] + c * y.stride[1] + oh * y.stride[2] + ow * y.stride[3]] = v;
        }
    }
}
}  // namespace

// avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *,
//     Tensor(a!) out) -> out
Error aten_avg_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 9 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      args[2] == nullptr || args[3] == nullptr || !util::is_bool_arg(args, 4) ||
      !util::is_bool_arg(args, 5) || args[6] == nullptr ||
      !(args[6]->is_none() || args[6]->is_int()) || !util::is_valid_tensor_arg(args, 7) ||
      !util::is_return_of(args, 8, 7))
    return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: bad argument count or tags");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 7);
  int64_t k[2], s[2], p[2] = {0, 0};
  if (!util::read_pair(*args[1], 2, k, 1, false))
    return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: bad kernel_size");
  s[0] = k[0], s[1] = k[1];
  if (!util::read_pair(*args[2], 2, s, 1, true) || !util::read_pair(*args[3], 2, p, 0, false))
    return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: bad stride/padding");
  if (p[0] * 2 > k[0] || p[1] * 2 > k[1])
    return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: padding > kernel / 2");
  const int64_t divisor = args[6]->is_int() ? args[6]->to_int() : 0;
  if (args[6]->is_int() && divisor == 0)
    return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: divisor_override is 0");
  if ((in.dim != 3 && in.dim != 4) || out.dim != in.dim)
    return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: expected 3-D or 4-D");
  if (!util::is_float_compute(in.dtype) || out.dtype != in.dtype)
    return ctx.fail(Error::InvalidType, "avg_pool2d.out: self and out must share a float dtype");
  const bool ceil_mode = args[4]->to_bool();
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  for (int i = 0; i < 2; ++i) {
    const int64_t o = util::pool_out_size(x.size[2 + i], k[i], p[i], s[i], 1, ceil_mode);
    if (o < 1) return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: output too small");
    if (y.size[2 + i] != o)
      return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: out shape mismatch");
  }
  if (y.size[0] != x.size[0] || y.size[1] != x.size[1])
    return ctx.fail(Error::InvalidArgument, "avg_pool2d.out: out shape mismatch");
  (void)util::dispatch_float(in.dtype, [&](auto tag) {
    avg_pool<decltype(tag)>(in, out, k, s, p, args[5]->to_bool(), divisor);
  });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
