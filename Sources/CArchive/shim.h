// libarchive's C API, from the system's libarchive (Debian: libarchive-dev).
#include <archive.h>
#include <archive_entry.h>
