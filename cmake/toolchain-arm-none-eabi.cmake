# Shared part of the Cortex-M toolchain files (toolchain-cortex-m*.cmake set ETMCU_CPU_FLAGS and the
# default board, then include this): arm-none-eabi-gcc + newlib-nano, own start-up and linker script
# (boards/cortex-m/), semihosting without rdimon. C++ objects are linked with the C driver (no libstdc++).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_arch "${ETMCU_CPU_FLAGS} -DETMCU_FREESTANDING")
set(CMAKE_C_FLAGS_INIT "${_arch}")
set(CMAKE_CXX_FLAGS_INIT "${_arch}")
set(CMAKE_ASM_FLAGS_INIT "${_arch}")
set(ETMCU_LINK_ARCH_FLAGS "${ETMCU_CPU_FLAGS} --specs=nano.specs")
set(CMAKE_C_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> ${ETMCU_LINK_ARCH_FLAGS} <CMAKE_C_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> -Wl,--start-group <LINK_LIBRARIES> -Wl,--end-group")
set(CMAKE_CXX_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> ${ETMCU_LINK_ARCH_FLAGS} <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> -Wl,--start-group <LINK_LIBRARIES> -Wl,--end-group")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
