# arm-none-eabi-gcc (Debian's gcc-arm-none-eabi + libnewlib-arm-none-eabi) for a Cortex-M4F.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(cpu "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_C_FLAGS_INIT "${cpu} -O2")
set(CMAKE_CXX_FLAGS_INIT "${cpu} -O2")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${cpu} --specs=nano.specs --specs=nosys.specs")
# newlib ships no libstdc++ the bundle needs: link C++ objects with the C driver.
set(CMAKE_CXX_LINK_EXECUTABLE
    "<CMAKE_C_COMPILER> <FLAGS> <CMAKE_CXX_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
