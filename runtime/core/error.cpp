// Names of error codes, for messages.
#include "runtime/core/error.h"

namespace etmcu {

const char* error_name(Error e) {
  switch (e) {
    case Error::Ok:
      return "Ok";
    case Error::Internal:
      return "Internal";
    case Error::InvalidState:
      return "InvalidState";
    case Error::EndOfMethod:
      return "EndOfMethod";
    case Error::NotSupported:
      return "NotSupported";
    case Error::NotImplemented:
      return "NotImplemented";
    case Error::InvalidArgument:
      return "InvalidArgument";
    case Error::InvalidType:
      return "InvalidType";
    case Error::OperatorMissing:
      return "OperatorMissing";
    case Error::NotFound:
      return "NotFound";
    case Error::MemoryAllocationFailed:
      return "MemoryAllocationFailed";
    case Error::AccessFailed:
      return "AccessFailed";
    case Error::InvalidProgram:
      return "InvalidProgram";
    case Error::InvalidExternalData:
      return "InvalidExternalData";
    case Error::OutOfResources:
      return "OutOfResources";
    case Error::DelegateInvalidCompatibility:
      return "DelegateInvalidCompatibility";
    case Error::DelegateMemoryAllocationFailed:
      return "DelegateMemoryAllocationFailed";
    case Error::DelegateInvalidHandle:
      return "DelegateInvalidHandle";
  }
  return "Unknown";
}

}  // namespace etmcu
