#include "CQuireSupport.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#if defined(__linux__)
// libdispatch's two hooks for a run loop that is not Dispatch's own, as Foundation's CFRunLoop uses them on Linux.
// libdispatch.so exports them (they have for as long as swift-corelibs-libdispatch exists, since CoreFoundation
// in the same toolchain calls them), but its installed headers do not declare them, so they are declared here.
// dispatch_runloop_handle_t is an int (an eventfd) on Linux.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *unused);

int quire_main_queue_file_descriptor(void) {
    return _dispatch_get_main_queue_handle_4CF();
}

void quire_main_queue_run_pending(void) {
    // libdispatch writes to the eventfd when the main queue goes from empty to not empty and never reads it:
    // CFRunLoop does. Reset it first, so that a block queued while the queue drains (by another thread, or by a
    // block that queues another) writes again and the loop wakes again.
    int fd = _dispatch_get_main_queue_handle_4CF();
    uint64_t count;
    while (read(fd, &count, sizeof count) < 0 && errno == EINTR) {}
    _dispatch_main_queue_callback_4CF(NULL);
}
#else
int quire_main_queue_file_descriptor(void) {
    return -1;
}

void quire_main_queue_run_pending(void) {}
#endif
