#define _GNU_SOURCE
#include "CQuireSupport.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int quire_setxattr(const char *path, const char *name, const void *value, size_t size) {
    return lsetxattr(path, name, value, size, 0);
}

ssize_t quire_getxattr(const char *path, const char *name, void *value, size_t size) {
    return lgetxattr(path, name, value, size);
}

ssize_t quire_listxattr(const char *path, char *list, size_t size) {
    return llistxattr(path, list, size);
}

int quire_removexattr(const char *path, const char *name) {
    return lremovexattr(path, name);
}

static int quire_renameat2(const char *from, const char *to, unsigned int flags) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, flags);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int quire_rename_exchange(const char *from, const char *to) {
    return quire_renameat2(from, to, RENAME_EXCHANGE);
}

int quire_rename_noreplace(const char *from, const char *to) {
    return quire_renameat2(from, to, RENAME_NOREPLACE);
}

int quire_start_writeback(int descriptor, off_t offset, off_t length) {
    return sync_file_range(descriptor, offset, length, SYNC_FILE_RANGE_WRITE);
}

int quire_fsync_directory(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    int result = fsync(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}

int quire_syncfs_of_directory(const char *path) {
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    int result = syncfs(fd);
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}

#ifndef FICLONE
#define FICLONE _IOW(0x94, 9, int)
#endif

int quire_clone_file(int source, int destination) {
    if (ioctl(destination, FICLONE, source) == 0) {
        return 0;
    }
    for (;;) {
        ssize_t copied = copy_file_range(source, NULL, destination, NULL, (size_t)1 << 30, 0);
        if (copied == 0) {
            return 1;
        }
        if (copied < 0) {
            if (errno == EINTR) {
                continue;
            }
            if (errno == ENOSYS || errno == EXDEV || errno == EINVAL || errno == EOPNOTSUPP) {
                break;
            }
            return -1;
        }
    }
    char buffer[1 << 16];
    for (;;) {
        ssize_t count = read(source, buffer, sizeof buffer);
        if (count == 0) {
            return 1;
        }
        if (count < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        for (ssize_t done = 0; done < count;) {
            ssize_t written = write(destination, buffer + done, (size_t)(count - done));
            if (written < 0) {
                if (errno == EINTR) {
                    continue;
                }
                return -1;
            }
            done += written;
        }
    }
}

int quire_errno(void) {
    return errno;
}
