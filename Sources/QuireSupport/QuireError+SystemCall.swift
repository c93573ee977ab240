import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension QuireError.Code {
    /// The code for a file system call that failed with `errno`, chosen as Foundation chooses it
    /// (`CocoaError.Code(fileErrno:reading:)` in swift-foundation), so that an application that tells file
    /// errors apart by code sees the codes Foundation's own file APIs give:
    ///
    /// | errno | reading | writing |
    /// |---|---|---|
    /// | `ENOENT` | ``fileReadNoSuchFile`` | ``fileNoSuchFile`` |
    /// | `EPERM`, `EACCES` | ``fileReadNoPermission`` | ``fileWriteNoPermission`` |
    /// | `ENAMETOOLONG` | ``fileReadInvalidFileName`` | ``fileWriteInvalidFileName`` |
    /// | `EFBIG` | ``fileReadTooLarge`` | ``fileWriteOutOfSpace`` |
    /// | `ENOSPC`, `EDQUOT` | ``fileReadUnknown`` | ``fileWriteOutOfSpace`` |
    /// | `EROFS` | ``fileReadUnknown`` | ``fileWriteVolumeReadOnly`` |
    /// | `EEXIST` | ``fileReadUnknown`` | ``fileWriteFileExists`` |
    /// | anything else | ``fileReadUnknown`` | ``fileWriteUnknown`` |
    ///
    /// The one departure from Foundation: a write that reaches the file size limit (`EFBIG`) is reported as
    /// out of space, as a full disk is, since both mean the data did not fit (Foundation says "unknown").
    package init(errno code: Int32, reading: Bool) {
        if reading {
            switch code {
            case EFBIG: self = .fileReadTooLarge
            case ENOENT: self = .fileReadNoSuchFile
            case EPERM, EACCES: self = .fileReadNoPermission
            case ENAMETOOLONG: self = .fileReadInvalidFileName
            default: self = .fileReadUnknown
            }
        } else {
            switch code {
            case ENOENT: self = .fileNoSuchFile
            case EPERM, EACCES: self = .fileWriteNoPermission
            case ENAMETOOLONG: self = .fileWriteInvalidFileName
            case ENOSPC, EDQUOT, EFBIG: self = .fileWriteOutOfSpace
            case EROFS: self = .fileWriteVolumeReadOnly
            case EEXIST: self = .fileWriteFileExists
            default: self = .fileWriteUnknown
            }
        }
    }
}

extension QuireError {
    /// The error of a file system call that failed with `errno`: the code from
    /// ``QuireError/Code/init(errno:reading:)``, the sentence followed by the system's description of the
    /// errno, the file as context and ``SystemCallError`` as the underlying cause.
    ///
    /// - Parameters:
    ///   - code: The `errno` value the call left.
    ///   - function: The call that failed, such as `rename`.
    ///   - sentence: What could not be done, naming the file, without a final full stop.
    ///   - url: The file the call was about.
    ///   - reading: Whether the call read (`true`) or wrote or changed the file system (`false`).
    package static func systemCall(
        _ code: Int32, function: String, _ sentence: String, file url: URL, reading: Bool
    ) -> QuireError {
        QuireError(
            Code(errno: code, reading: reading), "\(sentence) (\(String(cString: strerror(code)))).",
            context: .init(file: url), underlying: SystemCallError(code: code, function: function))
    }
}
