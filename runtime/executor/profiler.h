// Profiler: an ETDump-like list of per-instruction events (instruction index, kind, start and end
// ticks from et_pal_current_ticks) in caller memory. Recorded only in builds with instruction hooks
// (ETMCU_INSTRUCTION_HOOKS=1); otherwise the executor never looks at it and it costs nothing.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "runtime/platform/platform.h"

namespace etmcu {

struct ProfileEvent {
  uint32_t instruction;  // index in the method's instruction list
  uint32_t kind;         // schema::InstrTag (1 = KernelCall, 2 = DelegateCall, ...)
  et_timestamp_t start;
  et_timestamp_t end;
};

class Profiler {
 public:
  Profiler(ProfileEvent* events, size_t capacity) : events_(events), capacity_(capacity) {}
  void reset() {
    size_ = 0;
    dropped_ = 0;
  }
  void record(uint32_t instruction, uint32_t kind, et_timestamp_t start, et_timestamp_t end) {
    if (size_ == capacity_) {
      ++dropped_;
      return;
    }
    events_[size_++] = ProfileEvent{instruction, kind, start, end};
  }
  size_t size() const { return size_; }
  const ProfileEvent& operator[](size_t i) const { return events_[i]; }
  size_t dropped() const { return dropped_; }  // events lost because the buffer was full

 private:
  ProfileEvent* events_;
  size_t capacity_;
  size_t size_ = 0;
  size_t dropped_ = 0;
};

}  // namespace etmcu
