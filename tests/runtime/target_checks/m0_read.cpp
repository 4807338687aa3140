// Compiled (not run) for Cortex-M0 by target_checks.sh, which rejects any word or halfword load
// straight from the pointer: ARMv6-M faults on unaligned loads, and fb::read may see bytes that
// skipped verification.
#include "runtime/pte/flatbuffer.h"

uint32_t probe_read_u32(const uint8_t* p) { return etmcu::fb::read<uint32_t>(p); }
uint16_t probe_read_u16(const uint8_t* p) { return etmcu::fb::read<uint16_t>(p); }
uint64_t probe_read_u64(const uint8_t* p) { return etmcu::fb::read<uint64_t>(p); }
