import QuireCore
import Foundation

extension QuireError {
    /// The error of a save whose optimistic-locking check failed in a database store: each conflicting object
    /// with the store's row as it is now (read by `row` inside the failing transaction, before it is rolled
    /// back), or none when deleted.
    ///
    /// - Parameters:
    ///   - conflicting: The changes whose rows were changed or deleted since read.
    ///   - place: How the message names the store (`the store '/a/b.sqlite'`).
    ///   - file: The store's URL, without a password.
    ///   - row: Reads an object's row as the store has it now.
    package static func saveConflicts(
        _ conflicting: [SaveRequest.Change], in place: String, file: URL?, row: (ObjectID) throws -> RowSnapshot?
    ) throws -> QuireError {
        var conflicts: [MergeConflict] = []
        for change in conflicting {
            conflicts.append(MergeConflict(
                objectID: change.objectID, oldVersion: change.version, storeRow: try row(change.objectID),
                attributes: change.attributes, relationships: change.relationships))
        }
        let ids = conflicting.map(\.objectID)
        var error = QuireError(
            .persistentStoreSaveConflicts,
            "Could not save: \(ids.count) object\(ids.count == 1 ? " was" : "s were") changed or deleted "
                + "in \(place) since read (\(ids.prefix(5).map(\.description).joined(separator: ", "))"
                + "\(ids.count > 5 ? ", …" : "")).",
            context: .init(file: file, entity: ids.first?.entity.name, object: ids.first?.uriRepresentation(), objectID: ids.first))
        error.conflicts = conflicts
        return error
    }
}
