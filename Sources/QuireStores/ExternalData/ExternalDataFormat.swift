import QuireCore
import Foundation

/// Core Data's encoding of attributes that allow external storage, in an SQLite column:
/// `0x01` followed by the bytes (stored inline), or `0x02` followed by a 36-character UUID and `0x00`
/// (stored in `.<store>_SUPPORT/_EXTERNAL_DATA/<UUID>` beside the store).
@usableFromInline package enum ExternalDataFormat {
    /// What a column holds.
    package enum Column: Equatable {
        /// The bytes themselves.
        case inline(Data)
        /// The name of a file in the store's external data folder.
        case external(String)
    }

    /// Decodes a column's bytes.
    ///
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` when the bytes are neither form.
    package static func parse(_ bytes: Data, column: String) throws -> Column {
        guard let marker = bytes.first else { return .inline(Data()) }
        switch marker {
        case 0x01:
            return .inline(bytes.dropFirst())
        case 0x02:
            let body = bytes.dropFirst()
            guard body.count == 37, body.last == 0,
                let text = String(data: body.dropLast(), encoding: .ascii), UUID(uuidString: text) != nil
            else {
                throw QuireError(.fileReadCorruptFile, "Column \(column) holds a malformed external data reference.")
            }
            return .external(text)
        default:
            throw QuireError(.fileReadCorruptFile, "Column \(column) holds external-storage data with an unknown marker \(marker).")
        }
    }

    /// Decodes a column into an attribute value: the bytes for inline data, a reference for external data
    /// (the file is not read).
    @usableFromInline package static func decodeColumn(_ bytes: Data, column: String) throws -> AttributeValue {
        switch try parse(bytes, column: column) {
        case .inline(let data): return .data(Data(data))
        case .external(let name): return .externalData(ExternalDataReference(uuid: name, length: nil))
        }
    }

    /// A column holding a reference: `0x02`, the 36-character UUID, `0x00`.
    package static func externalColumn(_ uuid: String) -> Data {
        var bytes = Data([0x02])
        bytes.append(contentsOf: uuid.utf8)
        bytes.append(0)
        return bytes
    }
}
