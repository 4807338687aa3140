/* The probe's model bytes, opaque to the optimiser (never link-time optimised). */
__attribute__((aligned(16))) const unsigned char g_model[16] = {0};
const unsigned g_model_size = sizeof(g_model);
