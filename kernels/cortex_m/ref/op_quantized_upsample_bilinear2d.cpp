// etmcu::quantized_upsample_bilinear2d.out: int8 bilinear upsampling (F.interpolate(mode=
// "bilinear"), nn.Upsample), an etmcu op (CMSIS-NN and upstream's cortex_m library have none).
// Bilinear weights sum to one, so the output keeps the input's scale and zero point and the
// kernel interpolates the int8 values themselves, in integers only (the same bits on every core):
//   source coordinate of output index d (PyTorch's, exact as a fraction num / den):
//     align_corners: d * (in - 1) / (out - 1)        (0 when out == 1)
//     half-pixel:    ((2d + 1) * in - out) / (2 out), clamped at 0
//   i0 = floor, i1 = i0 + 1 (i0 at the last index: i0), weight of i1 w = round(frac * 1024)
//   (half up), out = floor((sum of the four taps x * wy' * wx' + 2^19) / 2^20) with weights
//   1024 - w and w per axis: round half up of the interpolated value (docs/int8.md).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {

namespace {

constexpr uint32_t kWeightBits = 10;
constexpr uint32_t kOne = 1u << kWeightBits;

struct Tap {
  uint32_t i0, i1;  // the two source indices
  uint32_t w;       // weight of i1 in 1/1024 (i0 gets 1024 - w)
};

// Sizes below 2^20 with in * out < 2^31 keep every product below 2^32.
bool axis_ok(int64_t in, int64_t out) {
  return in >= 1 && out >= 1 && in < (1 << 20) && out < (1 << 20) && in * out < (int64_t{1} << 31);
}

Tap tap(uint32_t d, uint32_t in, uint32_t out, bool align_corners) {
  uint32_t num, den;
  if (align_corners) {
    if (out == 1) return Tap{0, 0, 0};
    num = d * (in - 1);
    den = out - 1;
  } else {
    uint32_t a = (2 * d + 1) * in;
    if (a <= out) return Tap{0, in > 1 ? 1u : 0u, 0};  // the source clamped at 0
    num = a - out;
    den = 2 * out;
  }
  uint32_t i0 = num / den;
  uint32_t r = num - i0 * den;
  uint32_t w = (r * kOne + den / 2) / den;  // r < den <= 2^21: r * 1024 < 2^31
  return Tap{i0, i0 + 1 < in ? i0 + 1 : i0, w};
}

}  // namespace

// quantized_upsample_bilinear2d.out(Tensor input, bool align_corners, *, Tensor(a!) out)
// -> Tensor(a!). input and out int8, 4-D [N, C, H, W] channels-last (NHWC bytes), the same N and
// C; the output size is out's H and W.
Error etmcu_quantized_upsample_bilinear2d_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 4)
    return ctx.fail(Error::InvalidArgument,
                    "etmcu::quantized_upsample_bilinear2d.out: expected 2 arguments + out (+ "
                    "return)");
  if (!is_tensor(args, 0) || !is_bool(args, 1) || !is_tensor(args, 2) || !is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument,
                    "etmcu::quantized_upsample_bilinear2d.out: expected (input, align_corners, "
                    "out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 2);
  const bool align_corners = args[1]->to_bool();
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType,
                    "etmcu::quantized_upsample_bilinear2d.out: input and out must be int8");
  if (in.dim != 4 || out.dim != 4 || in.size(0) != out.size(0) || in.size(1) != out.size(1))
    return ctx.fail(Error::InvalidArgument,
                    "etmcu::quantized_upsample_bilinear2d.out: input and out must be 4-D [N, C, "
                    "H, W] with the same N and C");
  if (!is_nhwc_compatible(in) || !is_nhwc_compatible(out))
    return ctx.fail(Error::InvalidArgument,
                    "etmcu::quantized_upsample_bilinear2d.out: input and out must be "
                    "channels-last (NHWC)");
  const int64_t h = in.size(2), w = in.size(3), ho = out.size(2), wo = out.size(3);
  if (!axis_ok(h, ho) || !axis_ok(w, wo))
    return ctx.fail(Error::InvalidArgument,
                    "etmcu::quantized_upsample_bilinear2d.out: sizes must be in [1, 2^20) with "
                    "in * out < 2^31 per axis");
  if (in.numel() == 0 || out.numel() == 0) return Error::Ok;
  const size_t c = static_cast<size_t>(in.size(1));
  const int8_t* x = in.const_data_ptr<int8_t>();
  int8_t* y = out.mutable_data_ptr<int8_t>();
  for (int32_t n = 0; n < in.size(0); ++n) {
    const int8_t* xn = x + static_cast<size_t>(n) * h * w * c;
    for (uint32_t oy = 0; oy < ho; ++oy) {
      Tap ty = tap(oy, static_cast<uint32_t>(h), static_cast<uint32_t>(ho), align_corners);
      const int8_t* row0 = xn + ty.i0 * w * c;
      const int8_t* row1 = xn + ty.i1 * w * c;
      const int32_t wy1 = static_cast<int32_t>(ty.w), wy0 = static_cast<int32_t>(kOne) - wy1;
      for (uint32_t ox = 0; ox < wo; ++ox) {
        Tap tx = tap(ox, static_cast<uint32_t>(w), static_cast<uint32_t>(wo), align_corners);
        const int8_t* p00 = row0 + tx.i0 * c;
        const int8_t* p01 = row0 + tx.i1 * c;
        const int8_t* p10 = row1 + tx.i0 * c;
        const int8_t* p11 = row1 + tx.i1 * c;
        const int32_t wx1 = static_cast<int32_t>(tx.w), wx0 = static_cast<int32_t>(kOne) - wx1;
        for (size_t k = 0; k < c; ++k) {
          int32_t top = p00[k] * wx0 + p01[k] * wx1;  // |.| <= 128 * 2^10
          int32_t bottom = p10[k] * wx0 + p11[k] * wx1;
          int32_t acc = top * wy0 + bottom * wy1;  // in [-128, 127] * 2^20
          // round half up without shifting a negative number: offset by 128 * 2^20 first
          y[k] = static_cast<int8_t>(((acc + (128 << 20) + (1 << 19)) >> (2 * kWeightBits)) - 128);
        }
        y += c;
      }
    }
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
