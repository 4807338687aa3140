# CV32E40P (RV32IMC, ilp32, soft-float) with Debian's riscv64-unknown-elf-gcc + picolibc.
# -march=rv32imc -misa-spec=2.2 everywhere: Zicsr is implicit (binutils 2.40 needs it for csr*), and the
# driver still picks the rv32im/ilp32 multilib (-march=rv32imc_zicsr would fall back to the rv64
# libraries); the same flags at link time also keep -flto (ETMCU_LTO) working.
# Debian has no libstdc++ for riscv64-unknown-elf: C++ objects are linked with the C driver.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(CMAKE_C_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_CXX_COMPILER riscv64-unknown-elf-g++)
set(CMAKE_ASM_COMPILER riscv64-unknown-elf-gcc)
set(CMAKE_OBJCOPY riscv64-unknown-elf-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE riscv64-unknown-elf-size CACHE FILEPATH "")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(ETMCU_BOARD cv32e40p CACHE STRING "board under boards/")
set(_arch "-march=rv32imc -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs -DETMCU_FREESTANDING")
set(CMAKE_C_FLAGS_INIT "${_arch}")
set(CMAKE_CXX_FLAGS_INIT "${_arch}")
set(CMAKE_ASM_FLAGS_INIT "${_arch}")
# picolibc's release (-O2) build: word-wise memset/memcpy (the default size build copies bytes).
set(ETMCU_PICOLIBC_BUILDTYPE release CACHE STRING "picolibc build type: release or minsize")
# Libraries (libgcc's soft-float, picolibc) from the rv32imac multilib: Debian has no rv32imc one, and
# -march=rv32imc would pick rv32im, whose code has no compressed instructions (__addsf3 1,140 B
# there, 818 B in rv32imac). The A extension the CV32E40P lacks is only in atomic helpers nothing
# here references; every firmware link checks that no A instruction made it in
# (cmake/check_no_atomics.cmake). Link-time code generation (LTO) never emits A instructions for
# code without atomics.
# (The link's -march also drives LTO code generation: rv32imc, not rv32im, keeps our code compressed
# with the uncompressed rv32im libraries; ./etmcu run --libs-march rv32imc.)
set(ETMCU_LIBS_MARCH rv32imac CACHE STRING "-march of the link; selects the libgcc/picolibc multilib")
set(ETMCU_LINK_ARCH_FLAGS
    "-march=${ETMCU_LIBS_MARCH} -misa-spec=2.2 -mabi=ilp32 --specs=picolibc.specs --picolibc-buildtype=${ETMCU_PICOLIBC_BUILDTYPE}")
set(ETMCU_CHECK_NO_ATOMICS ON)
set(CMAKE_C_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> ${ETMCU_LINK_ARCH_FLAGS} <CMAKE_C_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> -Wl,--start-group <LINK_LIBRARIES> -Wl,--end-group")
set(CMAKE_CXX_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> ${ETMCU_LINK_ARCH_FLAGS} <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> -Wl,--start-group <LINK_LIBRARIES> -Wl,--end-group")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
