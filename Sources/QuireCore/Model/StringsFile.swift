import QuireSupport
import Foundation

/// A reader of `.strings` files, the format of Core Data's model localization files
/// (`"Property/firstName" = "First Name";`).
///
/// Entries are `"key" = "value";` or `"key";` (the key is its own value); keys and values are quoted strings
/// with the escapes `\"`, `\\`, `\n`, `\t`, `\r`, `\0`…`\377` (octal), `\U0041` and `\u0041` (UTF-16 units,
/// surrogate pairs joined), or bare words of letters, digits and `_$+/:.-`. `/* … */` and `// …` are comments.
/// The file is UTF-8, or UTF-16 with a byte-order mark (as Xcode writes it). A later entry replaces an earlier
/// one with the same key.
///
/// Input is bounded: at most ``maximumFileSize`` bytes and ``maximumEntries`` entries; anything malformed
/// throws ``QuireError/Code/fileReadCorruptFile`` naming the file and the line.
enum StringsFile {
    /// The largest strings file read (8 MiB).
    static let maximumFileSize = 8 << 20
    /// The most entries a strings file may hold.
    static let maximumEntries = 200_000

    /// Reads and parses a strings file.
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when it cannot be read,
    ///   ``QuireError/Code/fileReadCorruptFile`` when it is too large, not text, or malformed.
    static func read(_ url: URL) throws -> [String: String] {
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
        if let size, size > maximumFileSize {
            throw QuireError(
                .fileReadCorruptFile,
                "The strings file '\(url.path)' is \(size) bytes, more than the \(maximumFileSize) a strings file may have.",
                context: .init(file: url))
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw QuireError(.fileReadNoSuchFile, "The strings file '\(url.path)' cannot be read.", context: .init(file: url), underlying: error)
        }
        return try parse(data, file: url)
    }

    /// Parses the bytes of a strings file.
    ///
    /// - Parameters:
    ///   - data: The file's bytes.
    ///   - file: The file, for error messages.
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` naming the line of the first mistake.
    static func parse(_ data: Data, file: URL?) throws -> [String: String] {
        let name = file.map { "'\($0.path)'" } ?? "(data)"
        guard data.count <= maximumFileSize else {
            throw QuireError(
                .fileReadCorruptFile, "The strings file \(name) is more than \(maximumFileSize) bytes.", context: .init(file: file))
        }
        guard let text = decode(data) else {
            throw QuireError(
                .fileReadCorruptFile,
                "The strings file \(name) is neither UTF-8 nor UTF-16 with a byte-order mark.", context: .init(file: file))
        }
        var parser = Parser(scalars: Array(text.unicodeScalars), fileName: name, file: file)
        return try parser.parse()
    }

    private static func decode(_ data: Data) -> String? {
        let bytes = [UInt8](data)
        if bytes.starts(with: [0xFF, 0xFE]) { return String(data: data.dropFirst(2), encoding: .utf16LittleEndian) }
        if bytes.starts(with: [0xFE, 0xFF]) { return String(data: data.dropFirst(2), encoding: .utf16BigEndian) }
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        var text = ""
        var iterator = body.makeIterator()
        var decoder = UTF8()
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): text.unicodeScalars.append(scalar)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        return text
    }

    private struct Parser {
        let scalars: [Unicode.Scalar]
        let fileName: String
        let file: URL?
        var index = 0
        var line = 1

        init(scalars: [Unicode.Scalar], fileName: String, file: URL?) {
            self.scalars = scalars
            self.fileName = fileName
            self.file = file
        }

        mutating func parse() throws -> [String: String] {
            var result: [String: String] = [:]
            var entries = 0
            while true {
                try skipSpaceAndComments()
                guard index < scalars.count else { return result }
                let key = try string("a key")
                try skipSpaceAndComments()
                var value = key
                if peek == "=" {
                    index += 1
                    try skipSpaceAndComments()
                    value = try string("a value after '='")
                    try skipSpaceAndComments()
                }
                guard peek == ";" else { throw failure("expected ';' after the entry for \"\(key)\"") }
                index += 1
                entries += 1
                guard entries <= StringsFile.maximumEntries else {
                    throw failure("more than \(StringsFile.maximumEntries) entries")
                }
                result[key] = value
            }
        }

        private var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

        private func failure(_ what: String) -> QuireError {
            QuireError(
                .fileReadCorruptFile, "The strings file \(fileName) is malformed at line \(line): \(what).",
                context: .init(file: file, position: index))
        }

        private mutating func advance() -> Unicode.Scalar? {
            guard index < scalars.count else { return nil }
            let scalar = scalars[index]
            index += 1
            if scalar == "\n" { line += 1 }
            return scalar
        }

        private mutating func skipSpaceAndComments() throws {
            while let scalar = peek {
                if scalar.properties.isWhitespace {
                    _ = advance()
                } else if scalar == "/" && index + 1 < scalars.count && scalars[index + 1] == "*" {
                    let startLine = line
                    index += 2
                    var closed = false
                    while let next = advance() {
                        if next == "*" && peek == "/" {
                            index += 1
                            closed = true
                            break
                        }
                    }
                    guard closed else {
                        line = startLine
                        throw failure("a comment starting here is never closed")
                    }
                } else if scalar == "/" && index + 1 < scalars.count && scalars[index + 1] == "/" {
                    while let next = peek, next != "\n" { index += 1 }
                } else {
                    return
                }
            }
        }

        private static func isBareWordScalar(_ scalar: Unicode.Scalar) -> Bool {
            (scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)))
                || "_$+/:.-".unicodeScalars.contains(scalar)
        }

        private mutating func string(_ what: String) throws -> String {
            guard let first = peek else { throw failure("expected \(what), found the end of the file") }
            if first != "\"" {
                guard Self.isBareWordScalar(first) else { throw failure("expected \(what), found '\(first)'") }
                var word = String.UnicodeScalarView()
                while let scalar = peek, Self.isBareWordScalar(scalar) {
                    word.append(scalar)
                    index += 1
                }
                return String(word)
            }
            let startLine = line
            index += 1
            var result = String.UnicodeScalarView()
            var pendingHighSurrogate: UInt16?
            while true {
                guard let scalar = advance() else {
                    line = startLine
                    throw failure("a string starting here is never closed")
                }
                if scalar == "\"" {
                    if pendingHighSurrogate != nil { result.append("\u{FFFD}") }
                    return String(result)
                }
                guard scalar == "\\" else {
                    if pendingHighSurrogate != nil {
                        result.append("\u{FFFD}")
                        pendingHighSurrogate = nil
                    }
                    result.append(scalar)
                    continue
                }
                guard let escaped = advance() else { throw failure("the file ends inside an escape") }
                if escaped == "U" || escaped == "u" {
                    let unit = try hexUnit()
                    if (0xD800...0xDBFF).contains(unit) {
                        if pendingHighSurrogate != nil { result.append("\u{FFFD}") }
                        pendingHighSurrogate = unit
                        continue
                    }
                    if (0xDC00...0xDFFF).contains(unit), let high = pendingHighSurrogate {
                        let value = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(unit) - 0xDC00)
                        result.append(Unicode.Scalar(value) ?? "\u{FFFD}")
                        pendingHighSurrogate = nil
                        continue
                    }
                    if pendingHighSurrogate != nil { result.append("\u{FFFD}") }
                    pendingHighSurrogate = nil
                    result.append(Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}")
                    continue
                }
                if pendingHighSurrogate != nil {
                    result.append("\u{FFFD}")
                    pendingHighSurrogate = nil
                }
                switch escaped {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "r": result.append("\r")
                case "a": result.append("\u{07}")
                case "b": result.append("\u{08}")
                case "f": result.append("\u{0C}")
                case "v": result.append("\u{0B}")
                case "0"..."7":
                    var value = escaped.value - 0x30
                    for _ in 0..<2 {
                        guard let next = peek, ("0"..."7").contains(next) else { break }
                        value = value * 8 + (next.value - 0x30)
                        index += 1
                    }
                    result.append(Unicode.Scalar(UInt8(truncatingIfNeeded: value)))
                default: result.append(escaped)
                }
            }
        }

        private mutating func hexUnit() throws -> UInt16 {
            var value: UInt16 = 0
            for _ in 0..<4 {
                guard let scalar = peek, let digit = Self.hexDigit(scalar) else {
                    throw failure("expected four hexadecimal digits after \\U")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        private static func hexDigit(_ scalar: Unicode.Scalar) -> UInt16? {
            switch scalar {
            case "0"..."9": return UInt16(scalar.value - 0x30)
            case "a"..."f": return UInt16(scalar.value - 0x61 + 10)
            case "A"..."F": return UInt16(scalar.value - 0x41 + 10)
            default: return nil
            }
        }
    }
}
