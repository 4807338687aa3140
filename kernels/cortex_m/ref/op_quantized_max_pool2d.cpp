// cortex_m::quantized_max_pool2d.out: int8 NHWC max pool (arm_max_pool_s8): the max of the
// in-bounds taps, clamped to [activation_min, activation_max]; input and output share zero point
// and scale.
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/cmsis_math.h"
#include "kernels/cortex_m/util/conv_util.h"

namespace etmcu {
namespace kernels {

// quantized_max_pool2d.out(Tensor input, int[] kernel_size, int[] stride, int[] padding,
//     int[] dilation, bool ceil_mode, int input_zero_point, int output_zero_point,
//     int activation_min, int activation_max, *, Tensor(a!) out) -> Tensor(a!)
// input/out [N,C,H,W] int8 channels-last; dilation must be 1 and ceil_mode false (as upstream).
Error cortex_m_quantized_max_pool2d_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 12)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_max_pool2d.out: expected 10 arguments + out (+ return)");
  Pair k, stride, pad, dil;
  if (!is_tensor(args, 0) || !read_pair(args, 1, 1, 65535, &k) ||
      !read_pair(args, 2, 1, 65535, &stride) || !read_pair(args, 3, 0, 65535, &pad) ||
      !read_pair(args, 4, 1, 65535, &dil) || !is_bool(args, 5) || !is_int(args, 6) ||
      !is_int(args, 7) || !is_int(args, 8) || !is_int(args, 9) || !is_tensor(args, 10) ||
      !is_return_of(args, 11, 10))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_max_pool2d.out: expected (input, kernel_size[2]>0, "
                    "stride[2]>0, padding[2]>=0, dilation[2], ceil_mode, input_zp, output_zp, "
                    "activation_min, activation_max, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& out = tensor(args, 10);
  if (in.dtype != ScalarType::Char || out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType, "cortex_m::quantized_max_pool2d.out: tensors must be int8");
  if (in.dim != 4 || out.dim != 4 || !is_nhwc_compatible(in) || !is_nhwc_compatible(out))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_max_pool2d.out: tensors must be 4-D channels-last (NHWC)");
  if (dil.h != 1 || dil.w != 1 || args[5]->to_bool())
    return ctx.fail(Error::NotSupported,
                    "cortex_m::quantized_max_pool2d.out: dilation != 1 and ceil_mode are not "
                    "supported");
  const int64_t izp = int_arg(args, 6), ozp = int_arg(args, 7);
  if (!in_range(izp, -128, 127) || izp != ozp)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_max_pool2d.out: zero points must be int8 and equal");
  const int64_t act_min = int_arg(args, 8), act_max = int_arg(args, 9);
  if (!valid_activation(act_min, act_max))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_max_pool2d.out: activation range must lie in int8");
  const Nhwc x = nhwc_of(in), y = nhwc_of(out);
  if (x.n != y.n || x.c != y.c || conv_out_size(x.h, k.h, stride.h, pad.h, 1) != y.h ||
      conv_out_size(x.w, k.w, stride.w, pad.w, 1) != y.w)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_max_pool2d.out: out shape does not match input, kernel, "
                    "stride and padding");
  if (2 * pad.h > k.h || 2 * pad.w > k.w)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_max_pool2d.out: padding must be at most half the kernel");
  const int32_t amin = static_cast<int32_t>(act_min), amax = static_cast<int32_t>(act_max);
  const int8_t* px = in.const_data_ptr<int8_t>();
  int8_t* py = out.mutable_data_ptr<int8_t>();
  for (int32_t n = 0; n < x.n; ++n) {
    const int8_t* xb = px + static_cast<size_t>(n) * x.h * x.w * x.c;
    for (int32_t oy = 0; oy < y.h; ++oy) {
      const int32_t y0 = oy * stride.h - pad.h;
      const int32_t ky0 = y0 < 0 ? 0 : y0, ky1 = y0 + k.h < x.h ? y0 + k.h : x.h;
      for (int32_t ox = 0; ox < y.w; ++ox) {
        const int32_t x0 = ox * stride.w - pad.w;
        const int32_t kx0 = x0 < 0 ? 0 : x0, kx1 = x0 + k.w < x.w ? x0 + k.w : x.w;
        for (int32_t c = 0; c < x.c; ++c) {
          int32_t m = -128;  // every window holds a tap (pad <= kernel / 2 is checked above)
          for (int32_t iy = ky0; iy < ky1; ++iy)
            for (int32_t ix = kx0; ix < kx1; ++ix) {
              const int32_t v = xb[(static_cast<size_t>(iy) * x.w + ix) * x.c + c];
              m = v > m ? v : m;
            }
          *py++ = static_cast<int8_t>(cmsis::clamp(m, amin, amax));
        }
      }
    }
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
