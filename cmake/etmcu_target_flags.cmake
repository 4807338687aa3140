# Flags for target code (runtime/, kernels/, backends/, boards/): freestanding C++17, no exceptions,
# no RTTI, no thread-safe statics, sections for --gc-sections. Applied per target, so host-only code
# (sim/, tools/, tests) keeps the full language.
function(etmcu_target_code target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-fno-exceptions -fno-rtti -fno-threadsafe-statics>
    -ffunction-sections -fdata-sections -Wall -Wextra)
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR})
endfunction()
