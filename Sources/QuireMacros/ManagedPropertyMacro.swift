import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@ManagedProperty`: turns a stored-looking `var` of a `ManagedObject` subclass or of an extension of one into a
/// computed property that reads and writes the object's own storage, as Core Data's `@NSManaged` does.
///
/// `@ManagedProperty var name: String?` expands to
/// `get { _managedValue(forKey: "name") } set { _setManagedValue(newValue, forKey: "name") }`, and a property named
/// `primitive` + a capitalized key (`primitiveUpdatedAt`) to the primitive accessors of that key (`updatedAt`), as
/// Core Data's dynamic primitive accessors are found. `@ManagedProperty("key")` names the key explicitly.
public struct ManagedPropertyMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self), variable.bindingSpecifier.tokenKind == .keyword(.var),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            let identifier = binding.pattern.as(IdentifierPatternSyntax.self)
        else {
            throw MacroExpansionErrorMessage("@ManagedProperty applies to one 'var' of a ManagedObject subclass.")
        }
        if binding.typeAnnotation == nil {
            throw MacroExpansionErrorMessage("A @ManagedProperty property needs its type written out, as @NSManaged does.")
        }
        if binding.initializer != nil {
            throw MacroExpansionErrorMessage("A @ManagedProperty property has no initial value: its value is the entity's default.")
        }
        if binding.accessorBlock != nil {
            throw MacroExpansionErrorMessage("A @ManagedProperty property has no accessors of its own.")
        }
        let name = identifier.identifier.trimmedDescription.trimmingBackticks()
        var key = name
        var primitive = false
        if let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression {
            guard let literal = argument.as(StringLiteralExprSyntax.self), literal.segments.count == 1,
                let segment = literal.segments.first?.as(StringSegmentSyntax.self)
            else {
                throw MacroExpansionErrorMessage("@ManagedProperty takes the key as a string literal.")
            }
            key = segment.content.text
        } else if let derived = primitiveKey(of: name) {
            key = derived
            primitive = true
        }
        let literal = "\"\(key)\""
        let getter: AccessorDeclSyntax
        let setter: AccessorDeclSyntax
        if primitive {
            getter = "get { _managedPrimitiveValue(forKey: \(raw: literal)) }"
            setter = "set { _setManagedPrimitiveValue(newValue, forKey: \(raw: literal)) }"
        } else {
            getter = "get { _managedValue(forKey: \(raw: literal)) }"
            setter = "set { _setManagedValue(newValue, forKey: \(raw: literal)) }"
        }
        return [getter, setter]
    }

    /// `updatedAt` for `primitiveUpdatedAt`; nil for names that are not a primitive accessor's.
    static func primitiveKey(of name: String) -> String? {
        let prefix = "primitive"
        guard name.hasPrefix(prefix), name.count > prefix.count else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let first = rest.first, first.isUppercase else { return nil }
        return first.lowercased() + rest.dropFirst()
    }
}

extension String {
    fileprivate func trimmingBackticks() -> String {
        hasPrefix("`") && hasSuffix("`") && count > 1 ? String(dropFirst().dropLast()) : self
    }
}

@main
struct QuireMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [ManagedPropertyMacro.self]
}
