import CLibPQ
import Foundation
import QuireCore

extension RawPostgres {
    /// Creates the table and inserts the 100k rows in one transaction with `COPY … FROM STDIN (FORMAT binary)`:
    /// PostgreSQL's binary copy format (a header, per row a field count and each field's length and bytes, a
    /// trailer), sent to libpq in pieces of about 256 KB.
    func insert100kCopy() throws {
        try createTable()
        PQclear(try exec("BEGIN"))
        let copy = PQexec(
            connection,
            "COPY zitem (z_pk, z_ent, z_opt, zi1, zi2, zd1, zd2, zs1, zs2, zs3, zflag, zdate, zblob, ztag) FROM STDIN (FORMAT binary)")
        let status = PQresultStatus(copy)
        PQclear(copy)
        guard status == PGRES_COPY_IN else { throw failure("start COPY") }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(300_000)
        func int16(_ value: Int16) { withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) } }
        func int32(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) } }
        func int8(_ value: Int64) {
            int32(8)
            withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
        }
        func float8(_ value: Double) { int8(Int64(bitPattern: value.bitPattern)) }
        func text(_ value: String) {
            var value = value
            value.withUTF8 { utf8 in
                int32(Int32(utf8.count))
                buffer.append(contentsOf: utf8)
            }
        }
        func send() throws {
            let sent = buffer.withUnsafeBytes { bytes in
                PQputCopyData(connection, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
            }
            guard sent == 1 else { throw failure("send COPY data") }
            buffer.removeAll(keepingCapacity: true)
        }
        buffer.append(contentsOf: Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00])
        int32(0)
        int32(0)
        for index in 0..<BenchData.rowCount {
            let row = BenchData.row(index)
            int16(14)
            int8(Int64(index + 1))
            int8(1)
            int8(1)
            int8(row.i1)
            int8(row.i2)
            float8(row.d1)
            float8(row.d2)
            text(row.s1)
            text(row.s2)
            text(row.s3)
            int8(row.flag ? 1 : 0)
            float8(row.date.timeIntervalSinceReferenceDate)
            int32(Int32(row.blob.count))
            buffer.append(contentsOf: row.blob)
            int8(row.tag)
            if buffer.count >= 256 * 1024 { try send() }
        }
        int16(-1)
        try send()
        guard PQputCopyEnd(connection, nil) == 1 else { throw failure("end COPY") }
        var failed = false
        while let result = PQgetResult(connection) {
            if PQresultStatus(result) != PGRES_COMMAND_OK { failed = true }
            PQclear(result)
        }
        guard !failed else { throw failure("COPY the rows") }
        PQclear(try exec("COMMIT"))
    }
}
