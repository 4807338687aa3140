// Baseline for the footprint probe: the same start-up, PAL stub and model bytes, no runtime calls.
extern "C" void et_pal_abort(void) {
  for (;;) {
  }
}
extern "C" const unsigned char g_model[];
int main() { return g_model[0]; }
