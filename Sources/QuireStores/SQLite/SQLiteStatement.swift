import QuireCore
import CSQLite
import Foundation

/// SQLite's destructor constant asking it to copy bound text and blobs.
package let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement with typed binding and reading of ``AttributeValue``s.
package final class SQLiteStatement {
    private(set) var raw: OpaquePointer?
    package unowned let connection: SQLiteConnection
    /// Whether ``SQLiteConnection/cachedStatement(_:)`` handed this statement out beside its cached one (that
    /// one was still stepping): the caller owns it, and nothing may keep it past the request.
    package internal(set) var isOutsideCache = false

    package init(_ raw: OpaquePointer, connection: SQLiteConnection) {
        self.raw = raw
        self.connection = connection
    }

    /// Finalizes the statement when its owner did not (a statement handed out beside the cached one).
    deinit {
        if raw != nil { sqlite3_finalize(raw) }
    }

    package func finalize() {
        sqlite3_finalize(raw)
        raw = nil
    }

    package func reset() {
        sqlite3_reset(raw)
        sqlite3_clear_bindings(raw)
    }

    /// Resets for another run, keeping the bound values (for callers that bind every parameter anew).
    package func resetKeepingBindings() {
        sqlite3_reset(raw)
    }

    /// Steps once: true when a row is available, false when done.
    package func step() throws -> Bool {
        let code = sqlite3_step(raw)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.lastError(code, action: "step")
        }
    }

    /// Steps until done (for statements without results).
    package func run() throws {
        while try step() {}
    }

    // MARK: Binding (1-based indexes)

    package func bind(_ value: Int64, at index: Int32) { sqlite3_bind_int64(raw, index, value) }
    package func bindNull(at index: Int32) { sqlite3_bind_null(raw, index) }
    package func bind(_ value: Double, at index: Int32) { sqlite3_bind_double(raw, index, value) }

    package func bind(_ value: String, at index: Int32) {
        // `withCString` lends a native string's own UTF-8 without copying; the explicit byte count keeps any
        // embedded NUL characters.
        let count = Int32(value.utf8.count)
        value.withCString { pointer in
            _ = sqlite3_bind_text(raw, index, pointer, count, sqliteTransient)
        }
    }

    package func bind(_ value: Data, at index: Int32) {
        value.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress {
                _ = sqlite3_bind_blob(raw, index, base, Int32(buffer.count), sqliteTransient)
            } else {
                _ = sqlite3_bind_zeroblob(raw, index, 0)
            }
        }
    }

    /// Binds an attribute value in its SQLite form (dates as seconds since 2001, UUIDs as 16 bytes, …).
    package func bind(_ value: AttributeValue, at index: Int32, externalFormat: Bool = false) {
        switch value {
        case .null: bindNull(at: index)
        case .integer(let v): bind(v, at: index)
        case .double(let v): bind(v, at: index)
        case .float(let v): bind(Double(v), at: index)
        case .decimal(let v):
            switch SQLiteDecimal.stored(v) {
            case .integer(let integer): bind(integer, at: index)
            case .real(let double): bind(double, at: index)
            case .text(let text): bind(text, at: index)
            }
        case .string(let v): bind(v, at: index)
        case .boolean(let v): bind(Int64(v ? 1 : 0), at: index)
        case .date(let v): bind(v.timeIntervalSinceReferenceDate, at: index)
        case .data(let v):
            if externalFormat {
                var framed = Data([0x01])
                framed.append(v)
                bind(framed, at: index)
            } else {
                bind(v, at: index)
            }
        case .uuid(let v):
            let bytes: [UInt8] = withUnsafeBytes(of: v.uuid) { Array($0) }
            bind(Data(bytes), at: index)
        case .uri(let v): bind(v.absoluteString, at: index)
        case .externalData(let v): bind(ExternalDataFormat.externalColumn(v.uuid), at: index)
        }
    }

    // MARK: Reading (0-based columns)

    package func isNull(at column: Int32) -> Bool { sqlite3_column_type(raw, column) == SQLITE_NULL }
    package func int64(at column: Int32) -> Int64 { sqlite3_column_int64(raw, column) }
    package func double(at column: Int32) -> Double { sqlite3_column_double(raw, column) }

    package func string(at column: Int32) -> String? {
        guard let text = sqlite3_column_text(raw, column) else { return nil }
        let count = Int(sqlite3_column_bytes(raw, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    package func data(at column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(raw, column))
        guard count > 0, let bytes = sqlite3_column_blob(raw, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }

    /// Reads a column as a value of an attribute type.
    package func attributeValue(at column: Int32, type: AttributeType, externalFormat: Bool = false) throws -> AttributeValue {
        let storage = sqlite3_column_type(raw, column)
        if storage == SQLITE_NULL { return .null }
        switch type {
        case .integer16, .integer32, .integer64:
            return .integer(sqlite3_column_int64(raw, column))
        case .boolean:
            return .boolean(sqlite3_column_int64(raw, column) != 0)
        case .double:
            return .double(sqlite3_column_double(raw, column))
        case .float:
            return .float(Float(sqlite3_column_double(raw, column)))
        case .decimal:
            if storage == SQLITE_TEXT, let text = string(at: column), let decimal = SQLiteDecimal.decimal(fromText: text) {
                return .decimal(decimal)
            }
            if storage == SQLITE_INTEGER { return .decimal(Decimal(sqlite3_column_int64(raw, column))) }
            return .decimal(SQLiteDecimal.decimal(fromReal: sqlite3_column_double(raw, column)))
        case .string:
            return .string(string(at: column) ?? "")
        case .uri:
            guard let text = string(at: column), let url = URL(string: text) else {
                throw corrupt(column, "is not a valid URI")
            }
            return .uri(url)
        case .date:
            return .date(Date(timeIntervalSinceReferenceDate: sqlite3_column_double(raw, column)))
        case .binaryData, .transformable:
            let bytes = data(at: column)
            guard externalFormat else { return .data(bytes) }
            return try ExternalDataFormat.decodeColumn(bytes, column: columnName(column))
        case .uuid:
            let bytes = data(at: column)
            guard bytes.count == 16 else { throw corrupt(column, "holds \(bytes.count) bytes where a UUID needs 16") }
            let b = [UInt8](bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                     b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
    }

    /// Reads the attributes of the current row (key `row` of the reader's table), one value per read, into a
    /// new array: the common types inline, each column's value fetched once; the others through
    /// ``attributeValue(at:type:externalFormat:)``.
    ///
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` naming the table, the row and the column when a column
    ///   holds a storage class its type never has (text in an integer column, a blob in a string column) or an
    ///   integer outside its type's range: a damaged row is refused, never coerced.
    package func attributeValues(_ reader: RowReader, row: Int64) throws -> [AttributeValue] {
        let reads = reader.attributes
        return try [AttributeValue](unsafeUninitializedCapacity: reads.count) { buffer, initialized in
            for read in reads {
                buffer.initializeElement(at: initialized, to: try inlineValue(read, reader, row))
                initialized += 1
            }
        }
    }

    /// One attribute's value. Each kind first tests the storage class its values always have (one comparison),
    /// so a well-formed row pays nothing more for the checks; NULL and the other classes the type allows take
    /// the slower path, and a class the type never has is refused.
    @inline(__always)
    private func inlineValue(_ read: RowReader.AttributeRead, _ reader: RowReader, _ row: Int64) throws -> AttributeValue {
        if read.kind == .none { return .null }
        // The column's value once, instead of a type call and a value call that each look the column up.
        guard let value = sqlite3_column_value(raw, read.column) else { return .null }
        let storage = sqlite3_value_type(value)
        switch read.kind {
        case .none: return .null
        case .integer:
            if storage == SQLITE_INTEGER { return .integer(sqlite3_value_int64(value)) }
        case .rangedInteger:
            if storage == SQLITE_INTEGER {
                let integer = sqlite3_value_int64(value)
                guard integer >= read.minimum, integer <= read.maximum else { throw damaged(read, reader, row, storage: storage) }
                return .integer(integer)
            }
        case .boolean:
            if storage == SQLITE_INTEGER { return .boolean(sqlite3_value_int64(value) != 0) }
        case .double:
            if storage == SQLITE_FLOAT || storage == SQLITE_INTEGER { return .double(sqlite3_value_double(value)) }
        case .date:
            if storage == SQLITE_FLOAT || storage == SQLITE_INTEGER {
                return .date(Date(timeIntervalSinceReferenceDate: sqlite3_value_double(value)))
            }
        case .string:
            if storage == SQLITE_TEXT {
                guard let text = sqlite3_value_text(value) else { return .string("") }
                let count = Int(sqlite3_value_bytes(value))
                return .string(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
            }
        case .data:
            if storage == SQLITE_BLOB {
                let blob = sqlite3_value_blob(value)
                let count = Int(sqlite3_value_bytes(value))
                guard count > 0, let blob else { return .data(Data()) }
                return .data(Data(bytes: blob, count: count))
            }
        case .other:
            if storage != SQLITE_NULL && read.storageClasses & (1 &<< storage) != 0 {
                return try attributeValue(at: read.column, type: read.type, externalFormat: read.external)
            }
        }
        if storage == SQLITE_NULL { return .null }
        throw damaged(read, reader, row, storage: storage)
    }

    /// The storage class of a column of the current row (`SQLITE_INTEGER`, …).
    package func storageClass(at column: Int32) -> Int32 { sqlite3_column_type(raw, column) }

    /// A column's value as errors show it: its storage class and the start of its text.
    package func describeValue(at column: Int32) -> String {
        let storage = sqlite3_column_type(raw, column)
        let name = SQLiteStorageClass.name(storage)
        switch storage {
        case SQLITE_NULL: return "NULL"
        case SQLITE_BLOB: return "a blob of \(sqlite3_column_bytes(raw, column)) bytes"
        case SQLITE_TEXT: return "the text '\((string(at: column) ?? "").prefix(40))'"
        default: return "the \(name) \(string(at: column) ?? "")"
        }
    }

    /// The error for a column of a row whose value its attribute's type never has.
    private func damaged(_ read: RowReader.AttributeRead, _ reader: RowReader, _ row: Int64, storage: Int32) -> QuireError {
        let attribute = reader.entity.allAttributes.first { reader.attributes[$0.slot].column == read.column }
        let problem = storage == SQLITE_INTEGER && read.storageClasses & (1 << SQLITE_INTEGER) != 0
            ? "holds \(describeValue(at: read.column)), outside the range of \(read.type.rawValue) (\(read.minimum)...\(read.maximum))"
            : "holds \(describeValue(at: read.column)) where \(read.type.rawValue) values are stored as "
                + SQLiteStorageClass.names(read.storageClasses)
        return QuireError(
            .fileReadCorruptFile,
            "Row Z_PK \(row) of table \(reader.tableName) in the SQLite store '\(connection.url.path)': column "
                + "\(columnName(read.column))\(attribute.map { " (\(reader.entity.name).\($0.name))" } ?? "") \(problem).",
            context: .init(file: connection.url, entity: reader.entity.name, key: attribute?.name))
    }

    package func columnName(_ column: Int32) -> String {
        sqlite3_column_name(raw, column).map { String(cString: $0) } ?? "column \(column)"
    }

    private func corrupt(_ column: Int32, _ problem: String) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "Column \(columnName(column)) of the SQLite store '\(connection.url.path)' \(problem).",
            context: .init(file: connection.url))
    }
}
