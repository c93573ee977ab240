// Declarations only (include/CFuzzer.h); the driver is in libFuzzer, linked by -sanitize=fuzzer.
#include "CFuzzer.h"
