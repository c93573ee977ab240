import QuireCore
import QuireStores
import Foundation

extension StoreVerification {
    /// Refuses a conversion source whose rows its model cannot represent, checked on the closed file before
    /// it is opened (SQLite: keys below 1, unknown entity numbers, wrong storage classes, out-of-range integers,
    /// keys that refer to no row; the kind's `checkContents`, which `quire verify` reports too).
    ///
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` naming the file and the first problem.
    package static func checkConvertible(storeAt url: URL, type: StoreType, model: ManagedObjectModel) throws {
        try refuseConversion(of: url, problems: try StoreKinds.kind(for: type, url: url).checkContents(url, model))
    }

    /// Refuses a conversion source, once opened (read-only) by `coordinator`, whose relationships disagree with
    /// their inverses where the store keeps the two apart (every relationship of an XML, binary or custom atomic
    /// store; a one-to-one of an SQL store): a copy into a store that keeps one side only would silently keep
    /// one of the two answers. `quire verify` reports the same disagreements. A one-to-one whose inverse is empty
    /// (kept on one side, as Core Data writes some) converts: it is a note, not a disagreement.
    ///
    /// - Throws: ``QuireError/Code/fileReadCorruptFile`` naming the store and the first disagreement.
    package static func checkConvertible(_ store: PersistentStore, in coordinator: PersistentStoreCoordinator) throws {
        try refuseConversion(
            of: store.url ?? URL(fileURLWithPath: "/"), problems: try recordProblems(of: store, in: coordinator, checking: .inverses).problems)
    }

    private static func refuseConversion(of url: URL, problems: [String]) throws {
        guard let first = problems.first else { return }
        throw QuireError(
            .fileReadCorruptFile,
            "'\(url.path)' cannot be converted faithfully: \(first)"
                + (problems.count > 1 ? " (\(problems.count - 1) more; quire verify lists them)" : ""),
            context: .init(file: url))
    }
}
