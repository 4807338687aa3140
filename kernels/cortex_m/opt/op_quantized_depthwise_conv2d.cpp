// cortex_m::quantized_depthwise_conv2d.out, optimised variants: the same results as ref/ (bit for
// bit). Undilated layers with a channel multiplier of 1 (the MLPerf Tiny models' depthwise layers)
// or a multiple of 4 (KWS's first layer, 1 -> 64 channels) run the ISA's micro-kernel
// (isa/<isa>/depthwise.h, picked by the variant's include path); other layers the reference loop.
// An out placed over its input goes in slabs of rows (util/conv_util.h by_row_slabs), except a
// stride-1 layer's out at least (pad_h + 1) rows before its input (dw_rows_distance).
#include "depthwise.h"  // isa/<isa>/depthwise.h
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {

Error cortex_m_quantized_depthwise_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::DwJob job;
  const Error e = int8::parse_depthwise_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  bool ok = true;  // false: a kernel path this firmware left out (util/paths.h)
  auto run = [&ok](const int8::DwJob& j) {
    const bool undilated = j.dil.h == 1 && j.dil.w == 1;
    if (undilated && int8::depthwise_fast(j)) return;
    if (kernel_path(int8::kPathDwRef))
      int8::depthwise_nhwc_ref(j);
    else
      ok = false;
  };
  // An out that starts a few rows before (or after) its input (a plan below the naive floor):
  // slabs of rows, top to bottom (bottom to top; kernels/api/alias_contract.h). Otherwise the
  // whole layer at once (the plane path's strips then cover as many rows as its buffer holds).
  // A stride-1 layer whose out begins at least dw_rows_distance before its input needs no slabs:
  // the whole layer already writes its rows in order (the row contract).
  const int64_t rows_d = int8::dw_rows_distance(job);
  const bool rows_ok = job.y < job.x && rows_d >= 0 && job.x - job.y >= rows_d;
  if (int8::bytes_overlap(job.x, job.in, job.y, job.out) && !rows_ok &&
      int8::row_slabs_apply(job)) {
    if (!kernel_path(int8::kPathDwSlabs)) return kernel_path_missing(ctx);
    int8::by_row_slabs(job, job.y > job.x, run);  // last slab first when the out follows
  } else {
    run(job);
  }
  return ok ? Error::Ok : kernel_path_missing(ctx);
}

}  // namespace kernels
}  // namespace etmcu
