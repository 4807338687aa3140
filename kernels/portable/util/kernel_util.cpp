// Shared helpers of the portable kernels (see kernel_util.h): argument validation, type
// promotion, broadcasting and strided iteration.
#include "kernels/portable/util/kernel_util.h"

#include <string.h>

#include "kernels/api/kernel_paths.h"
#include "kernels/api/tensor_check.h"
#include "kernels/portable/util/reduce.h"

namespace etmcu {
namespace kernels {
namespace util {

// The int8 kernels' well-formedness check (kernels/api/tensor_check.h: rank, sizes, dim_order a
// permutation, element size, data and nbytes) plus the portable kernels' own two rules; one copy
// of the common part in a firmware that links both kernel sets (upstream's KWS does).
bool valid_tensor_arg(Span<EValue*> args, size_t i) {
  if (!is_well_formed_tensor_arg(args, i)) return false;
  const Tensor& t = args[i]->to_tensor();
  // Product of the non-zero sizes bounds every stride: keeps offsets and strides in int32 range
  // even for empty tensors (and numel, which the common part only bounds by 2^40).
  uint64_t span = 1;
  for (int d = 0; d < t.dim; ++d) {
    span *= static_cast<uint64_t>(t.sizes[d] > 0 ? t.sizes[d] : 1);
    if (span > 0x7fffffffu) return false;
  }
  // A dtype this build left out (ETMCU_KERNEL_DTYPES) is rejected here, before any kernel could
  // read or write it through a compiled-out path.
  return static_cast<int>(t.dtype) >= 32 || dtype_in_mask(t.dtype);
}

BinaryLayout binary_layout(const Tensor& a, const Tensor& b, const Tensor& out, ScalarType t) {
  if (a.dtype != t || b.dtype != t || out.dtype != t || !a.same_shape(out) ||
      !a.same_dim_order(out))
    return BinaryLayout::kGeneral;
  if (b.numel() == 1) return BinaryLayout::kScalar;
  if (b.same_shape(out) && b.same_dim_order(out)) return BinaryLayout::kSame;
  return BinaryLayout::kGeneral;
}

bool return_is(Span<EValue*> args, size_t ret, size_t out) {
  const EValue* r = args[ret];
  if (r == nullptr || !r->is_tensor() || r->payload.as_tensor == nullptr) return false;
  return r == args[out] || r->payload.as_tensor == args[out]->payload.as_tensor ||
         r->to_tensor().data == args[out]->to_tensor().data;
}

bool out_list_is(Span<EValue*> args, size_t list, size_t first, size_t n) {
  const EValue* l = args[list];
  if (l == nullptr || !l->is_tensor_list() || l->payload.as_span.size != n) return false;
  if (n > 0 && l->payload.as_span.data == nullptr) return false;
  Span<Tensor* const> ts = l->to_tensor_list();
  for (size_t k = 0; k < n; ++k) {
    if (ts[k] == nullptr) return false;
    const Tensor* o = args[first + k]->payload.as_tensor;
    if (ts[k] != o && ts[k]->data != o->data) return false;
  }
  return true;
}

bool is_supported_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::Float:
    case ScalarType::Bool:
      return true;
    case ScalarType::Double:
      return kF64;
    default:
      return false;
  }
}

namespace {
// PyTorch's combine_categories: the higher-priority result wins unless a lower-priority operand
// is of a higher category (bool < integral < floating).
ScalarType combine(ScalarType higher, ScalarType lower) {
  if (higher == kUndefined) return lower;
  if (lower == kUndefined) return higher;
  if (is_floating(higher)) return higher;
  if (higher == ScalarType::Bool || is_floating(lower)) return promote_types(higher, lower);
  return higher;
}
}  // namespace

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == kUndefined) return b;
  if (b == kUndefined) return a;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  if (is_floating(a) || is_floating(b)) {
    if (is_floating(a) && is_floating(b)) return ScalarType::Double;
    return is_floating(a) ? a : b;
  }
  // Both integral and different.
  if ((a == ScalarType::Byte && b == ScalarType::Char) ||
      (a == ScalarType::Char && b == ScalarType::Byte))
    return ScalarType::Short;
  if (a == ScalarType::Byte) return b;
  if (b == ScalarType::Byte) return a;
  return element_size(a) >= element_size(b) ? a : b;
}

ScalarType scalar_dtype(const EValue& v) {
  if (v.is_double()) return ScalarType::Double;
  if (v.is_bool()) return ScalarType::Bool;
  return ScalarType::Long;
}

ScalarType result_type(const Tensor& a, ScalarType b, bool b_is_zero_dim, bool b_scalar) {
  ScalarType dim_r = kUndefined, zero_r = kUndefined, wrapped_r = kUndefined;
  if (a.dim > 0)
    dim_r = a.dtype;
  else
    zero_r = a.dtype;
  if (b_scalar) {
    wrapped_r = is_floating(b) ? ScalarType::Float : b;  // default dtype for Python floats
  } else if (b_is_zero_dim) {
    zero_r = promote_types(zero_r, b);
  } else {
    dim_r = promote_types(dim_r, b);
  }
  return combine(dim_r, combine(zero_r, wrapped_r));
}

ScalarType result_type3(const Tensor* const* ts, int n) {
  ScalarType dim_r = kUndefined, zero_r = kUndefined;
  for (int i = 0; i < n; ++i) {
    if (ts[i]->dim > 0)
      dim_r = promote_types(dim_r, ts[i]->dtype);
    else
      zero_r = promote_types(zero_r, ts[i]->dtype);
  }
  return combine(dim_r, zero_r);
}

bool can_cast(ScalarType from, ScalarType to) {
  if (is_floating(from) && is_integral(to, true)) return false;
  if (from != ScalarType::Bool && to == ScalarType::Bool) return false;
  return true;
}

bool normalize_dim(int64_t dim, int rank, int* out) {
  int64_t r = rank == 0 ? 1 : rank;
  if (dim < -r || dim >= r) return false;
  *out = static_cast<int>(dim < 0 ? dim + r : dim);
  return true;
}

bool is_broadcast_shape(const Tensor& out, const Tensor* const* ins, int n) {
  int rank = 0;
  for (int j = 0; j < n; ++j) rank = ins[j]->dim > rank ? ins[j]->dim : rank;
  if (out.dim != rank) return false;
  for (int d = 0; d < rank; ++d) {
    int32_t want = 1;
    for (int j = 0; j < n; ++j) {
      int jd = d - (rank - ins[j]->dim);
      if (jd < 0) continue;
      int32_t s = ins[j]->sizes[jd];
      if (s == 1) continue;
      if (want != 1 && want != s) return false;
      want = s;
    }
    // A size-0 dim against 1 broadcasts to 0; `want` already holds it.
    if (out.sizes[d] != want) return false;
  }
  return true;
}

const uint8_t kContiguousOrder[kTensorMaxDim] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                 8, 9, 10, 11, 12, 13, 14, 15};

void StridedIter::init_sizes(const Tensor& drive) {
  for (int k = 0; k < ndim_; ++k) {
    size_[k] = drive.sizes[drive.dim_order[k]];  // k-th memory dim, outermost first
    idx_[k] = 0;
  }
}

bool broadcasts_to(const Tensor& t, const Tensor& out) {
  if (t.dim > out.dim) return false;
  for (int d = 0; d < t.dim; ++d) {
    int32_t s = t.sizes[d], o = out.sizes[d + out.dim - t.dim];
    if (s != 1 && s != o) return false;
  }
  return true;
}

StridedIter::StridedIter(const Tensor& out, const Tensor* const* ins, int n)
    : ndim_(out.dim), n_(n) {
  init_sizes(out);
  for (int j = 0; j < n_; ++j) {
    off_[j] = 0;
    const Tensor& t = *ins[j];
    int64_t strides[kTensorMaxDim];
    t.strides(strides);
    for (int k = 0; k < ndim_; ++k) {
      int jd = out.dim_order[k] - (ndim_ - t.dim);  // inputs align to out's trailing dims
      stride_[j][k] = (jd >= 0 && t.sizes[jd] != 1) ? static_cast<Index>(strides[jd]) : 0;
    }
  }
}

StridedIter::StridedIter(const Tensor& drive, const int64_t (*strides)[kTensorMaxDim], int n,
                         const int64_t* base)
    : ndim_(drive.dim), n_(n) {
  init_sizes(drive);
  for (int j = 0; j < n_; ++j) {
    off_[j] = base ? static_cast<Index>(base[j]) : 0;
    for (int k = 0; k < ndim_; ++k)
      stride_[j][k] = static_cast<Index>(strides[j][drive.dim_order[k]]);
  }
}

namespace {
// out's elements in memory order from src at base + sum(index[d] * st[0][d]): the innermost
// (memory-order) dimension as a tight strided loop, the others by an odometer once per row (a
// layout change such as NCHW -> NHWC costs a load and a store per element, not the general
// iterator's per-element bookkeeping).
template <typename T>
void gather_typed(const Tensor& out, const T* src, const int64_t (*st)[kTensorMaxDim],
                  int64_t base) {
  T* dst = static_cast<T*>(out.data);
  const size_t n = out.numel();
  if (n == 0) return;
  const int nd = out.dim;
  if (nd == 0) {
    dst[0] = src[base];
    return;
  }
  ptrdiff_t size[kTensorMaxDim], stride[kTensorMaxDim], idx[kTensorMaxDim];
  for (int k = 0; k < nd; ++k) {
    size[k] = static_cast<ptrdiff_t>(out.sizes[out.dim_order[k]]);
    stride[k] = static_cast<ptrdiff_t>(st[0][out.dim_order[k]]);
    idx[k] = 0;
  }
  const ptrdiff_t n0 = size[nd - 1], s0 = stride[nd - 1];
  ptrdiff_t off = static_cast<ptrdiff_t>(base);
  if (nd >= 2 && n0 < 8 && size[nd - 2] > n0) {
    // A short innermost dim (NCHW -> NHWC with three channels): the inner two dims as a block,
    // walked along the longer one (stores n0 apart), the odometer once per block.
    const ptrdiff_t n1 = size[nd - 2], s1 = stride[nd - 2];
    for (size_t done = 0; done < n; done += static_cast<size_t>(n0 * n1)) {
      for (ptrdiff_t i0 = 0; i0 < n0; ++i0) {
        const T* s = src + off + i0 * s0;
        T* d = dst + i0;
        for (ptrdiff_t i1 = 0; i1 < n1; ++i1, s += s1, d += n0) *d = *s;
      }
      dst += n0 * n1;
      for (int k = nd - 3; k >= 0; --k) {  // the next block
        off += stride[k];
        if (++idx[k] < size[k]) break;
        off -= stride[k] * size[k];
        idx[k] = 0;
      }
    }
    return;
  }
  for (size_t done = 0; done < n; done += static_cast<size_t>(n0)) {
    const T* s = src + off;
    for (ptrdiff_t i = 0; i < n0; ++i, s += s0) *dst++ = *s;
    for (int k = nd - 2; k >= 0; --k) {  // the next row
      off += stride[k];
      if (++idx[k] < size[k]) break;
      off -= stride[k] * size[k];
      idx[k] = 0;
    }
  }
}
}  // namespace

bool gather_copy(const Tensor& out, const void* src, const int64_t* in_strides, int64_t base,
                 size_t es) {
  int64_t st[1][kTensorMaxDim];
  for (int d = 0; d < out.dim; ++d) st[0][d] = in_strides[d];
  switch (es) {
    case 1:
      if (!kernel_path(kPathGather1)) return false;
      gather_typed(out, static_cast<const uint8_t*>(src), st, base);
      break;
    case 2:
      if (!kernel_path(kPathGather2)) return false;
      gather_typed(out, static_cast<const uint16_t*>(src), st, base);
      break;
    case 4:
      if (!kernel_path(kPathGather4)) return false;
      gather_typed(out, static_cast<const uint32_t*>(src), st, base);
      break;
    default:
      if (!kernel_path(kPathGather8)) return false;
      gather_typed(out, static_cast<const uint64_t*>(src), st, base);
      break;
  }
  return true;
}

bool copy_strided(const Tensor& in, const Tensor& out) {
  if (in.same_dim_order(out) || in.dim <= 1) {
    if (in.data != out.data) memmove(out.data, in.data, out.numel() * out.element_size());
    return true;
  }
  int64_t strides[kTensorMaxDim];
  in.strides(strides);
  return gather_copy(out, in.data, strides, 0, out.element_size());
}

void copy_reshaped(const Tensor& in, const Tensor& out) {
  if (in.is_contiguous() && out.is_contiguous()) {
    if (in.data != out.data) memmove(out.data, in.data, out.numel() * out.element_size());
    return;
  }
  // Walk both tensors in logical row-major order through contiguous views of their shapes.
  Tensor in_view = in, out_view = out;
  in_view.dim_order = kContiguousOrder;
  out_view.dim_order = kContiguousOrder;
  const Tensor* a[1] = {&in};
  const Tensor* b[1] = {&out};
  StridedIter src(in_view, a, 1), dst(out_view, b, 1);
  const size_t es = out.element_size(), n = out.numel();
  const uint8_t* s = static_cast<const uint8_t*>(in.data);
  uint8_t* d = static_cast<uint8_t*>(out.data);
  for (size_t i = 0; i < n; ++i, src.next(), dst.next())
    memcpy(d + dst.offset(0) * es, s + src.offset(0) * es, es);
}

bool convert_copy(const Tensor& in, const Tensor& out) {
  if (in.dtype == out.dtype) return copy_strided(in, out);
  const Tensor* ins[1] = {&in};
  StridedIter it(out, ins, 1);
  const size_t n = out.numel();
  for (size_t i = 0; i < n; ++i, it.next())
    convert_element(in.data, in.dtype, it.offset(0), out.data, out.dtype, static_cast<Index>(i));
  return true;
}

bool reduction_mask(const EValue& dims, const Tensor& in, uint32_t* mask) {
  uint32_t m = 0;
  if (dims.is_none() || dims.payload.as_span.size == 0) {
    *mask = in.dim == 0 ? 0 : static_cast<uint32_t>((1ull << in.dim) - 1);
    return true;
  }
  Span<const int64_t> l = dims.to_int_list();
  for (size_t i = 0; i < l.size(); ++i) {
    int d;
    if (!normalize_dim(l[i], in.dim, &d)) return false;
    if (in.dim == 0) continue;  // dim 0 / -1 of a scalar reduces nothing
    if (m & (1u << d)) return false;
    m |= 1u << d;
  }
  *mask = m;
  return true;
}

bool is_reduced_shape(const Tensor& in, uint32_t mask, bool keepdim, const Tensor& out) {
  int od = 0;
  for (int d = 0; d < in.dim; ++d) {
    const bool r = mask & (1u << d);
    if (r && !keepdim) continue;
    if (od >= out.dim || out.sizes[od] != (r ? 1 : in.sizes[d])) return false;
    ++od;
  }
  return od == out.dim;
}

}  // namespace util
}  // namespace kernels
}  // namespace etmcu
