// aten::upsample_bilinear2d.vec_out: bilinear resize of [N,C,H,W] (f32/f64) with PyTorch's source
// coordinates (align_corners or half-pixel, clamped at 0), any dim order.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/pool.h"

namespace etmcu {
namespace kernels {

namespace {
// PyTorch's area_pixel_compute_scale / _source_index, in the compute type T.
template <typename T>
T source_scale(int64_t in, int64_t out, bool align_corners, double scale_factor) {
  if (align_corners) return out > 1 ? static_cast<T>(in - 1) / static_cast<T>(out - 1) : T(0);
  return scale_factor > 0.0 ? static_cast<T>(1.0 / scale_factor)
                            : static_cast<T>(in) / static_cast<T>(out);
}

template <typename T>
void taps(int64_t dst, int64_t in, T scale, bool align_corners, int64_t* i0, int64_t* i1, T* l0,
          T* l1) {
  T src =
      align_corners ? scale * static_cast<T>(dst) : scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  if (src < T(0)) src = T(0);
  *i0 = static_cast<int64_t>(src);  // floor: src >= 0
  if (*i0 > in - 1) *i0 = in - 1;
  *i1 = *i0 + (*i0 < in - 1 ? 1 : 0);
  *l1 = src - static_cast<T>(*i0);
  *l0 = T(1) - *l1;
}

template <typename T>
void bilinear(const Tensor& in, const Tensor& out, bool align_corners, const double* sf) {
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  const T sh = source_scale<T>(x.size[2], y.size[2], align_corners, sf[0]);
  const T sw = source_scale<T>(x.size[3], y.size[3], align_corners, sf[1]);
  const T* px = in.const_data_ptr<T>();
  T* py = out.mutable_data_ptr<T>();
  for (int64_t n = 0; n < y.size[0]; ++n)
    for (int64_t c = 0; c < y.size[1]; ++c) {
      const T* plane = px + n * x.stride[0] + c * x.stride[1];
      for (int64_t oh = 0; oh < y.size[2]; ++oh) {
        int64_t h0, h1;
        T a0, a1;
        taps<T>(oh, x.size[2], sh, align_corners, &h0, &h1, &a0, &a1);
        for (int64_t ow = 0; ow < y.size[3]; ++ow) {
          int64_t w0, w1;
          T b0, b1;
          taps<T>(ow, x.size[3], sw, align_corners, &w0, &w1, &b0, &b1);
          const T v00 = plane[h0 * x.stride[2] + w0 * x.stride[3]];
          const T v01 = plane[h0 * x.stride[2] + w1 * x.stride[3]];
          const T v10 = plane[h1 * x.stride[2] + w0 * x.stride[3]];
          const T v11 = plane[h1 * x.stride[2] + w1 * x.stride[3]];
          py[n * y.stride[0] + c * y.stride[1] + oh * y.stride[2] + ow * y.stride[3]] =
              a0 * (b0 * v00 + b1 * v01) + a1 * (b0 * v10 + b1 * v11);
        }
      }
    }
}
}  // namespace

// upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners,
//                             float[]? scale_factors, *, Tensor(a!) out) -> out
Error aten_upsample_bilinear2d_vec_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 6 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      !(args[1]->is_none() || util::is_int_list_arg(args, 1)) || !util::is_bool_arg(args, 2) ||
      args[3] == nullptr || !(args[3]->is_none() || args[3]->is_double_list()) ||
      !util::is_valid_tensor_arg(args, 4) || !util::is_return_of(args, 5, 4))
    return ctx.fail(Error::InvalidArgument,
                    "upsample_bilinear2d.vec_out: bad argument count or tags");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 4);
  if (in.dim != 4 || out.dim != 4 || in.sizes[0] != out.sizes[0] || in.sizes[1] != out.sizes[1])
    return ctx.fail(Error::InvalidArgument, "upsample_bilinear2d.vec_out: expected 4-D, same N, C");
  if (in.dtype != out.dtype || !util::is_float_compute(in.dtype))
    return ctx.fail(Error::InvalidType, "upsample_bilinear2d.vec_out: float in and out");
  const bool align_corners = args[2]->to_bool();
  double sf[2] = {0.0, 0.0};
  int64_t want[2];
  if (args[1]->is_int_list()) {
    if (!util::read_pair(*args[1], 2, want, 1, false) || args[3]->is_double_list())
      return ctx.fail(Error::InvalidArgument, "upsample_bilinear2d.vec_out: bad output_size");
  } else {
    if (!args[3]->is_double_list() || args[3]->payload.as_span.size != 2 ||
        args[3]->payload.as_span.data == nullptr)
      return ctx.fail(Error::InvalidArgument,
                      "upsample_bilinear2d.vec_out: need output_size or scales");
    Span<const double> l = args[3]->to_double_list();
    for (int i = 0; i < 2; ++i) {
      sf[i] = l[i];
      if (!(sf[i] > 0.0) || !(static_cast<double>(in.sizes[2 + i]) * sf[i] < 2147483648.0))
        return ctx.fail(Error::InvalidArgument, "upsample_bilinear2d.vec_out: bad scale");
      want[i] = static_cast<int64_t>(static_cast<double>(in.sizes[2 + i]) * sf[i]);  // floor
    }
  }
  if (out.sizes[2] != want[0] || out.sizes[3] != want[1])
    return ctx.fail(Error::InvalidArgument, "upsample_bilinear2d.vec_out: out shape mismatch");
  if (in.sizes[2] == 0 || in.sizes[3] == 0) return Error::Ok;
  (void)util::dispatch_float(
      in.dtype, [&](auto tag) { bilinear<decltype(tag)>(in, out, align_corners, sf); });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
