// libFuzzer's driver, for an executable that has a main of its own (SwiftPM renames a Swift main and points
// `main` at it, so libFuzzer's own main is never linked).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
