#include "CQuireSupport.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

size_t quire_heap_bytes_in_use(void) {
#if defined(__GLIBC__)
    return mallinfo2().uordblks;
#else
    return 0;
#endif
}

size_t quire_heap_block_size(const void *pointer) {
#if defined(__GLIBC__)
    // A chunk's usable size leaves out its 8-byte size header.
    return pointer == NULL ? 0 : malloc_usable_size((void *)pointer) + sizeof(size_t);
#else
    (void)pointer;
    return 0;
#endif
}
