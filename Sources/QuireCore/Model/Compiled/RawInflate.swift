import QuireSupport
import CZlib
import Foundation

/// Inflates raw DEFLATE data (RFC 1951, no zlib or gzip header), as Core Data writes `Z_MODELCACHE.Z_CONTENT`.
package enum RawInflate {
    /// Inflates `data`, refusing to produce more than `limit` bytes.
    ///
    /// - Parameters:
    ///   - data: The compressed bytes.
    ///   - limit: The most bytes the output may have (default 64 MiB).
    /// - Returns: The inflated bytes.
    /// - Throws: ``CompiledModelError/truncatedDeflate`` when the stream ends early,
    ///   ``CompiledModelError/invalidDeflate(_:)`` when it is corrupt (or has bytes after its end),
    ///   ``CompiledModelError/inflatedSizeLimitExceeded(limit:)`` when the output would exceed `limit`.
    package static func inflate(_ data: Data, limit: Int = DecodingLimits.default.maximumInflatedSize) throws -> Data {
        guard !data.isEmpty else { throw CompiledModelError.truncatedDeflate }
        guard data.count <= Int(UInt32.max) else {
            throw CompiledModelError.inputTooLarge(size: data.count, limit: Int(UInt32.max))
        }
        var stream = z_stream()
        let initStatus = czlib_inflate_init2(&stream, -15)
        guard initStatus == Z_OK else { throw CompiledModelError.invalidDeflate(message(of: stream, initStatus)) }
        defer { inflateEnd(&stream) }

        var output = Data()
        let chunkSize = 64 * 1024
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        var input = [UInt8](data)
        let inputCount = input.count
        var finished = false

        try input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputCount)
            while !finished {
                let status: Int32 = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(chunkSize)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = chunkSize - Int(stream.avail_out)
                if produced > 0 {
                    guard output.count + produced <= limit else {
                        throw CompiledModelError.inflatedSizeLimitExceeded(limit: limit)
                    }
                    output.append(contentsOf: chunk[0..<produced])
                }
                switch status {
                case Z_STREAM_END:
                    finished = true
                case Z_OK:
                    continue
                case Z_BUF_ERROR:
                    // No progress possible: the input is used up before the end of the stream.
                    if stream.avail_in == 0 { throw CompiledModelError.truncatedDeflate }
                    throw CompiledModelError.invalidDeflate(message(of: stream, status))
                default:
                    throw CompiledModelError.invalidDeflate(message(of: stream, status))
                }
            }
        }
        guard stream.avail_in == 0 else {
            throw CompiledModelError.invalidDeflate("\(stream.avail_in) bytes follow the end of the stream")
        }
        return output
    }

    /// zlib's message for a status, or the status number.
    private static func message(of stream: z_stream, _ status: Int32) -> String {
        if let text = stream.msg { return String(cString: text) }
        return "zlib status \(status)"
    }
}
