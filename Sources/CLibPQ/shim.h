// PostgreSQL's client library, libpq, from the system (Debian: libpq-dev; pkg-config `libpq`, which adds
// -I/usr/include/postgresql).
#include <libpq-fe.h>
