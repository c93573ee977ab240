#ifndef CQUIRE_SUPPORT_H
#define CQUIRE_SUPPORT_H

#include <stddef.h>
#include <sys/types.h>

/// Sets the extended attribute `name` of `path` (without following a final symlink).
/// Returns 0 or -1 with errno set. Wrapped because Glibc's module does not export `sys/xattr.h`.
int quire_setxattr(const char *path, const char *name, const void *value, size_t size);

/// Reads the extended attribute `name` of `path` into `value` (at most `size` bytes; `size` 0 asks for the length).
/// Returns the length, or -1 with errno set.
ssize_t quire_getxattr(const char *path, const char *name, void *value, size_t size);

/// Lists the extended attribute names of `path` as NUL-separated strings. Returns the length, or -1 with errno set.
ssize_t quire_listxattr(const char *path, char *list, size_t size);

/// Removes the extended attribute `name` of `path`. Returns 0 or -1 with errno set.
int quire_removexattr(const char *path, const char *name);

/// Atomically exchanges `from` and `to` with `renameat2(RENAME_EXCHANGE)`, which Glibc's module does not export.
/// Returns 0, or -1 with errno set (EINVAL or ENOSYS where the filesystem or kernel cannot exchange).
int quire_rename_exchange(const char *from, const char *to);

/// Renames `from` to `to` only if `to` does not exist (`RENAME_NOREPLACE`). Returns 0 or -1 with errno set.
int quire_rename_noreplace(const char *from, const char *to);

/// Opens the directory `path` and fsyncs it, so that renames and creations inside it are durable.
/// Returns 0 or -1 with errno set.
int quire_fsync_directory(const char *path);

/// Flushes every file of the file system holding the directory `path` (`syncfs(2)`, which Glibc's module does
/// not export): one call instead of an fsync per file when many small files were written (external records).
/// Returns 0 or -1 with errno set.
int quire_syncfs_of_directory(const char *path);

/// Copies the whole content of the open file `source` into the open, empty file `destination`: a reflink
/// clone (`ioctl(FICLONE)`, btrfs and XFS) when the file system can share the blocks, otherwise
/// `copy_file_range(2)`, otherwise read and write. Wrapped because `ioctl` is variadic and Glibc's module does
/// not export `copy_file_range`. Returns 0 for a clone, 1 for a copy, or -1 with errno set.
int quire_clone_file(int source, int destination);

/// Starts writing the dirty pages of `length` bytes of the open file `descriptor` from `offset` to the disk,
/// without waiting for them (`sync_file_range(SYNC_FILE_RANGE_WRITE)`): a large file written in pieces, each
/// started as it is written, leaves little for its final `fsync` and never piles up dirty pages. Advisory; no
/// data is made durable by it. Wrapped because Glibc's module does not export `sync_file_range` (a GNU
/// extension). Returns 0 or -1 with errno set.
int quire_start_writeback(int descriptor, off_t offset, off_t length);

/// The bytes of the heap blocks in use, their headers included (glibc's `mallinfo2().uordblks`): what the
/// process holds on the heap, whether or not freed blocks were reused. 0 where glibc is not the allocator.
/// Used to count what objects take (benchmarks, tests); Glibc's module does not export `malloc.h`.
size_t quire_heap_bytes_in_use(void);

/// The size of the heap block that starts at `pointer` (from `malloc`), its header included: the bytes one
/// allocation takes. 0 for NULL, or where glibc is not the allocator.
size_t quire_heap_block_size(const void *pointer);

/// The errno of the calling thread (Swift reaches it, but this keeps call sites uniform).
int quire_errno(void);

/// The file descriptor (an eventfd) that becomes readable when Dispatch's main queue has blocks to run
/// (`_dispatch_get_main_queue_handle_4CF`, which libdispatch exports for CoreFoundation's run loop but does not
/// declare in its installed headers). -1 where libdispatch has no such handle (not Linux).
int quire_main_queue_file_descriptor(void);

/// Resets that descriptor and runs the blocks queued on the main queue (`_dispatch_main_queue_callback_4CF`).
/// Only on the main thread, and only in a process that never called `dispatch_main()` (libdispatch traps
/// otherwise): the caller checks the first; the second is the application's choice of loop.
void quire_main_queue_run_pending(void);

#endif
