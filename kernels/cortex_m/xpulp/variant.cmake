# The xpulp variant: CORE-V CV32E40P with its PULP extensions (COREV_PULP=1). The fast/ kernels,
# with their int8 dot products on cv.sdotsp.b (kernels/cortex_m/util/int8_dot.h); ops neither
# folder has come from ref/.
set(variant_base fast)
set(variant_defines ETMCU_INT8_XPULP=1)
