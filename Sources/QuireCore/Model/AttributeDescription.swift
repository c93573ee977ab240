import QuireSupport
import Foundation

/// An attribute of an entity (`NSAttributeDescription`): a typed value with an optional default.
///
/// ```swift
/// let processID = AttributeDescription(name: "processID", type: .integer64)
/// processID.isOptional = false
/// processID.defaultValue = -1
/// ```
public final class AttributeDescription: PropertyDescription, @unchecked Sendable {
    // Exclusivity: stored properties skip dynamic exclusivity checks (`@exclusivity(unchecked)`). A model is
    // written only while it is editable, by the code building it, before any context or store can reach it,
    // and only read once frozen (writes then trap in `checkEditable()`), so no two accesses can overlap. The
    // checks would otherwise run on every fetch and save: the layers are separate modules, so the optimiser
    // can no longer prove them away as it did when everything was one module.
    /// The attribute's type.
    @exclusivity(unchecked) public var attributeType: AttributeType { didSet { checkEditable() } }

    /// The value a newly inserted object starts with, as stored.
    @exclusivity(unchecked) public var defaultAttributeValue: AttributeValue = .null { didSet { checkEditable() } }

    /// Whether large binary values may live in files beside the store instead of inside it.
    @exclusivity(unchecked) public var allowsExternalBinaryDataStorage: Bool = false { didSet { checkEditable() } }
    /// Whether persistent history keeps the value when the object is deleted (Core Data's
    /// `preservesValueInHistoryOnDeletion`, Xcode's "Preserve After Deletion"). Part of the version hash.
    @exclusivity(unchecked) public var preservesValueInHistoryOnDeletion: Bool = false { didSet { checkEditable() } }
    /// The expression a derived attribute's value is computed from (`NSDerivedAttributeDescription`'s
    /// `derivationExpression`), as a format string such as `pages.@count` or `count:(pages)`; nil for an ordinary
    /// attribute. Contexts compute the value when they save, on every store type (key paths, aggregates of to-many
    /// relationships, `now()`, `canonical:`, `lowercase:`, `uppercase:`), also for objects that reach a changed
    /// object through an inverse relationship. The attribute is read-only: a value set by hand is not kept and makes
    /// the next save throw ``QuireError/Code/managedObjectValidation``. Other forms are listed in
    /// ``ManagedObjectModel/unsupportedFeatures`` and kept as plain attributes.
    @exclusivity(unchecked) public var derivationExpression: String? { didSet { checkEditable() } }

    /// The name of the value transformer of a transformable attribute (see ``ValueTransformerRegistry``).
    @exclusivity(unchecked) public var valueTransformerName: String? { didSet { checkEditable() } }

    /// The smallest value (numbers, dates) or length (strings, in UTF-16 units as `NSString` counts them)
    /// that validation accepts.
    @exclusivity(unchecked) public var minimumValue: AttributeValue? { didSet { checkEditable() } }
    /// The largest value (numbers, dates) or length (strings, in UTF-16 units) that validation accepts.
    @exclusivity(unchecked) public var maximumValue: AttributeValue? { didSet { checkEditable() } }
    /// An ICU regular expression that string values must match as a whole.
    @exclusivity(unchecked) public var regularExpression: String? { didSet { checkEditable() } }

    /// ``regularExpression`` compiled, set when the model is frozen (read-only from then on).
    @exclusivity(unchecked) package private(set) var compiledRegularExpression: NSRegularExpression?

    /// Whether validation checks more than optionality: a minimum, maximum, pattern or predicate.
    var hasValueRules: Bool {
        minimumValue != nil || maximumValue != nil || regularExpression != nil || !validationPredicates.isEmpty
    }

    /// Compiles the regular expression; called while freezing the model.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` when the pattern is not a valid ICU regular expression.
    func compileRegularExpression() throws {
        guard let pattern = regularExpression else {
            compiledRegularExpression = nil
            return
        }
        do {
            // Anchored at both ends, so the whole string must match (as `MATCHES` does).
            compiledRegularExpression = try NSRegularExpression(pattern: "\\A(?:\(pattern))\\z")
        } catch {
            throw QuireError(
                .invalidModel,
                "The regular expression '\(pattern)' of '\(entity?.name ?? "?").\(name)' is not a valid ICU pattern.",
                context: .init(entity: entity?.name, key: name))
        }
    }

    /// Creates an attribute.
    ///
    /// - Parameters:
    ///   - name: The attribute's key.
    ///   - type: The attribute's type.
    ///   - isOptional: Whether it may be nil when saved (default `true`, as in Core Data).
    ///   - defaultValue: The value new objects start with, as any Swift value ``AttributeValue`` converts.
    public init(name: String, type: AttributeType, isOptional: Bool = true, defaultValue: Any? = nil) {
        self.attributeType = type
        super.init(name: name)
        self.isOptional = isOptional
        if let defaultValue { self.defaultValue = defaultValue }
    }

    /// The default value as a Swift value (`Int64` for integers, `String`, `Date`, …), or `nil`.
    ///
    /// Setting it converts the value to the attribute's type: `defaultValue = -1` on an integer64 attribute
    /// stores the integer -1. A value the type cannot hold stops with a clear message (a programmer error).
    public var defaultValue: Any? {
        get { defaultAttributeValue.isNull ? nil : ValueCoercion.publicValue(defaultAttributeValue, for: self) }
        set {
            do {
                defaultAttributeValue = try ValueCoercion.attributeValue(from: newValue, for: self)
            } catch {
                preconditionFailure("Invalid default value for '\(name)': \(error)")
            }
        }
    }

    override var versionHashText: String {
        super.versionHashText + ";kind=attribute;type=\(attributeType.rawValue)"
    }

    /// The attribute as Core Data prints it: the property's fields, then its type, value type and default.
    public override var description: String {
        "(<AttributeDescription>), \(propertyDescriptionText), attributeType \(attributeType.rawValue)"
            + ", attributeValueClassName \(attributeValueTypeName ?? "(null)")"
            + ", defaultValue \(defaultAttributeValue.isNull ? "(null)" : defaultAttributeValue.description)"
    }
}
