// aten::max_pool2d_with_indices.out: 2-D max pooling over [N,]C,H,W (f32/f64) with padding
// (padded cells never win), dilation and ceil_mode; NaN propagates; indices are int64 offsets
// h * W + w within each plane, as in PyTorch. Any dim order. An indices tensor with no elements
// (the exporter's choice when nothing reads them) is not written: no int64 buffer is planned.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/pool.h"

namespace etmcu {
namespace kernels {

namespace {
using util::Index;

template <typename T>
void max_pool(const Tensor& in, const Tensor& out, const Tensor& idx, const int64_t* k64,
              const int64_t* s64, const int64_t* p64, const int64_t* d64) {
  const Index k[2] = {static_cast<Index>(k64[0]), static_cast<Index>(k64[1])};
  const Index s[2] = {static_cast<Index>(s64[0]), static_cast<Index>(s64[1])};
  const Index p[2] = {static_cast<Index>(p64[0]), static_cast<Index>(p64[1])};
  const Index d[2] = {static_cast<Index>(d64[0]), static_cast<Index>(d64[1])};
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  const util::View4 z = util::view4_chw(idx.numel() != 0 ? idx : out);
  const T* px = in.const_data_ptr<T>();
  T* py = out.mutable_data_ptr<T>();
  int64_t* pz = idx.numel() != 0 ? idx.mutable_data_ptr<int64_t>() : nullptr;
  for (Index n = 0; n < y.size[0]; ++n)
    for (Index c = 0; c < y.size[1]; ++c) {
      const T* plane = px + n * x.stride[0] + c * x.stride[1];
      for (Index oh = 0; oh < y.size[2]; ++oh)
        for (Index ow = 0; ow < y.size[3]; ++ow) {
          Index h0 = oh * s[0] - p[0], w0 = ow * s[1] - p[1];
          const Index h1 =
              h0 + (k[0] - 1) * d[0] + 1 < x.size[2] ? h0 + (k[0] - 1) * d[0] + 1 : x.size[2];
          const Index w1 =
              w0 + (k[1] - 1) * d[1] + 1 < x.size[3] ? w0 + (k[1] - 1) * d[1] + 1 : x.size[3];
          while (h0 < 0) h0 += d[0];
          while (w0 < 0) w0 += d[1];
          T best = -static_cast<T>(INFINITY);
          Index best_i = h0 * x.size[3] + w0;
          bool nan = false;  // a NaN wins for good, as in PyTorch
          for (Index h = h0; h < h1 && !nan; h += d[0])
            for (Index w = w0; w < w1 && !nan; w += d[1]) {
              const T v = plane[h * x.stride[2] + w * x.stride[3]];
              if (v > best || v != v) {
                best = v;
                best_i = h * x.size[3] + w;
                nan = v != v;
              }
            }
          const Index yo = n * y.stride[0] + c * y.stride[1] + oh * y.stride[2] + ow * y.stride[3];
          const Index zo = n * z.stride[0] + c * z.stride[1] + oh * z.stride[2] + ow * z.stride[3];
          py[yo] = best;
          if (pz != nullptr) pz[zo] = best_i;
        }
    }
}
}  // namespace

// max_pool2d_with_indices.out(Tensor self, int[2] kernel_size, int[2] stride=[],
//     int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!) out,
//     Tensor(b!) indices) -> (out, indices)   [+ TensorList of the outs]
Error aten_max_pool2d_with_indices_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 9 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      args[2] == nullptr || args[3] == nullptr || args[4] == nullptr ||
      !util::is_bool_arg(args, 5) || !util::is_valid_tensor_arg(args, 6) ||
      !util::is_valid_tensor_arg(args, 7) || !util::is_out_list(args, 8, 6, 2))
    return ctx.fail(Error::InvalidArgument,
                    "max_pool2d_with_indices.out: bad argument count or tags");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 6);
  const Tensor& idx = util::tensor_arg(args, 7);
  int64_t k[2], s[2], p[2] = {0, 0}, d[2] = {1, 1};
  if (!util::read_pair(*args[1], 2, k, 1, false))
    return ctx.fail(Error::InvalidArgument, "max_pool2d_with_indices.out: bad kernel_size");
  s[0] = k[0], s[1] = k[1];
  if (!util::read_pair(*args[2], 2, s, 1, true) || !util::read_pair(*args[3], 2, p, 0, false) ||
      !util::read_pair(*args[4], 2, d, 1, false))
    return ctx.fail(Error::InvalidArgument,
                    "max_pool2d_with_indices.out: bad stride/padding/dilation");
  if (p[0] * 2 > k[0] || p[1] * 2 > k[1])
    return ctx.fail(Error::InvalidArgument, "max_pool2d_with_indices.out: padding > kernel / 2");
  if ((in.dim != 3 && in.dim != 4) || out.dim != in.dim || idx.dim != in.dim)
    return ctx.fail(Error::InvalidArgument, "max_pool2d_with_indices.out: expected 3-D or 4-D");
  if (!util::is_float_compute(in.dtype) || out.dtype != in.dtype || idx.dtype != ScalarType::Long)
    return ctx.fail(Error::InvalidType, "max_pool2d_with_indices.out: float in/out, int64 indices");
  const bool ceil_mode = args[5]->to_bool();
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  for (int i = 0; i < 2; ++i) {
    const int64_t o = util::pool_out_size(x.size[2 + i], k[i], p[i], s[i], d[i], ceil_mode);
    if (o < 1)
      return ctx.fail(Error::InvalidArgument, "max_pool2d_with_indices.out: output too small");
    if (y.size[2 + i] != o)
      return ctx.fail(Error::InvalidArgument, "max_pool2d_with_indices.out: out shape mismatch");
  }
  if (y.size[0] != x.size[0] || y.size[1] != x.size[1] ||
      (idx.numel() != 0 && !out.same_shape(idx)))
    return ctx.fail(Error::InvalidArgument, "max_pool2d_with_indices.out: out shape mismatch");
  (void)util::dispatch_float(in.dtype,
                             [&](auto tag) { max_pool<decltype(tag)>(in, out, idx, k, s, p, d); });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
