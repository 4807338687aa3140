// Error codes shared by the runtime, kernels and backends. Numbering follows upstream ExecuTorch's
// runtime/core/error.h so that logs and ported code mean the same thing.
#pragma once
#include <stdint.h>

namespace etmcu {

enum class Error : uint32_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  // Capability errors.
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  // Resource errors.
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,
  // Delegate errors.
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

// Short stable name of an error code ("InvalidProgram"); never null.
const char* error_name(Error e);

}  // namespace etmcu
