import QuireCore
import Foundation

extension PersistentStoreCoordinator {
    /// Adds a store under Core Data's labels and options dictionary
    /// (`addPersistentStore(ofType:configurationName:at:options:)`), as
    /// ``addPersistentStore(type:configuration:at:options:)`` does with the options read by
    /// `StoreOptions(coreDataOptions:)`.
    ///
    /// ```swift
    /// try coordinator.addPersistentStore(ofType: InMemoryStoreType, configurationName: nil, at: nil, options: nil)
    /// ```
    ///
    /// - Throws: What ``addPersistentStore(type:configuration:at:options:)`` throws, or `invalidArgument` for an option
    ///   `StoreOptions(coreDataOptions:)` refuses.
    @discardableResult
    public func addPersistentStore(
        ofType storeType: StoreType, configurationName: String?, at url: URL?, options: [String: Any]?
    ) throws -> PersistentStore {
        try addPersistentStore(
            type: storeType, configuration: configurationName, at: url, options: try StoreOptions(coreDataOptions: options ?? [:]))
    }

    /// Removes a store's files under Core Data's labels (`destroyPersistentStore(at:ofType:options:)`).
    public func destroyPersistentStore(at url: URL, ofType storeType: StoreType, options: [String: Any]?) throws {
        try destroyPersistentStore(at: url, type: storeType, options: try StoreOptions(coreDataOptions: options ?? [:]))
    }
}

/// `NSSQLiteStoreType`: ``StoreType/sqlite``.
public var SQLiteStoreType: StoreType { .sqlite }
/// `NSXMLStoreType`: ``StoreType/xml``.
public var XMLStoreType: StoreType { .xml }
/// `NSBinaryStoreType`: ``StoreType/binary``.
public var BinaryStoreType: StoreType { .binary }
/// `NSInMemoryStoreType`: ``StoreType/inMemory``.
public var InMemoryStoreType: StoreType { .inMemory }

/// What a fetch request can return (`NSFetchRequestResult`): managed objects, object IDs, dictionaries and counts
/// conform, so that code constraining its types by it (`protocol Managed: AnyObject, FetchRequestResult`) ports
/// by a rename. Quire's `FetchRequest` needs no such constraint.
public protocol FetchRequestResult {}

extension ManagedObject: FetchRequestResult {}
extension ObjectID: FetchRequestResult {}
extension Dictionary: FetchRequestResult where Key == String, Value == Any {}
extension Int: FetchRequestResult {}
