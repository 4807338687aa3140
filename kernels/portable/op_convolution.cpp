// aten::convolution.out: direct 1-D/2-D convolution (groups incl. depthwise, stride, padding,
// dilation, optional bias) for f32/f64, accumulating in the tensor's type; any dim order (strided
// indexing, so channels-last works). Transposed convolution is not supported.
#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/pool.h"

namespace etmcu {
namespace kernels {

namespace {
using util::Index;

template <typename T>
void conv_direct(const Tensor& in, const Tensor& w, const Tensor* bias, const Tensor& out,
                 const int64_t* stride64, const int64_t* pad64, const int64_t* dil64,
                 Index groups) {
  const Index stride[2] = {static_cast<Index>(stride64[0]), static_cast<Index>(stride64[1])};
  const Index pad[2] = {static_cast<Index>(pad64[0]), static_cast<Index>(pad64[1])};
  const Index dil[2] = {static_cast<Index>(dil64[0]), static_cast<Index>(dil64[1])};
  const util::View4 x = util::view4_conv(in), k = util::view4_conv(w), y = util::view4_conv(out);
  const T* px = in.const_data_ptr<T>();
  const T* pw = w.const_data_ptr<T>();
  T* py = out.mutable_data_ptr<T>();
  const T* pb = bias ? bias->const_data_ptr<T>() : nullptr;
  int64_t bstride64 = 0;
  if (bias) bias->strides(&bstride64);
  const Index bstride = static_cast<Index>(bstride64);
  const Index cout_g = y.size[1] / groups, cin_g = k.size[1];
  for (Index n = 0; n < y.size[0]; ++n) {
    for (Index oc = 0; oc < y.size[1]; ++oc) {
      const Index ic0 = (oc / cout_g) * cin_g;
      const T b = pb ? pb[oc * bstride] : static_cast<T>(0);
      for (Index oh = 0; oh < y.size[2]; ++oh) {
        // Taps whose row falls inside the input (zero padding elsewhere), found once per row.
        const Index h0 = oh * stride[0] - pad[0];
        const Index kh0 = h0 >= 0 ? 0 : (-h0 + dil[0] - 1) / dil[0];
        Index kh1 = k.size[2];
        while (kh1 > kh0 && h0 + (kh1 - 1) * dil[0] >= x.size[2]) --kh1;
        for (Index ow = 0; ow < y.size[3]; ++ow) {
          const Index w0 = ow * stride[1] - pad[1];
          const Index kw0 = w0 >= 0 ? 0 : (-w0 + dil[1] - 1) / dil[1];
          Index kw1 = k.size[3];
          while (kw1 > kw0 && w0 + (kw1 - 1) * dil[1] >= x.size[3]) --kw1;
          T acc = 0;
          for (Index ic = 0; ic < cin_g; ++ic) {
            const T* xc = px + n * x.stride[0] + (ic0 + ic) * x.stride[1];
            const T* wc = pw + oc * k.stride[0] + ic * k.stride[1];
            for (Index kh = kh0; kh < kh1; ++kh) {
              // Offsets (not pointers): the row start w0 may lie left of the input.
              const Index xrow = (h0 + kh * dil[0]) * x.stride[2] + w0 * x.stride[3];
              const T* wr = wc + kh * k.stride[2];
              for (Index kw = kw0; kw < kw1; ++kw)
                acc += xc[xrow + kw * dil[1] * x.stride[3]] * wr[kw * k.stride[3]];
            }
          }
          py[n * y.stride[0] + oc * y.stride[1] + oh * y.stride[2] + ow * y.stride[3]] = acc + b;
        }
      }
    }
  }
}
}  // namespace

// convolution.out(Tensor input, Tensor weight, Tensor? bias, int[] stride, SymInt[] padding,
//                 int[] dilation, bool transposed, SymInt[] output_padding, SymInt groups, *,
//                 Tensor(a!) out) -> out
Error aten_convolution_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 11 || !util::is_valid_tensor_arg(args, 0) ||
      !util::is_valid_tensor_arg(args, 1) || !util::is_optional_tensor_arg(args, 2) ||
      !util::is_int_list_arg(args, 3) || !util::is_int_list_arg(args, 4) ||
      !util::is_int_list_arg(args, 5) || !util::is_bool_arg(args, 6) ||
      !util::is_int_list_arg(args, 7) || !util::is_int_arg(args, 8) ||
      !util::is_valid_tensor_arg(args, 9) || !util::is_return_of(args, 10, 9))
    return ctx.fail(Error::InvalidArgument, "convolution.out: bad argument count or tags");
  if (args[6]->to_bool()) return ctx.fail(Error::NotSupported, "convolution.out: transposed conv");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& w = util::tensor_arg(args, 1);
  const Tensor* bias = args[2]->is_tensor() ? &util::tensor_arg(args, 2) : nullptr;
  const Tensor& out = util::tensor_arg(args, 9);
  if ((in.dim != 3 && in.dim != 4) || w.dim != in.dim || out.dim != in.dim)
    return ctx.fail(Error::NotSupported, "convolution.out: only 1-D and 2-D (rank 3/4) convs");
  if (!util::is_float_compute(in.dtype) || w.dtype != in.dtype || out.dtype != in.dtype ||
      (bias && bias->dtype != in.dtype))
    return ctx.fail(Error::InvalidType, "convolution.out: tensors must share a float dtype");
  const int sp = in.dim - 2;  // spatial dims
  int64_t s[2] = {1, 1}, p[2] = {0, 0}, d[2] = {1, 1};
  // For 1-D the single value goes to W (index 1); H keeps stride 1, pad 0, dilation 1.
  if (!util::read_pair(*args[3], sp, s + 2 - sp, 1, false) ||
      !util::read_pair(*args[4], sp, p + 2 - sp, 0, false) ||
      !util::read_pair(*args[5], sp, d + 2 - sp, 1, false))
    return ctx.fail(Error::InvalidArgument, "convolution.out: bad stride/padding/dilation");
  const int64_t groups = args[8]->to_int();
  const int64_t cin = in.sizes[1], cout = w.sizes[0];
  if (groups < 1 || cin % groups != 0 || cout % groups != 0 || w.sizes[1] * groups != cin)
    return ctx.fail(Error::InvalidArgument, "convolution.out: channels do not match groups");
  if (bias && (bias->dim != 1 || bias->sizes[0] != cout))
    return ctx.fail(Error::InvalidArgument, "convolution.out: bias must be [C_out]");
  const util::View4 x = util::view4_conv(in), k = util::view4_conv(w), y = util::view4_conv(out);
  int64_t want[4] = {x.size[0], cout, 0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t span = d[i] * (k.size[2 + i] - 1) + 1;
    want[2 + i] = (x.size[2 + i] + 2 * p[i] - span) / s[i] + 1;
    if (x.size[2 + i] + 2 * p[i] < span)
      return ctx.fail(Error::InvalidArgument, "convolution.out: kernel larger than padded input");
  }
  for (int i = 0; i < 4; ++i)
    if (y.size[i] != want[i])
      return ctx.fail(Error::InvalidArgument, "convolution.out: out shape mismatch");
  (void)util::dispatch_float(
      in.dtype, [&](auto tag) { conv_direct<decltype(tag)>(in, w, bias, out, s, p, d, groups); });
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
