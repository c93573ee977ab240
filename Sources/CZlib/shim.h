#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H

#include <zlib.h>

/// `inflateInit2` is a macro in zlib.h, which Swift cannot call; this wraps it.
static inline int czlib_inflate_init2(z_streamp stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}

#endif
