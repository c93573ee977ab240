import QuireCore
import Foundation

extension XMLStore {
    /// Refuses a model whose objects an XML store cannot hold faithfully: Core Data's format writes entity names
    /// upper-cased (`type="BOOK"`) and property names lower-cased (`name="title"`), so two entities whose names
    /// upper-case alike (`Book` and `BOOK`, `Straße` and `STRASSE`), or two stored attributes (or two stored
    /// relationships) of one entity whose names lower-case alike (`title` and `Title`), would be written under
    /// one name and read back as one.
    ///
    /// Names are folded as Foundation's non-localized `uppercased()` and `lowercased()` fold them (NSString's
    /// `uppercaseString` and `lowercaseString`: full Unicode case mapping, so `ß` upper-cases to `SS`), which is
    /// what the writer uses. An attribute and a relationship may share a folded name: they are different
    /// elements.
    ///
    /// - Throws: ``QuireError/Code/persistentStoreIncompatibleSchema`` naming both names and the file.
    static func checkNames(of model: ManagedObjectModel, file: URL?) throws {
        if let (first, second) = firstClash(model.entities.map(\.name), folding: { $0.uppercased() }) {
            throw clash(
                "its entities '\(first)' and '\(second)' would both be written as '\(first.uppercased())' "
                    + "(Core Data's XML store upper-cases entity names)", file: file)
        }
        for entity in model.entities {
            let attributes = entity.allAttributes.filter { !$0.isTransient }.map(\.name)
            let relationships = entity.allRelationships.filter { !$0.isTransient }.map(\.name)
            for (names, kind) in [(attributes, "attributes"), (relationships, "relationships")] {
                guard let (first, second) = firstClash(names, folding: { $0.lowercased() }) else { continue }
                throw clash(
                    "the \(kind) '\(first)' and '\(second)' of entity '\(entity.name)' would both be written as "
                        + "'\(first.lowercased())' (Core Data's XML store lower-cases property names)", file: file)
            }
        }
    }

    /// The first two names that fold to the same string, in code point order (a message that does not depend on
    /// the model's order).
    private static func firstClash(_ names: [String], folding fold: (String) -> String) -> (String, String)? {
        var seen: [String: String] = [:]
        for name in names {
            let folded = fold(name)
            if let earlier = seen[folded], earlier != name { return earlier < name ? (earlier, name) : (name, earlier) }
            seen[folded] = name
        }
        return nil
    }

    private static func clash(_ reason: String, file: URL?) -> QuireError {
        QuireError(
            .persistentStoreIncompatibleSchema,
            "The XML store '\(file?.path ?? "")' cannot hold objects of this model faithfully: \(reason). "
                + "Rename one of them, or use another store type.",
            context: .init(file: file))
    }
}
