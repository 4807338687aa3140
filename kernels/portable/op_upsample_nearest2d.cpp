// aten::upsample_nearest2d.vec_out: nearest-neighbour resize of [N,C,H,W] using PyTorch's
// (legacy, "nearest") source index floor(dst * scale); any dim order, any dtype.
#include <math.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/pool.h"

namespace etmcu {
namespace kernels {

namespace {
// Source index as in PyTorch's nearest_idx: identity and exact 2x are special-cased, otherwise
// floor(dst * scale) in float, scale = 1 / scale_factor when given, else in / out.
int64_t nearest_src(int64_t dst, int64_t in, int64_t out, double scale_factor) {
  if (out == in) return dst;
  if (out == 2 * in) return dst >> 1;
  const float scale = scale_factor > 0.0 ? static_cast<float>(1.0 / scale_factor)
                                         : static_cast<float>(in) / static_cast<float>(out);
  const int64_t s = static_cast<int64_t>(floorf(static_cast<float>(dst) * scale));
  return s < in - 1 ? s : in - 1;
}
}  // namespace

// upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *,
//                            Tensor(a!) out) -> out
Error aten_upsample_nearest2d_vec_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      !(args[1]->is_none() || util::is_int_list_arg(args, 1)) || args[2] == nullptr ||
      !(args[2]->is_none() || args[2]->is_double_list()) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "upsample_nearest2d.vec_out: bad argument count or tags");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  if (in.dim != 4 || out.dim != 4 || in.sizes[0] != out.sizes[0] || in.sizes[1] != out.sizes[1])
    return ctx.fail(Error::InvalidArgument, "upsample_nearest2d.vec_out: expected 4-D, same N, C");
  if (in.dtype != out.dtype || !util::is_supported_dtype(in.dtype))
    return ctx.fail(Error::InvalidType, "upsample_nearest2d.vec_out: dtype mismatch");
  double sf[2] = {0.0, 0.0};
  int64_t want[2];
  if (args[1]->is_int_list()) {
    if (!util::read_pair(*args[1], 2, want, 1, false) || args[2]->is_double_list())
      return ctx.fail(Error::InvalidArgument, "upsample_nearest2d.vec_out: bad output_size");
  } else {
    if (!args[2]->is_double_list() || args[2]->payload.as_span.size != 2 ||
        args[2]->payload.as_span.data == nullptr)
      return ctx.fail(Error::InvalidArgument,
                      "upsample_nearest2d.vec_out: need output_size or scales");
    Span<const double> l = args[2]->to_double_list();
    for (int i = 0; i < 2; ++i) {
      sf[i] = l[i];
      if (!(sf[i] > 0.0) || !(static_cast<double>(in.sizes[2 + i]) * sf[i] < 2147483648.0))
        return ctx.fail(Error::InvalidArgument, "upsample_nearest2d.vec_out: bad scale");
      want[i] = static_cast<int64_t>(static_cast<double>(in.sizes[2 + i]) * sf[i]);  // floor
    }
  }
  if (out.sizes[2] != want[0] || out.sizes[3] != want[1])
    return ctx.fail(Error::InvalidArgument, "upsample_nearest2d.vec_out: out shape mismatch");
  if (in.sizes[2] == 0 || in.sizes[3] == 0) return Error::Ok;
  // Gather through per-dim strides; H and W source indices come from small lookups per row.
  const util::View4 x = util::view4_chw(in), y = util::view4_chw(out);
  const size_t es = out.element_size();
  const uint8_t* px = static_cast<const uint8_t*>(in.data);
  uint8_t* py = static_cast<uint8_t*>(out.data);
  for (int64_t n = 0; n < y.size[0]; ++n)
    for (int64_t c = 0; c < y.size[1]; ++c)
      for (int64_t oh = 0; oh < y.size[2]; ++oh) {
        const int64_t ih = nearest_src(oh, x.size[2], y.size[2], sf[0]);
        for (int64_t ow = 0; ow < y.size[3]; ++ow) {
          const int64_t iw = nearest_src(ow, x.size[3], y.size[3], sf[1]);
          const int64_t so =
              n * x.stride[0] + c * x.stride[1] + ih * x.stride[2] + iw * x.stride[3];
          const int64_t d = n * y.stride[0] + c * y.stride[1] + oh * y.stride[2] + ow * y.stride[3];
          for (size_t b = 0; b < es; ++b) py[d * es + b] = px[so * es + b];
        }
      }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
