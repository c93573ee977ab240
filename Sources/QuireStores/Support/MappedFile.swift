import QuireCore
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Maps a whole file into memory, read-only, as a `Data` whose deallocator unmaps it.
///
/// On Linux `Data(contentsOf:options: .mappedIfSafe)` reads (copies) the file; mapping it instead lets the
/// kernel hand over the page cache's pages without a copy, which for a large store is a good share of its
/// load time.
///
/// Safe for the files Quire writes: a mapped file that another process truncates would make reading the
/// vanished pages raise SIGBUS, but ``AtomicFileWriter`` always replaces a store file by renaming a new file
/// over it (the mapping keeps the old inode alive), never by rewriting it in place; the one in-place write, the
/// binary store's metadata slot, never changes the file's size. The mapping is private and read-only: nothing
/// written through it could reach the file, and the `Data` is only ever read.
package enum MappedFile {
    /// The file's bytes mapped, or nil when it cannot be mapped (it cannot be opened, is empty, is not a
    /// regular file, or `mmap` fails): the caller then reads it the ordinary way, which reports why.
    package static func map(_ url: URL) -> Data? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG, status.st_size > 0,
            let size = Int(exactly: status.st_size)
        else { return nil }
        #if os(Linux)
        let flags = MAP_PRIVATE | MAP_POPULATE
        #else
        let flags = MAP_PRIVATE
        #endif
        guard let address = mmap(nil, size, PROT_READ, flags, descriptor, 0), address != MAP_FAILED else { return nil }
        return Data(bytesNoCopy: address, count: size, deallocator: .custom { address, size in munmap(address, size) })
    }
}
