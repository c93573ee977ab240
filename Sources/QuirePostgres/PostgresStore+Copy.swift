import QuireCore
import QuireStores
import Foundation

extension PostgresStore {
    /// The shortest run of inserted objects of one entity that goes as a COPY rather than as multi-row INSERTs in
    /// the save's pipeline (a COPY costs a round trip of its own to start and one to end).
    static let shortestCopiedRun = 512

    /// The column types of an entity's INSERT (``PostgresConnection/TypeOID``, one per parameter of
    /// ``WritePlan/insertSQL``), when every column has a binary form the COPY writes (no `NUMERIC`).
    func copyTypes(for entity: EntityDescription, plan: WritePlan) -> [UInt32]? {
        if let known = copyTypesByEntity[ObjectIdentifier(entity)] { return known.isEmpty ? nil : known }
        var types: [UInt32] = [PostgresConnection.TypeOID.int8, PostgresConnection.TypeOID.int8, PostgresConnection.TypeOID.int8]
        var eligible = true
        for (slot, external) in plan.attributeSlots {
            guard slot < entity.allAttributes.count else {
                eligible = false
                break
            }
            switch entity.allAttributes[slot].attributeType {
            case .integer16, .integer32, .integer64, .boolean: types.append(PostgresConnection.TypeOID.int8)
            case .double, .float, .date: types.append(PostgresConnection.TypeOID.float8)
            case .string, .uri: types.append(PostgresConnection.TypeOID.text)
            case .binaryData, .transformable, .uuid: types.append(PostgresConnection.TypeOID.bytea)
            case .decimal: eligible = false
            }
            if external { eligible = false }
        }
        for (_, withEntity) in plan.relationshipSlots {
            types.append(PostgresConnection.TypeOID.int8)
            if withEntity { types.append(PostgresConnection.TypeOID.int8) }
        }
        let answer = eligible ? types : []
        copyTypesByEntity[ObjectIdentifier(entity)] = answer
        return eligible ? answer : nil
    }

    /// Writes each run of at least ``shortestCopiedRun`` inserted objects of one entity whose columns all have a
    /// binary form with `COPY … FROM STDIN (FORMAT binary)`; returns the indices of the objects left for the
    /// pipeline. A row the server refuses is named by its object (the server's error gives its line).
    func copyInserts(
        _ inserted: [SaveRequest.Change], at indices: [Int], ids: [ObjectID], map: [ObjectID: ObjectID], _ connection: PostgresConnection
    ) throws -> [Int] {
        guard indices.count >= Self.shortestCopiedRun else { return indices }
        var left: [Int] = []
        try Self.forEachRunOfOneEntity(in: indices, ids: ids) { entity, run in
            guard run.count >= Self.shortestCopiedRun, let plan = writePlan(for: entity), let types = copyTypes(for: entity, plan: plan),
                let head = plan.insertSQL.range(of: " VALUES (")
            else {
                left += run
                return
            }
            let columns = plan.insertSQL[..<head.lowerBound].dropFirst("INSERT INTO ".count)
            var written: [Int] = []
            written.reserveCapacity(run.count)
            try connection.copyIn(
                "COPY \(columns) FROM STDIN (FORMAT binary)",
                describeRow: { row in
                    guard let row, row >= 0, row < written.count else {
                        return Self.describeInserts(ids[run[run.startIndex]], through: ids[run[run.endIndex - 1]], count: run.count)
                    }
                    return Self.describeWrite(insert: true, ids[written[row]])
                }
            ) { copy in
                for index in run {
                    let id = ids[index]
                    // An object without a key has no row (as in the pipeline); the rest are written value by value.
                    guard id.primaryKey != nil else { continue }
                    try copy.beginRow(fields: types.count) { Self.describeWrite(insert: true, id) }
                    var field = 0
                    _ = try visitRowValues(inserted[index], id: id, plan: plan, map: map, insert: true, connection) { value in
                        let type = field < types.count ? types[field] : PostgresConnection.TypeOID.unknown
                        field += 1
                        try copy.append(value, type: type) { Self.describeWrite(insert: true, id) }
                    }
                    try copy.endRow { Self.describeWrite(insert: true, id) }
                    written.append(index)
                }
            }
        }
        return left
    }

    /// Calls `body` with each run of consecutive indices whose objects are of one entity, in order.
    static func forEachRunOfOneEntity(
        in indices: [Int], ids: [ObjectID], _ body: (EntityDescription, ArraySlice<Int>) throws -> Void
    ) rethrows {
        var start = 0
        while start < indices.count {
            let entity = ids[indices[start]].entity
            var end = start + 1
            while end < indices.count, ids[indices[end]].entity === entity { end += 1 }
            try body(entity, indices[start..<end])
            start = end
        }
    }
}
