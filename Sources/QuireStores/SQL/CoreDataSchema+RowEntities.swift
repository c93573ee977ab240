import QuireCore
import Foundation

extension CoreDataSchema {
    /// The entity a row's entity number (`Z_ENT`) names, when it is `expected` or one of its sub-entities: the
    /// only entities whose rows a query for `expected` can find (a fetch's own entity, the destination of a
    /// relationship, the root of a table read by key).
    ///
    /// A damaged or hostile store can hold a number of an unrelated entity (a `ZPAGE` row numbered as a
    /// `Writer`); read as that entity, its row would be read with another table's columns and make an object
    /// whose properties are not the row's. Such a row is refused.
    ///
    /// - Parameters:
    ///   - number: The row's `Z_ENT`.
    ///   - pk: The row's key, for the error.
    ///   - expected: The entity the query reads.
    ///   - store: What errors call the store ("the SQLite store '/path'").
    ///   - file: The store's file or address, for the error's context.
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` for a number the store does not know or an entity that
    ///   is not `expected` or one of its sub-entities.
    package func entity(
        number: Int64, row pk: Int64, kindOf expected: EntityDescription, store: @autoclosure () -> String, file: URL?
    ) throws -> EntityDescription {
        guard let entity = numbers.entity(number: number) else {
            throw QuireError(
                .fileReadCorruptFile, "Row \(pk) of \(store()) has an unknown entity number \(number).",
                context: .init(file: file, entity: expected.name))
        }
        guard entity.isKind(of: expected) else {
            throw Self.misplacedRowError(number: number, entity: entity, row: pk, expected: expected, store: store(), file: file)
        }
        return entity
    }

    /// The error of a row whose entity number names an entity that is not the one its query reads (or one of
    /// its sub-entities).
    static func misplacedRowError(
        number: Int64, entity: EntityDescription, row pk: Int64, expected: EntityDescription, store: String, file: URL?
    ) -> QuireError {
        QuireError(
            .fileReadCorruptFile,
            "Row \(pk) of \(store), read as \(expected.name), has entity number \(number) (\(entity.name)), which is "
                + "not \(expected.name) or one of its sub-entities.",
            context: .init(file: file, entity: expected.name))
    }
}
