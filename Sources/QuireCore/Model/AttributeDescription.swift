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
    /// The attribute's type.
    public var attributeType: AttributeType { didSet { checkEditable() } }

    /// The value a newly inserted object starts with, as stored.
    public var defaultAttributeValue: AttributeValue = .null { didSet { checkEditable() } }

    /// Whether large binary values may live in files beside the store instead of inside it.
    public var allowsExternalBinaryDataStorage: Bool = false { didSet { checkEditable() } }
    /// Whether persistent history keeps the value when the object is deleted (Core Data's
    /// `preservesValueInHistoryOnDeletion`, Xcode's "Preserve After Deletion"). Part of the version hash.
    public var preservesValueInHistoryOnDeletion: Bool = false { didSet { checkEditable() } }
    /// The expression a derived attribute's value is computed from (`NSDerivedAttributeDescription`'s
    /// `derivationExpression`), as a format string such as `pages.@count`; nil for an ordinary attribute. Quire keeps
    /// it from the model but does not compute the value yet: the attribute behaves as a plain one (see
    /// ``ManagedObjectModel/unsupportedFeatures``).
    public var derivationExpression: String? { didSet { checkEditable() } }

    /// The name of the value transformer of a transformable attribute (see ``ValueTransformerRegistry``).
    public var valueTransformerName: String? { didSet { checkEditable() } }

    /// The smallest value (numbers, dates) or length (strings, in UTF-16 units as `NSString` counts them)
    /// that validation accepts.
    public var minimumValue: AttributeValue? { didSet { checkEditable() } }
    /// The largest value (numbers, dates) or length (strings, in UTF-16 units) that validation accepts.
    public var maximumValue: AttributeValue? { didSet { checkEditable() } }
    /// An ICU regular expression that string values must match as a whole.
    public var regularExpression: String? { didSet { checkEditable() } }

    /// ``regularExpression`` compiled, set when the model is frozen (read-only from then on).
    package private(set) var compiledRegularExpression: NSRegularExpression?

    /// Whether validation checks more than optionality: a minimum, maximum, pattern or predicate.
    package var hasValueRules: Bool {
        minimumValue != nil || maximumValue != nil || regularExpression != nil || !validationPredicates.isEmpty
    }

    /// Compiles the regular expression; called while freezing the model.
    ///
    /// - Throws: ``QuireError/Code/invalidModel`` when the pattern is not a valid ICU regular expression.
    package func compileRegularExpression() throws {
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

    package override var versionHashText: String {
        super.versionHashText + ";kind=attribute;type=\(attributeType.rawValue)"
    }

    /// The attribute as Core Data prints it: the property's fields, then its type, value type and default.
    public override var description: String {
        "(<AttributeDescription>), \(propertyDescriptionText), attributeType \(attributeType.rawValue)"
            + ", attributeValueClassName \(attributeValueTypeName ?? "(null)")"
            + ", defaultValue \(defaultAttributeValue.isNull ? "(null)" : defaultAttributeValue.description)"
    }
}
