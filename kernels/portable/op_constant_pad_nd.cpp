// aten::constant_pad_nd.out: pads (or crops, for negative pads) trailing dims, pad = [last_lo,
// last_hi, prev_lo, prev_hi, ...], filling with `value` in out's dtype; any dim order and dtype.
#include <string.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out) -> out
Error aten_constant_pad_nd_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 5 || !util::is_valid_tensor_arg(args, 0) || !util::is_int_list_arg(args, 1) ||
      !util::is_scalar_arg(args, 2) || !util::is_valid_tensor_arg(args, 3) ||
      !util::is_return_of(args, 4, 3))
    return ctx.fail(Error::InvalidArgument,
                    "constant_pad_nd.out: expected (self, pad, value, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 3);
  Span<const int64_t> pad = args[1]->to_int_list();
  if (in.dtype != out.dtype || !util::is_supported_dtype(in.dtype))
    return ctx.fail(Error::InvalidType, "constant_pad_nd.out: dtype mismatch");
  if (pad.size() % 2 != 0 || pad.size() / 2 > in.dim || out.dim != in.dim)
    return ctx.fail(Error::InvalidArgument, "constant_pad_nd.out: bad pad length");
  int64_t lo[kTensorMaxDim];
  for (int d = 0; d < in.dim; ++d) {
    const int k = in.dim - 1 - d;  // pad pairs start from the last dim
    lo[d] = static_cast<size_t>(k) < pad.size() / 2 ? pad[2 * k] : 0;
    const int64_t hi = static_cast<size_t>(k) < pad.size() / 2 ? pad[2 * k + 1] : 0;
    if (lo[d] < -0x7fffffff || lo[d] > 0x7fffffff || hi < -0x7fffffff || hi > 0x7fffffff)
      return ctx.fail(Error::InvalidArgument, "constant_pad_nd.out: pad out of range");
    if (out.sizes[d] != in.sizes[d] + lo[d] + hi || out.sizes[d] < 0)
      return ctx.fail(Error::InvalidArgument, "constant_pad_nd.out: out shape mismatch");
  }
  // The fill value once, in out's dtype.
  alignas(8) uint8_t fill[8];  // holds any dtype
  const EValue& v = *args[2];
  if (util::is_floating(out.dtype) || v.is_double())
    util::store_as<double>(fill, out.dtype, 0, v.scalar_as_double());
  else
    util::store_as<int64_t>(fill, out.dtype, 0, v.is_bool() ? (v.to_bool() ? 1 : 0) : v.to_int());
  int64_t in_st[kTensorMaxDim], out_st[kTensorMaxDim];
  in.strides(in_st);
  out.strides(out_st);
  const size_t es = out.element_size(), n = out.numel();
  const uint8_t* px = static_cast<const uint8_t*>(in.data);
  uint8_t* py = static_cast<uint8_t*>(out.data);
  int64_t idx[kTensorMaxDim] = {0};
  for (size_t i = 0; i < n; ++i) {
    int64_t so = 0, d_off = 0;
    bool inside = true;
    for (int d = 0; d < out.dim; ++d) {
      const int64_t s = idx[d] - lo[d];
      inside = inside && s >= 0 && s < in.sizes[d];
      so += s * in_st[d];
      d_off += idx[d] * out_st[d];
    }
    memcpy(py + d_off * es, inside ? px + so * es : fill, es);
    for (int d = out.dim - 1; d >= 0; --d) {  // logical row-major increment
      if (++idx[d] < out.sizes[d]) break;
      idx[d] = 0;
    }
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
