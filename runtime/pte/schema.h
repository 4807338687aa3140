// The schemas the reader verifies, as data: one descriptor per table type listing the kind of each
// field id (program.fbs for .pte, flat_tensor.fbs for .ptd, the bundled-program schema for .bpte).
// Field ids are given as named constants so the executor reads fields by name.
#pragma once
#include <stdint.h>

namespace etmcu {
namespace schema {

enum class Kind : uint8_t {
  kNone,  // unused id
  kU8,    // 1-byte scalar (also bool, byte, enums)
  kU16,
  kU32,  // 4-byte scalar
  kU64,  // 8-byte scalar (also double)
  kString,
  kTable,       // ref = table type
  kVecU8,       // vector of 1-byte scalars
  kVecU32,      // vector of 4-byte scalars
  kVecU64,      // vector of 8-byte scalars
  kVecTable,    // ref = element table type
  kUnionType,   // the ubyte tag of the union whose value is the next id
  kUnionValue,  // ref = union id
};

// Table types. Order matters: it indexes kTables in verifier.cpp.
enum TableType : uint8_t {
  kProgram,
  kExecutionPlan,
  kContainerMetadata,
  kEValue,
  kNull,
  kInt,
  kBool,
  kDouble,
  kTensor,
  kStringValue,
  kIntList,
  kDoubleList,
  kBoolList,
  kTensorList,
  kOptionalTensorList,
  kAllocationDetails,
  kExtraTensorInfo,
  kOperator,
  kInstruction,
  kKernelCall,
  kDelegateCall,
  kMoveCall,
  kJumpFalseCall,
  kFreeCall,
  kChain,
  kFrameList,
  kFrame,
  kBackendDelegate,
  kBackendDelegateDataReference,
  kCompileSpec,
  kBackendDelegateInlineData,
  kBuffer,
  kDataSegment,
  kSubsegmentOffsets,
  kNamedData,
  kNonConstBufferDevice,
  // .ptd (FlatTensor, layout since 2025-06)
  kFlatTensor,
  kFlatNamedData,
  kTensorLayout,
  // .bpte (BundledProgram)
  kBundledProgram,
  kBundledMethodTestSuite,
  kBundledMethodTestCase,
  kBundledValue,
  kBundledTensor,
  kTableTypeCount
};

// Unions: member table type per tag (tag 0 = NONE is invalid).
enum UnionType : uint8_t { kKernelTypes, kInstructionArguments, kBundledValueUnion, kUnionCount };

// Field ids (declaration order in the .fbs).
namespace program {
enum {
  kVersion,
  kExecutionPlan,
  kConstantBuffer,
  kBackendDelegateData,
  kSegments,
  kConstantSegment,
  kMutableDataSegments,
  kNamedData
};
}
namespace plan {
enum {
  kName,
  kContainerMeta,
  kValues,
  kInputs,
  kOutputs,
  kChains,
  kOperators,
  kDelegates,
  kNonConstBufferSizes,
  kNonConstBufferDevice
};
}
namespace evalue {
enum { kValType, kVal };
}
namespace tensor {
enum {
  kScalarType,
  kStorageOffset,
  kSizes,
  kDimOrder,
  kRequiresGrad,
  kDataBufferIdx,
  kAllocationInfo,
  kLayout,
  kShapeDynamism,
  kExtraTensorInfo
};
}
namespace alloc {
enum { kMemoryId, kOffsetLow, kOffsetHigh };
}
namespace extra {
enum { kMutableDataSegmentsIdx, kFullyQualifiedName, kLocation, kDeviceType, kDeviceIndex };
}
namespace op {
enum { kName, kOverload };
}
namespace instr {
enum { kArgsType, kArgs };
}
namespace call {
enum { kIndex, kArgs };
}  // namespace call
namespace move {
enum { kFrom, kTo };
}
namespace jump {
enum { kCond, kDestination };
}
namespace chain {
enum { kInputs, kOutputs, kInstructions, kStacktrace };
}
namespace delegate {
enum { kId, kProcessed, kCompileSpecs };
}
namespace dataref {
enum { kLocation, kIndex };
}
namespace spec {
enum { kKey, kValue };
}
namespace segment {
enum { kOffset, kSize };
}
namespace subseg {
enum { kSegmentIndex, kOffsets };
}
namespace named {
enum { kKey, kSegmentIndex, kTensorLayout };
}
namespace flat {
enum { kVersion, kSegments, kNamedData };
}
namespace layout {
enum { kScalarType, kSizes, kDimOrder };
}
namespace bundled {
enum { kVersion, kSuites, kProgram };
}
namespace suite {
enum { kMethodName, kTestCases };
}
namespace tcase {
enum { kInputs, kExpectedOutputs };
}
namespace bvalue {
enum { kValType, kVal };
}
namespace btensor {
enum { kScalarType, kSizes, kData, kDimOrder };
}

// KernelTypes union tags (EValue.val_type).
enum KernelTypesTag : uint8_t {
  kTagNone,
  kTagNull,
  kTagInt,
  kTagBool,
  kTagDouble,
  kTagTensor,
  kTagString,
  kTagIntList,
  kTagDoubleList,
  kTagBoolList,
  kTagTensorList,
  kTagOptionalTensorList
};
// InstructionArguments union tags.
enum InstrTag : uint8_t {
  kInstrNone,
  kInstrKernelCall,
  kInstrDelegateCall,
  kInstrMoveCall,
  kInstrJumpFalseCall,
  kInstrFreeCall
};

}  // namespace schema
}  // namespace etmcu
