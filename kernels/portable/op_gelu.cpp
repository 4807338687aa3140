// aten::gelu.out: exact (erf) or tanh-approximated GELU, floating dtypes.
#include <math.h>
#include <string.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/unary_op.h"

namespace etmcu {
namespace kernels {

// gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> out
Error aten_gelu_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || !util::is_valid_tensor_arg(args, 0) || args[1] == nullptr ||
      !args[1]->is_string() || !util::is_valid_tensor_arg(args, 2) ||
      !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "gelu.out: expected (self, approximate, out, out)");
  const Tensor& in = util::tensor_arg(args, 0);
  const Tensor& out = util::tensor_arg(args, 2);
  if (!util::is_float_compute(in.dtype) || in.dtype != out.dtype)
    return ctx.fail(Error::InvalidType, "gelu.out: self and out must have the same float dtype");
  Span<const char> mode = args[1]->to_string();
  bool tanh_mode;
  if (mode.size() == 4 && mode.data() != nullptr && memcmp(mode.data(), "none", 4) == 0)
    tanh_mode = false;
  else if (mode.size() == 4 && mode.data() != nullptr && memcmp(mode.data(), "tanh", 4) == 0)
    tanh_mode = true;
  else
    return ctx.fail(Error::InvalidArgument, "gelu.out: approximate must be none or tanh");
  if (tanh_mode) {
    return util::float_unary(
        ctx, in, out,
        [](float x) {
          const float k = 0.7978845608028654f;  // sqrt(2 / pi)
          return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
        },
        [](double x) {
          const double k = 0.7978845608028654;
          return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
        });
  }
  return util::float_unary(
      ctx, in, out, [](float x) { return 0.5f * x * (1.0f + erff(x * 0.7071067811865476f)); },
      [](double x) { return 0.5 * x * (1.0 + erf(x * 0.7071067811865476)); });
}

}  // namespace kernels
}  // namespace etmcu
