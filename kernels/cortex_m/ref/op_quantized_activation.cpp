// cortex_m::quantized_activation.out: int8 table lookup, out[i] = lut[in[i] + 128] (sigmoid, tanh,
// silu, gelu lowered ahead of time to a 256-entry LUT).
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/arg_util.h"

namespace etmcu {
namespace kernels {

// quantized_activation.out(Tensor input, Tensor lut, *, Tensor(a!) out) -> Tensor(a!)
// input/out int8 with the same numel (walked in memory order; same layout); lut int8[256].
Error cortex_m_quantized_activation_out(KernelContext& ctx, Span<EValue*> args) {
  using namespace int8;
  if (args.size() != 4)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_activation.out: expected 2 arguments + out (+ return)");
  if (!is_tensor(args, 0) || !is_tensor(args, 1) || !is_tensor(args, 2) ||
      !is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_activation.out: expected (input, lut, out)");
  const Tensor& in = tensor(args, 0);
  const Tensor& lut = tensor(args, 1);
  const Tensor& out = tensor(args, 2);
  if (in.dtype != ScalarType::Char || lut.dtype != ScalarType::Char ||
      out.dtype != ScalarType::Char)
    return ctx.fail(Error::InvalidType, "cortex_m::quantized_activation.out: tensors must be int8");
  if (lut.numel() != 256)
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_activation.out: lut must have 256 entries");
  if (in.numel() != out.numel() || (in.same_shape(out) && !same_layout(in, out)))
    return ctx.fail(Error::InvalidArgument,
                    "cortex_m::quantized_activation.out: out must have input's numel and layout");
  const int8_t* x = in.const_data_ptr<int8_t>();
  const int8_t* t = lut.const_data_ptr<int8_t>();
  int8_t* y = out.mutable_data_ptr<int8_t>();
  const size_t n = in.numel();
  for (size_t i = 0; i < n; ++i) y[i] = t[static_cast<uint8_t>(x[i] + 128)];
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
