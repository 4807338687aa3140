// aten::cat.out: concatenates tensors along `dim`; any dim orders, inputs converted to out's dtype
// when they differ. Legacy empty 1-D inputs ([0]) are skipped like PyTorch.
#include <string.h>

#include "kernels/portable/portable_ops.h"
#include "kernels/portable/util/kernel_util.h"

namespace etmcu {
namespace kernels {

// cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> out
Error aten_cat_out(KernelContext& ctx, Span<EValue*> args) {
  if (args.size() != 4 || args[0] == nullptr || !args[0]->is_tensor_list() ||
      !util::is_int_arg(args, 1) || !util::is_valid_tensor_arg(args, 2) ||
      !util::is_return_of(args, 3, 2))
    return ctx.fail(Error::InvalidArgument, "cat.out: expected (tensors, dim, out, out)");
  Span<Tensor* const> ts = args[0]->to_tensor_list();
  const Tensor& out = util::tensor_arg(args, 2);
  if (ts.size() == 0 || ts.data() == nullptr)
    return ctx.fail(Error::InvalidArgument, "cat.out: empty tensor list");
  int dim;
  if (out.dim == 0 || !util::normalize_dim(args[1]->to_int(), out.dim, &dim))
    return ctx.fail(Error::InvalidArgument, "cat.out: dim out of range");
  if (!util::is_supported_dtype(out.dtype))
    return ctx.fail(Error::InvalidType, "cat.out: unsupported dtype");
  // Validate every input (through a temporary EValue so the same checks apply).
  int64_t total = 0;
  for (size_t j = 0; j < ts.size(); ++j) {
    EValue ev = EValue::from_tensor(ts[j]);
    EValue* p = &ev;
    if (!util::is_valid_tensor_arg(Span<EValue*>(&p, 1), 0))
      return ctx.fail(Error::InvalidArgument, "cat.out: invalid tensor in list");
    const Tensor& t = *ts[j];
    if (t.dim == 1 && t.sizes[0] == 0) continue;
    if (t.dim != out.dim) return ctx.fail(Error::InvalidArgument, "cat.out: rank mismatch");
    if (!util::is_supported_dtype(t.dtype) || !util::can_cast(t.dtype, out.dtype))
      return ctx.fail(Error::InvalidType, "cat.out: input dtype cannot be cast to out dtype");
    for (int d = 0; d < out.dim; ++d)
      if (d != dim && t.sizes[d] != out.sizes[d])
        return ctx.fail(Error::InvalidArgument, "cat.out: non-cat dims differ");
    total += t.sizes[dim];
  }
  if (total != out.sizes[dim])
    return ctx.fail(Error::InvalidArgument, "cat.out: out size along dim");

  int64_t out_strides[kTensorMaxDim];
  out.strides(out_strides);
  const size_t es = out.element_size();
  int64_t pos = 0;
  for (size_t j = 0; j < ts.size(); ++j) {
    const Tensor& t = *ts[j];
    if (t.dim == 1 && t.sizes[0] == 0) continue;
    const size_t n = t.numel();
    // Walk the input in its memory order and scatter into out's slice (base = pos along dim).
    int64_t st[1][kTensorMaxDim];
    for (int d = 0; d < out.dim; ++d) st[0][d] = out_strides[d];
    const int64_t base = pos * out_strides[dim];
    util::StridedIter it(t, st, 1, &base);
    if (t.dtype == out.dtype) {
      const uint8_t* src = static_cast<const uint8_t*>(t.data);
      uint8_t* dst = static_cast<uint8_t*>(out.data);
      for (size_t i = 0; i < n; ++i, it.next()) memcpy(dst + it.offset(0) * es, src + i * es, es);
    } else {
      for (size_t i = 0; i < n; ++i, it.next())
        util::convert_element(t.data, t.dtype, static_cast<util::Index>(i), out.data, out.dtype,
                              it.offset(0));
    }
    pos += t.sizes[dim];
  }
  return Error::Ok;
}

}  // namespace kernels
}  // namespace etmcu
