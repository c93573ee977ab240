import QuireCore
import QuireStores
import Foundation

extension ManagedObject {
    /// The bytes of a binary or transformable attribute, reading its external data file when the value
    /// lives beside the store; nil when the attribute is nil.
    ///
    /// ``value(forKey:)`` reads the file too, but gives nil when it cannot; this throws instead.
    ///
    /// ```swift
    /// let scan = try page.dataValue(forKey: "scan")   // reads .Store_SUPPORT/_EXTERNAL_DATA/<UUID>
    /// ```
    ///
    /// - Throws: ``QuireError/Code/fileReadNoSuchFile`` when the file is missing,
    ///   ``QuireError/Code/fileReadCorruptFile`` when it is truncated; both name the object and the key.
    public func dataValue(forKey key: String) throws -> Data? {
        guard let attribute = property(forKey: key) as? AttributeDescription else { return nil }
        switch attributeValue(at: attribute.slot) {
        case .data(let bytes): return bytes
        case .externalData(let reference): return try externalData(reference, key: attribute.name)
        default: return nil
        }
    }

    /// Reads an external data reference through the object's coordinator.
    func externalData(_ reference: ExternalDataReference, key: String) throws -> Data {
        guard let coordinator = managedObjectContext?.persistentStoreCoordinator else {
            throw QuireError(
                .fileReadNoSuchFile, "The external data of '\(key)' of \(objectID) cannot be read: the object has no context.",
                context: .init(entity: entity.name, key: key, object: objectID.uriRepresentation()))
        }
        return try coordinator.readExternalData(reference, of: objectID, key: key)
    }

    /// The value of an attribute with external data read: `.data` instead of `.externalData`.
    func resolvedAttributeValue(at slot: Int, key: String) throws -> AttributeValue {
        let value = attributeValue(at: slot)
        guard case .externalData(let reference) = value else { return value }
        return .data(try externalData(reference, key: key))
    }
}
