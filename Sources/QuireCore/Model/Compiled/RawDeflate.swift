import QuireSupport
import CZlib
import Foundation

/// Compresses with raw DEFLATE (RFC 1951, no zlib or gzip header), as Core Data writes
/// `Z_MODELCACHE.Z_CONTENT`; ``RawInflate`` reads it back.
package enum RawDeflate {
    /// The raw DEFLATE of `data`, at zlib's default level.
    ///
    /// - Throws: ``CompiledModelError/invalidDeflate(_:)`` when zlib fails (it does not on valid input).
    package static func deflate(_ data: Data) throws -> Data {
        guard data.count <= Int(UInt32.max) else {
            throw CompiledModelError.inputTooLarge(size: data.count, limit: Int(UInt32.max))
        }
        var stream = z_stream()
        let status = deflateInit2_(
            &stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else { throw CompiledModelError.invalidDeflate("deflateInit2 answered \(status)") }
        defer { deflateEnd(&stream) }
        var input = [UInt8](data)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))) + 16)
        let (result, produced) = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                let result = CZlib.deflate(&stream, Z_FINISH)
                return (result, outputBuffer.count - Int(stream.avail_out))
            }
        }
        // deflateBound leaves room for the whole stream, so one call with Z_FINISH ends it.
        guard result == Z_STREAM_END else { throw CompiledModelError.invalidDeflate("deflate answered \(result)") }
        return Data(output.prefix(produced))
    }
}
