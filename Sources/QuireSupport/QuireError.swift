import Foundation

/// The one error type Quire throws.
///
/// A `QuireError` carries a ``Code`` (Core Data's numeric codes where Core Data has one), a one-sentence
/// message naming what failed and where, the underlying cause when there is one, and a ``Context`` with the
/// file, entity, key and object involved.
///
/// Codes match by pattern, so a `catch` can name the failure it handles:
///
/// ```swift
/// do {
///     try context.save()
/// } catch QuireError.Code.persistentStoreSaveConflicts {
///     // another coordinator saved the same objects first
/// } catch let error as QuireError where error.code.isValidationError {
///     print(error.message)
/// }
/// ```
public struct QuireError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// A growable set of error codes, numbered as in Core Data where Core Data has the same failure.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric value (Core Data's `NSError.code` for the codes Core Data defines).
        public var rawValue: Int

        /// Creates a code from its numeric value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Matches a code against an error in a `catch` or `switch` pattern.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? QuireError)?.code == code
        }

        /// True for the validation codes (1550–1690), those a save reports for invalid objects.
        public var isValidationError: Bool { (1550...1690).contains(rawValue) }

        /// The code's name and number, such as `persistentStoreOpen (134080)`.
        public var description: String { "\(Code.names[self] ?? "code") (\(rawValue))" }
    }

    /// Where a failure happened: the file, entity, key, object and position involved, when known.
    public struct Context: Sendable, Hashable {
        /// The file or folder involved.
        public var file: URL?
        /// The name of the entity involved.
        public var entity: String?
        /// The property key involved.
        public var key: String?
        /// The URI representation of the object involved.
        public var object: URL?
        /// A position in the input (a byte offset, or a character offset into a format string).
        public var position: Int?
        /// The ID of the object, the value and the predicate involved, kept type-erased: the error type knows
        /// nothing of the layers above it. `QuireCore` reads and writes them as `objectID`, `value` and
        /// `predicate`.
        package var objectIDDetail: ErrorDetail?
        package var valueDetail: ErrorDetail?
        package var predicateDetail: ErrorDetail?

        /// Creates a context naming a file, entity, key, object or position; every field is optional
        /// (`QuireCore` adds an initializer that also takes the object ID, value and predicate).
        public init(file: URL? = nil, entity: String? = nil, key: String? = nil, object: URL? = nil, position: Int? = nil) {
            self.file = file
            self.entity = entity
            self.key = key
            self.object = object
            self.position = position
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// One sentence naming what failed and where.
    public var message: String
    /// The cause, such as an SQLite error or a POSIX error, when there is one.
    public var underlying: (any Error & Sendable)?
    /// The file, entity, key, object and position involved.
    public var context: Context
    /// The individual failures of a ``Code/validationMultipleErrors`` error (or of any other aggregate).
    public var detailedErrors: [QuireError]
    /// The optimistic-locking conflicts of a merge or save-conflicts error, type-erased (`QuireCore` reads
    /// and writes them as `conflicts`).
    package var conflictDetails: [any Sendable] = []

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What kind of failure this is.
    ///   - message: One sentence naming what failed and where.
    ///   - context: The file, entity, key and object involved.
    ///   - underlying: The cause, when there is one.
    ///   - detailedErrors: The individual failures of an aggregate error.
    public init(
        _ code: Code,
        _ message: String,
        context: Context = Context(),
        underlying: (any Error & Sendable)? = nil,
        detailedErrors: [QuireError] = []
    ) {
        self.code = code
        self.message = message
        self.context = context
        self.underlying = underlying
        self.detailedErrors = detailedErrors
    }

    /// The message, followed by the underlying cause when there is one.
    public var description: String {
        guard let underlying else { return message }
        return "\(message) (\(underlying))"
    }

    /// The message, as `LocalizedError` asks.
    public var errorDescription: String? { description }
}

extension QuireError.Code {
    // MARK: Validation (Core Data's codes)

    /// A generic validation failure.
    public static let managedObjectValidation = Self(rawValue: 1550)
    /// Several validation failures; `detailedErrors` lists them.
    public static let validationMultipleErrors = Self(rawValue: 1560)
    /// A required property has no value.
    public static let validationMissingMandatoryProperty = Self(rawValue: 1570)
    /// A to-many relationship has fewer objects than its minimum count.
    public static let validationRelationshipLacksMinimumCount = Self(rawValue: 1580)
    /// A to-many relationship has more objects than its maximum count.
    public static let validationRelationshipExceedsMaximumCount = Self(rawValue: 1590)
    /// A delete was refused by a relationship with the deny rule.
    public static let validationRelationshipDeniedDelete = Self(rawValue: 1600)
    /// A number is above its maximum.
    public static let validationNumberTooLarge = Self(rawValue: 1610)
    /// A number is below its minimum.
    public static let validationNumberTooSmall = Self(rawValue: 1620)
    /// A date is after its maximum.
    public static let validationDateTooLate = Self(rawValue: 1630)
    /// A date is before its minimum.
    public static let validationDateTooSoon = Self(rawValue: 1640)
    /// A value is not a valid date.
    public static let validationInvalidDate = Self(rawValue: 1650)
    /// A string is longer than its maximum length.
    public static let validationStringTooLong = Self(rawValue: 1660)
    /// A string is shorter than its minimum length.
    public static let validationStringTooShort = Self(rawValue: 1670)
    /// A string does not match its regular expression.
    public static let validationStringPatternMatching = Self(rawValue: 1680)
    /// A value is not a valid URI.
    public static let validationInvalidURI = Self(rawValue: 1690)

    // MARK: Object graph (Core Data's codes)

    /// An object's record no longer exists, so its fault cannot be fired.
    public static let managedObjectReferentialIntegrity = Self(rawValue: 133000)
    /// A relationship points at an object in another store.
    public static let managedObjectExternalRelationship = Self(rawValue: 133010)
    /// A save found conflicts it could not merge.
    public static let managedObjectMerge = Self(rawValue: 133020)
    /// A save would break uniqueness constraints its merge policy does not resolve
    /// (`NSManagedObjectConstraintMergeError`); the error lists them as `constraintConflicts`.
    public static let managedObjectConstraintMerge = Self(rawValue: 133021)

    // MARK: Persistent stores (Core Data's codes)

    /// The store type is unknown, or the file is not a store of any known type.
    public static let persistentStoreInvalidType = Self(rawValue: 134000)
    /// The file is a store of another type than the one asked for.
    public static let persistentStoreTypeMismatch = Self(rawValue: 134010)
    /// The store's schema is neither Quire's nor Core Data's, or does not match the model.
    public static let persistentStoreIncompatibleSchema = Self(rawValue: 134020)
    /// A store could not be saved.
    public static let persistentStoreSave = Self(rawValue: 134030)
    /// Some stores saved and others did not.
    public static let persistentStoreIncompleteSave = Self(rawValue: 134040)
    /// Another coordinator changed the same records since they were read (optimistic locking).
    public static let persistentStoreSaveConflicts = Self(rawValue: 134050)
    /// A generic Core Data failure.
    public static let coreData = Self(rawValue: 134060)
    /// An operation on a store failed (such as a write to a read-only store).
    public static let persistentStoreOperation = Self(rawValue: 134070)
    /// A store could not be opened.
    public static let persistentStoreOpen = Self(rawValue: 134080)
    /// A store did not answer in time (a lock held too long).
    public static let persistentStoreTimeout = Self(rawValue: 134090)
    /// The store does not support this kind of request.
    public static let persistentStoreUnsupportedRequestType = Self(rawValue: 134091)
    /// The store was written with an incompatible model.
    public static let persistentStoreIncompatibleVersionHash = Self(rawValue: 134100)
    /// A migration failed.
    public static let migration = Self(rawValue: 134110)
    /// A migration was cancelled.
    public static let migrationCancelled = Self(rawValue: 134120)
    /// The migration's source model could not be found.
    public static let migrationMissingSourceModel = Self(rawValue: 134130)
    /// No mapping model was found or could be inferred.
    public static let migrationMissingMappingModel = Self(rawValue: 134140)
    /// The source store of a migration could not be read.
    public static let migrationManagerSourceStore = Self(rawValue: 134150)
    /// The destination store of a migration could not be written or put in place.
    public static let migrationManagerDestinationStore = Self(rawValue: 134160)
    /// A migration policy failed.
    public static let entityMigrationPolicy = Self(rawValue: 134170)
    /// SQLite reported an error.
    public static let sqlite = Self(rawValue: 134180)
    /// A mapping model could not be inferred.
    public static let inferredMappingModel = Self(rawValue: 134190)

    // MARK: Files (Foundation's Cocoa codes)

    /// A file system operation was attempted on a file or folder that does not exist (when writing: a folder
    /// on the path is missing).
    public static let fileNoSuchFile = Self(rawValue: 4)
    /// A file could not be read.
    public static let fileReadUnknown = Self(rawValue: 256)
    /// A file could not be read for lack of permission.
    public static let fileReadNoPermission = Self(rawValue: 257)
    /// A file could not be read because its name is invalid (too long).
    public static let fileReadInvalidFileName = Self(rawValue: 258)
    /// A file's content is corrupt or truncated.
    public static let fileReadCorruptFile = Self(rawValue: 259)
    /// A file does not exist.
    public static let fileReadNoSuchFile = Self(rawValue: 260)
    /// A file is too large to be read.
    public static let fileReadTooLarge = Self(rawValue: 263)
    /// A file could not be written.
    public static let fileWriteUnknown = Self(rawValue: 512)
    /// A file could not be written for lack of permission.
    public static let fileWriteNoPermission = Self(rawValue: 513)
    /// A file could not be written because its name is invalid (too long).
    public static let fileWriteInvalidFileName = Self(rawValue: 514)
    /// A file could not be written because an item of that name already exists.
    public static let fileWriteFileExists = Self(rawValue: 516)
    /// A file could not be written because the volume is full (or a file size limit was reached).
    public static let fileWriteOutOfSpace = Self(rawValue: 640)
    /// A file could not be written because its volume is read-only.
    public static let fileWriteVolumeReadOnly = Self(rawValue: 642)

    // MARK: Quire's own

    /// A model is invalid (a dangling destination or inverse, a duplicate name) or a model file is malformed.
    public static let invalidModel = Self(rawValue: 140_000)
    /// A predicate format string could not be parsed.
    public static let predicateSyntax = Self(rawValue: 140_010)
    /// A predicate could not be evaluated (a missing substitution variable, a key the entity lacks).
    public static let predicateEvaluation = Self(rawValue: 140_011)
    /// A fetch request is invalid (an unknown entity, sort key or template).
    public static let invalidFetchRequest = Self(rawValue: 140_020)
    /// A value does not fit its attribute's type.
    public static let invalidValue = Self(rawValue: 140_030)
    /// A key names no property of the object's entity (what Core Data raises as `NSUndefinedKeyException`),
    /// reported by the throwing accessors such as `validatedValue(forKey:)`.
    public static let unknownKey = Self(rawValue: 140_031)
    /// An archive is malformed or hostile (path traversal, links, devices, size limits).
    public static let invalidArchive = Self(rawValue: 140_040)
    /// A document could not be opened, saved or closed.
    public static let document = Self(rawValue: 140_050)
    /// A command-line argument is invalid.
    public static let invalidArgument = Self(rawValue: 140_060)

    // MARK: Documents and archives (Quire's own)

    /// An archive entry is unsafe to extract: an absolute path, `..`, a symbolic or hard link, a device or
    /// other special file, or a name that occurs twice.
    public static let archiveUnsafeEntry = Self(rawValue: 140_041)
    /// An archive entry or the whole archive expands beyond the configured size or entry-count limits.
    public static let archiveLimitExceeded = Self(rawValue: 140_042)
    /// No registered document type has the name, extension or MIME type asked for.
    public static let unknownDocumentType = Self(rawValue: 140_051)
    /// A file is not a document of the type asked for (its `mimetype` or first archive entry says otherwise,
    /// or it is not a package or archive at all).
    public static let documentTypeMismatch = Self(rawValue: 140_052)
    /// A package holds something a document must not: a symbolic link, a device, or a missing store.
    public static let invalidPackage = Self(rawValue: 140_053)
    /// A document operation needs a file location the document does not have yet (a Save before Save As).
    public static let documentHasNoLocation = Self(rawValue: 140_054)

    fileprivate static let names: [Self: String] = [
        .managedObjectValidation: "managedObjectValidation",
        .validationMultipleErrors: "validationMultipleErrors",
        .validationMissingMandatoryProperty: "validationMissingMandatoryProperty",
        .validationRelationshipLacksMinimumCount: "validationRelationshipLacksMinimumCount",
        .validationRelationshipExceedsMaximumCount: "validationRelationshipExceedsMaximumCount",
        .validationRelationshipDeniedDelete: "validationRelationshipDeniedDelete",
        .validationNumberTooLarge: "validationNumberTooLarge",
        .validationNumberTooSmall: "validationNumberTooSmall",
        .validationDateTooLate: "validationDateTooLate",
        .validationDateTooSoon: "validationDateTooSoon",
        .validationInvalidDate: "validationInvalidDate",
        .validationStringTooLong: "validationStringTooLong",
        .validationStringTooShort: "validationStringTooShort",
        .validationStringPatternMatching: "validationStringPatternMatching",
        .validationInvalidURI: "validationInvalidURI",
        .managedObjectReferentialIntegrity: "managedObjectReferentialIntegrity",
        .managedObjectExternalRelationship: "managedObjectExternalRelationship",
        .managedObjectMerge: "managedObjectMerge",
        .managedObjectConstraintMerge: "managedObjectConstraintMerge",
        .persistentStoreInvalidType: "persistentStoreInvalidType",
        .persistentStoreTypeMismatch: "persistentStoreTypeMismatch",
        .persistentStoreIncompatibleSchema: "persistentStoreIncompatibleSchema",
        .persistentStoreSave: "persistentStoreSave",
        .persistentStoreIncompleteSave: "persistentStoreIncompleteSave",
        .persistentStoreSaveConflicts: "persistentStoreSaveConflicts",
        .coreData: "coreData",
        .persistentStoreOperation: "persistentStoreOperation",
        .persistentStoreOpen: "persistentStoreOpen",
        .persistentStoreTimeout: "persistentStoreTimeout",
        .persistentStoreUnsupportedRequestType: "persistentStoreUnsupportedRequestType",
        .persistentStoreIncompatibleVersionHash: "persistentStoreIncompatibleVersionHash",
        .migration: "migration",
        .migrationCancelled: "migrationCancelled",
        .migrationMissingSourceModel: "migrationMissingSourceModel",
        .migrationMissingMappingModel: "migrationMissingMappingModel",
        .migrationManagerSourceStore: "migrationManagerSourceStore",
        .migrationManagerDestinationStore: "migrationManagerDestinationStore",
        .entityMigrationPolicy: "entityMigrationPolicy",
        .sqlite: "sqlite",
        .inferredMappingModel: "inferredMappingModel",
        .fileNoSuchFile: "fileNoSuchFile",
        .fileReadUnknown: "fileReadUnknown",
        .fileReadNoPermission: "fileReadNoPermission",
        .fileReadInvalidFileName: "fileReadInvalidFileName",
        .fileReadCorruptFile: "fileReadCorruptFile",
        .fileReadNoSuchFile: "fileReadNoSuchFile",
        .fileReadTooLarge: "fileReadTooLarge",
        .fileWriteUnknown: "fileWriteUnknown",
        .fileWriteNoPermission: "fileWriteNoPermission",
        .fileWriteInvalidFileName: "fileWriteInvalidFileName",
        .fileWriteFileExists: "fileWriteFileExists",
        .fileWriteOutOfSpace: "fileWriteOutOfSpace",
        .fileWriteVolumeReadOnly: "fileWriteVolumeReadOnly",
        .invalidModel: "invalidModel",
        .predicateSyntax: "predicateSyntax",
        .predicateEvaluation: "predicateEvaluation",
        .invalidFetchRequest: "invalidFetchRequest",
        .invalidValue: "invalidValue",
        .unknownKey: "unknownKey",
        .invalidArchive: "invalidArchive",
        .document: "document",
        .invalidArgument: "invalidArgument",
        .archiveUnsafeEntry: "archiveUnsafeEntry",
        .archiveLimitExceeded: "archiveLimitExceeded",
        .unknownDocumentType: "unknownDocumentType",
        .documentTypeMismatch: "documentTypeMismatch",
        .invalidPackage: "invalidPackage",
        .documentHasNoLocation: "documentHasNoLocation",
    ]
}

/// A Foundation error reduced to its description, so it can travel as a Sendable underlying cause.
package struct QuireUnderlyingError: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ error: any Error) { description = String(describing: error) }
}

/// A value of a layer above the error type, carried by a ``QuireError`` without the error type naming it.
///
/// `@unchecked Sendable`: the only initializer takes a `Sendable` value, and `AnyHashable` only wraps it.
package struct ErrorDetail: @unchecked Sendable, Hashable {
    private let base: AnyHashable

    /// Wraps a value.
    package init<Value: Hashable & Sendable>(_ value: Value) { base = AnyHashable(value) }

    /// The value, when it is of the given type.
    package func value<Value>(as type: Value.Type) -> Value? { base.base as? Value }
}
