// Runtime features that a build can leave out when its programs do not use them (the firmware
// builder derives them from the .pte: `etmcu-cli inspect MODEL.pte --features`). A program that
// needs a feature the build left out fails at load with NotSupported naming the feature.
// All default to on. Set with -DETMCU_FEATURE_<NAME>=0.
#pragma once

#ifndef ETMCU_FEATURE_DELEGATES
#define ETMCU_FEATURE_DELEGATES 1  // DelegateCall + BackendInterface
#endif
#ifndef ETMCU_FEATURE_EXTERNAL_DATA
#define ETMCU_FEATURE_EXTERNAL_DATA 1  // EXTERNAL tensors (.ptd or the program's named_data)
#endif
#ifndef ETMCU_FEATURE_MUTABLE_DATA
#define ETMCU_FEATURE_MUTABLE_DATA 1  // planned tensors with initial data (mutable_data_segments)
#endif
#ifndef ETMCU_FEATURE_CONTROL_FLOW
#define ETMCU_FEATURE_CONTROL_FLOW 1  // MoveCall, JumpFalseCall, FreeCall
#endif
#ifndef ETMCU_FEATURE_CONSTANT_BUFFER
#define ETMCU_FEATURE_CONSTANT_BUFFER 1  // the deprecated inline constant_buffer
#endif
#ifndef ETMCU_FEATURE_LISTS
#define ETMCU_FEATURE_LISTS 1  // IntList/DoubleList/BoolList/TensorList/OptionalTensorList values
#endif
#ifndef ETMCU_FEATURE_TENSOR_LISTS
// TensorList/OptionalTensorList values (cat, stack, index: lists of tensors; needs LISTS)
#define ETMCU_FEATURE_TENSOR_LISTS 1
#endif
#ifndef ETMCU_FEATURE_STRINGS
#define ETMCU_FEATURE_STRINGS 1  // String values (e.g. div's rounding_mode)
#endif
#ifndef ETMCU_FEATURE_ALIAS_CHECK
#define ETMCU_FEATURE_ALIAS_CHECK 1  // method load checks op outs that overlap their inputs
#endif

#ifndef ETMCU_FEATURE_LOAD_VALUE_CHECKS
// Method load checks every value (Verification::InternalConsistency). 0: only for programs
// loaded with Verification::Minimal, whose values were checked before (the firmware's embedded
// program, by the host at build time); load then builds the slots unchecked, leaves out the
// checks of the program's structure too (ETMCU_BAD_PROGRAM below) and refuses
// InternalConsistency (docs/runtime.md, "Method state in flash").
#define ETMCU_FEATURE_LOAD_VALUE_CHECKS 1
#endif

#ifndef ETMCU_FEATURE_KERNEL_NAMES
// Method load finds each operator's kernel by name in the kernel table (find_kernel). 0: the
// kernel table is the method's operator list itself, in the plan's order (generated for the one
// program a firmware embeds: cmake/kernel_table.cmake BY_INDEX), so an operator's kernel is the
// table row of its index, with no name built or compared (docs/runtime.md, "Kernels by operator
// index").
#define ETMCU_FEATURE_KERNEL_NAMES 1
#endif

#ifndef ETMCU_FEATURE_KERNEL_TEMP
// Method load asks the kernels that declare a temp buffer (KernelEntry::temp_bytes) how much each
// call takes, and refuses a temp pool smaller than the largest (docs/kernels.md, "Buffers").
#define ETMCU_FEATURE_KERNEL_TEMP 1
#endif

#ifndef ETMCU_INSTRUCTION_HOOKS
#define ETMCU_INSTRUCTION_HOOKS 0  // per-instruction observer and profiler (host builds turn it on)
#endif

namespace etmcu {
constexpr bool kFeatureDelegates = ETMCU_FEATURE_DELEGATES != 0;
constexpr bool kFeatureExternalData = ETMCU_FEATURE_EXTERNAL_DATA != 0;
constexpr bool kFeatureMutableData = ETMCU_FEATURE_MUTABLE_DATA != 0;
constexpr bool kFeatureControlFlow = ETMCU_FEATURE_CONTROL_FLOW != 0;
constexpr bool kFeatureConstantBuffer = ETMCU_FEATURE_CONSTANT_BUFFER != 0;
constexpr bool kFeatureLists = ETMCU_FEATURE_LISTS != 0;
constexpr bool kFeatureTensorLists = kFeatureLists && ETMCU_FEATURE_TENSOR_LISTS != 0;
constexpr bool kFeatureStrings = ETMCU_FEATURE_STRINGS != 0;
constexpr bool kFeatureAliasCheck = ETMCU_FEATURE_ALIAS_CHECK != 0;
constexpr bool kFeatureLoadValueChecks = ETMCU_FEATURE_LOAD_VALUE_CHECKS != 0;
// A failed check of the program's own structure at load (identifier, header, offsets, indices,
// counts against the method layout): `cond` in a runtime with load-time value checks. A runtime
// without them loads only programs checked before (Verification::Minimal: the firmware's
// embedded program, which the host runtime loaded with every check when the firmware was built),
// so it leaves these out too. What the device itself provides (pools, inputs, the program's
// alignment, kernels) is checked in every build.
#define ETMCU_BAD_PROGRAM(cond) (::etmcu::kFeatureLoadValueChecks && (cond))
constexpr bool kFeatureKernelNames = ETMCU_FEATURE_KERNEL_NAMES != 0;
constexpr bool kFeatureKernelTemp = ETMCU_FEATURE_KERNEL_TEMP != 0;
constexpr bool kInstructionHooks = ETMCU_INSTRUCTION_HOOKS != 0;
}  // namespace etmcu
