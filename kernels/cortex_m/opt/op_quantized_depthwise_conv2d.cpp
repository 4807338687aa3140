// cortex_m::quantized_depthwise_conv2d.out, optimised variants: the same results as ref/ (bit for
// bit). Undilated layers with a channel multiplier of 1 (the MLPerf Tiny models' depthwise layers)
// or a multiple of 4 (KWS's first layer, 1 -> 64 channels) run the ISA's micro-kernel
// (isa/<isa>/depthwise.h, picked by the variant's include path); other layers the reference loop.
// An out placed over its input goes in slabs of rows (util/conv_util.h by_row_slabs), except a
// stride-1 layer's out at least (pad_h + 1) rows before its input (dw_rows_distance) and a layer
// whose planes go channel by channel in one strip (dw_planes_own_channels).
// The plane path's buffer is the call's planned scratch when that holds it, else temp: its size is
// declared below (cortex_m_quantized_depthwise_conv2d_out_temp_bytes) for method load to check.
#include "depthwise.h"  // isa/<isa>/depthwise.h
#include "kernels/api/kernel_scratch.h"
#include "kernels/cortex_m/cortex_m_ops.h"
#include "kernels/cortex_m/util/depthwise_conv2d.h"
#include "kernels/cortex_m/util/paths.h"

namespace etmcu {
namespace kernels {
namespace {

constexpr size_t kScratchArg = 13;  // after activation_max (parse_depthwise_conv2d checked it)

// The buffer this ISA's kernel takes for the layer: the plane when its planes take it (by
// geometry, left in *planes; a slab of rows needs no more than the whole layer), else none.
uint32_t buffer_bytes(const int8::DwJob& j, int8::DwPlanes* planes) {
  if (j.dil.h != 1 || j.dil.w != 1 || !int8::dw_takes_planes(j, &planes->ls, &planes->strip)) {
    planes->strip = 0;
    return 0;
  }
  return int8::dw_plane_bytes(j, planes->ls, planes->strip);
}

}  // namespace

uint32_t cortex_m_quantized_depthwise_conv2d_out_temp_bytes(Span<EValue*> args) {
  KernelContext ctx;
  int8::DwJob job;
  if (int8::parse_depthwise_conv2d(ctx, args, &job) != Error::Ok) return 0;  // the call says why
  int8::DwPlanes planes;
  return temp_beyond_scratch(args[kScratchArg], buffer_bytes(job, &planes));
}

Error cortex_m_quantized_depthwise_conv2d_out(KernelContext& ctx, Span<EValue*> args) {
  int8::DwJob job;
  const Error e = int8::parse_depthwise_conv2d(ctx, args, &job);
  if (e != Error::Ok) return e;
  // Layers the ISA runs whole straight from NHWC (isa/<isa>/depthwise.h depthwise_whole: 3 x 3
  // output planes, Xpulp's stride-2 words; it checks the out's overlap itself)
  if (int8::depthwise_whole(job)) return Error::Ok;
  job.buffer = nullptr;
  int8::DwPlanes planes;
  uint32_t bytes = buffer_bytes(job, &planes);
  // the values' part of the planes' condition, once for the layer (not per slab); a firmware
  // without the plane path has neither the check nor the buffer
  if (bytes != 0 && !(kernel_path_on(int8::kPathDwPlanes) && int8::dw_plane_values_ok(job))) {
    planes.strip = 0;
    bytes = 0;
  }
  if (bytes != 0) {
    job.buffer = static_cast<int8_t*>(kernel_buffer(ctx, args[kScratchArg], bytes));
    if (job.buffer == nullptr)
      return ctx.fail(
          Error::MemoryAllocationFailed,
          "cortex_m::quantized_depthwise_conv2d.out: no planned scratch or temp for "
          "its plane buffer (method load checks the temp pool against its declaration)");
  }
  bool ok = true;  // false: a kernel path this firmware left out (util/paths.h)
  auto run = [&ok, &planes](const int8::DwJob& j) {
    const bool undilated = j.dil.h == 1 && j.dil.w == 1;
    if (undilated && int8::depthwise_fast(j, planes)) return;
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
  // Nor does a layer whose planes go channel by channel in one strip, its out a whole number of
  // pixels from its input (dw_planes_own_channels).
  // The row contract holds for the micro-kernels only when each channel's writes land on its own
  // input bytes: they go channel by channel (the planes) or four channels at a time (the blocks).
  // An out that is not a whole number of pixels before its input (a channel count that the
  // planner's 16-byte rounding of the distance does not divide: 13 channels wrote channel 0 over
  // channel 11's unread input) goes in slabs of one row, all channels of a row before the next.
  const bool rows_ok = int8::dw_rows_contract(job);
  if (int8::bytes_overlap(job.x, job.in, job.y, job.out) &&
      (rows_ok ? (job.x - job.y) % job.in.c != 0
               : !int8::dw_planes_own_channels(job, planes) && int8::row_slabs_apply(job))) {
    if (!kernel_path(int8::kPathDwSlabs)) return kernel_path_missing(ctx);
    // (last slab first when the out follows)
    int8::by_row_slabs(job, job.y > job.x, run, rows_ok ? 1 : kOverlapSlabRows);
  } else {
    run(job);
  }
  return ok ? Error::Ok : kernel_path_missing(ctx);
}

}  // namespace kernels
}  // namespace etmcu
