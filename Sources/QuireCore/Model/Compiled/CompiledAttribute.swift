import QuireSupport

/// An attribute of a decoded model (`NSAttributeDescription`, `NSDerivedAttributeDescription`, or an Xcode 3
/// `XDPMAttribute`).
package struct CompiledAttribute: Sendable, Hashable {
    /// The attribute's name.
    package var name: String
    /// The `NSAttributeType` number, as stored.
    package var attributeType: Int
    /// ``attributeType`` as a readable kind.
    package var kind: AttributeKind { AttributeKind(rawValue: attributeType) }
    /// The class of its values (`NSAttributeValueClassName`), such as `NSString`, or a custom class.
    var attributeValueClassName: String?
    /// Whether the attribute may be nil when saved.
    package var isOptional: Bool = true
    /// Whether the attribute is never stored.
    package var isTransient: Bool = false
    /// Whether the attribute is read-only (derived attributes are).
    package var isReadOnly: Bool = false
    /// The value new objects start with.
    package var defaultValue: ModelValue?
    /// The value transformer of a transformable attribute.
    package var valueTransformerName: String?
    /// Whether large values may be stored in files beside the store ("Allows External Storage",
    /// `NSFlagsKey` bit 2).
    package var allowsExternalBinaryDataStorage: Bool = false
    /// Whether deleting an object keeps this value in persistent history ("Preserve After Deletion",
    /// `NSFlagsKey` bit 4).
    package var preservesValueInHistoryOnDeletion: Bool = false
    /// Whether the store keeps an index for the attribute (`NSIsIndexed`, Xcode 3's "Indexed"; newer models
    /// use ``CompiledEntity/fetchIndexes``).
    package var isIndexed: Bool = false
    /// Whether the attribute is indexed by Spotlight.
    package var isIndexedBySpotlight: Bool = false
    /// Whether the attribute is stored in an external record file ("Store in External Record File").
    package var isStoredInExternalRecord: Bool = false
    /// The raw `NSFlagsKey` bit field of a compiled model (nil for Xcode 3 models).
    package var flags: Int?
    /// Application data attached to the attribute.
    package var userInfo: [String: ModelValue] = [:]
    /// The attribute's name in an earlier model version (`NSRenamingIdentifier`, Xcode's element ID).
    package var renamingIdentifier: String?
    /// A string mixed into the version hash.
    var versionHashModifier: String?
    /// Validation predicates in predicate-format syntax (`SELF` is the value), such as `length >= 3`.
    package var validationPredicates: [String] = []
    /// The warning of each validation predicate, in the same order.
    package var validationWarnings: [String] = []
    /// The minimum value (numbers, dates) or length (strings): `NSMinValueName` of a compiled model (an
    /// integer for integer and string attributes, a real otherwise), or Xcode 3's text read as the type.
    /// Xcode also writes these limits as ``validationPredicates``.
    package var minimumValue: ModelValue?
    /// The maximum value or length (`NSMaxValueName`, or Xcode 3's text).
    package var maximumValue: ModelValue?
    /// Whether the value lives in a file-backed future (`NSFlagsKey` bit 5).
    package var isFileBackedFuture: Bool = false
    /// Whether CloudKit encrypts the value (`_P` bit 11, `NSAllowsCloudEncryption`).
    package var allowsCloudEncryption: Bool = false
    /// The regular expression string values must match, as Xcode 3 models store it.
    var regularExpression: String?
    /// The derivation expression of a derived attribute, in expression-format syntax (`count:(pages)`).
    package var derivationExpression: String?
    /// The filtering predicate of a derived attribute, if any.
    var derivationFilteringPredicate: String?

    /// Whether this is a derived attribute (it has a derivation expression).
    package var isDerived: Bool { derivationExpression != nil }

    /// Creates an attribute; every other field has the default Core Data gives it.
    init(name: String, attributeType: Int) {
        self.name = name
        self.attributeType = attributeType
    }
}
