import QuireCore
import Foundation

/// Writes Core Data's XML store format with its own escaping: `<database>`, `<databaseInfo>` (version,
/// UUID, nextObjectID, the metadata as an XML property list, and Quire's embedded model), then one
/// `<object type="ENTITY" id="z102">` per record with `<attribute>` and `<relationship>` elements.
struct XMLStoreWriter {
    /// Core Data's XML store version number.
    static let coreDataVersion = "134481920"
    static let doctype = "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">"

    package private(set) var output: [UInt8] = []
    /// The names written for each entity's stored attributes and relationships (see ``storedName(of:in:)``),
    /// worked out once per entity.
    private var namesByEntity: [ObjectIdentifier: EntityNames] = [:]

    /// What an entity's objects are written with: its `type` and its properties' names, by slot.
    private struct EntityNames {
        var type: String
        var attributes: [String]
        var relationships: [String]
    }

    /// The name Core Data writes for a property of `entity`: lower-cased, as Core Data's XML store writes them
    /// (a model in which two stored attributes, or two stored relationships, of an entity lower-case alike is
    /// refused before anything is written: ``XMLStore/checkNames(of:file:)``).
    static func storedName(of property: PropertyDescription, in entity: EntityDescription) -> String {
        property.name.lowercased()
    }

    init(capacity: Int = 0) { output.reserveCapacity(capacity) }

    /// Empties the output, keeping its capacity (a writer that streams its bytes out in pieces).
    mutating func removeOutput() { output.removeAll(keepingCapacity: true) }

    @inline(__always) mutating func raw(_ text: String) {
        var text = text
        text.withUTF8 { output.append(contentsOf: $0) }
    }

    /// Text content: `&`, `<`, `>` escaped, and `\r` as a character reference so parsers keep it.
    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let replacement: String
                switch utf8[index] {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\""): replacement = "&quot;"
                case 0x0D: replacement = "&#13;"
                default: continue
                }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                raw(replacement)
                start = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
    }

    /// Whether XML 1.0 can hold a string: no NUL and no C0 controls other than tab, line feed and return,
    /// no unpaired surrogates (Swift strings have none), no U+FFFE or U+FFFF.
    static func isRepresentable(_ value: String) -> Bool {
        value.unicodeScalars.allSatisfy { scalar in
            let v = scalar.value
            return (v >= 0x20 && v != 0xFFFE && v != 0xFFFF) || v == 0x09 || v == 0x0A || v == 0x0D
        }
    }

    // MARK: Property lists

    mutating func propertyList(_ dictionary: [String: PropertyListValue], indent: String) {
        raw(indent + "<plist version=\"1.0\">\n")
        value(.dictionary(dictionary), indent: indent)
        raw(indent + "</plist>\n")
    }

    private mutating func value(_ value: PropertyListValue, indent: String) {
        switch value {
        case .string(let v):
            if Self.isRepresentable(v) {
                raw(indent + "<string>"); text(v); raw("</string>\n")
            } else {
                // XML cannot hold the string: keep its bytes as data under a marker key Quire reads back.
                raw(indent + "<data quire-string=\"1\">" + Data(v.utf8).base64EncodedString() + "</data>\n")
            }
        case .integer(let v): raw(indent + "<integer>\(v)</integer>\n")
        case .real(let v): raw(indent + "<real>\(v)</real>\n")
        case .boolean(let v): raw(indent + (v ? "<true/>\n" : "<false/>\n"))
        case .date(let v): raw(indent + "<date>" + v.ISO8601Format() + "</date>\n")
        case .data(let v): raw(indent + "<data>" + v.base64EncodedString() + "</data>\n")
        case .array(let elements):
            raw(indent + "<array>\n")
            for element in elements { self.value(element, indent: indent + "\t") }
            raw(indent + "</array>\n")
        case .dictionary(let entries):
            raw(indent + "<dict>\n")
            for key in entries.keys.sorted() {
                guard let entry = entries[key] else { continue }
                raw(indent + "\t<key>"); text(key); raw("</key>\n")
                self.value(entry, indent: indent + "\t")
            }
            raw(indent + "</dict>\n")
        }
    }

    // MARK: The store

    /// The document up to and including `</databaseInfo>`.
    mutating func head(metadata: [String: PropertyListValue], uuid: String, nextKey: Int64, model: Data) {
        head(metadata: metadata, uuid: uuid, nextKey: nextKey, modelBase64: model.base64EncodedString())
    }

    mutating func head(metadata: [String: PropertyListValue], uuid: String, nextKey: Int64, modelBase64: String) {
        raw("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n")
        raw(Self.doctype + "\n\n<database>\n    <databaseInfo>\n")
        raw("        <version>\(Self.coreDataVersion)</version>\n        <UUID>"); text(uuid); raw("</UUID>\n")
        raw("        <nextObjectID>\(nextKey)</nextObjectID>\n        <metadata>\n")
        propertyList(metadata, indent: "            ")
        raw("        </metadata>\n")
        if !modelBase64.isEmpty { raw("        <quireModel>" + modelBase64 + "</quireModel>\n") }
        raw("    </databaseInfo>\n")
    }

    mutating func tail() { raw("</database>\n") }

    mutating func object(_ node: RowSnapshot) {
        let entity = node.objectID.entity
        let names = names(of: entity)
        raw("    <object type=\""); text(names.type); raw("\" id=\"z\(node.objectID.primaryKey ?? 0)\">\n")
        for attribute in entity.allAttributes where !attribute.isTransient {
            let value = attribute.slot < node.attributes.count ? node.attributes[attribute.slot] : .null
            let name = attribute.slot < names.attributes.count ? names.attributes[attribute.slot] : attribute.name
            self.attribute(attribute, named: name, value)
        }
        for relationship in entity.allRelationships where !relationship.isTransient {
            guard relationship.slot < node.relationships.count else { continue }
            let members = node.relationships[relationship.slot].objectIDs
            guard !members.isEmpty, let destination = relationship.resolvedDestination else { continue }
            raw("        <relationship name=\"")
            text(relationship.slot < names.relationships.count ? names.relationships[relationship.slot] : relationship.name)
            raw("\" type=\"\(relationship.minCount)/\(relationship.isToMany ? relationship.maxCount : 1)\" destination=\"")
            text(destination.name.uppercased())
            raw("\" idrefs=\"")
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: " ")) }
                raw("z\(member.primaryKey ?? 0)")
            }
            raw("\"></relationship>\n")
        }
        raw("    </object>\n")
    }

    /// The names an entity's objects are written with, worked out on its first object.
    private mutating func names(of entity: EntityDescription) -> EntityNames {
        if let names = namesByEntity[ObjectIdentifier(entity)] { return names }
        var attributes = [String](repeating: "", count: entity.allAttributes.count)
        for attribute in entity.allAttributes where attribute.slot < attributes.count {
            attributes[attribute.slot] = Self.storedName(of: attribute, in: entity)
        }
        var relationships = [String](repeating: "", count: entity.allRelationships.count)
        for relationship in entity.allRelationships where relationship.slot < relationships.count {
            relationships[relationship.slot] = Self.storedName(of: relationship, in: entity)
        }
        let names = EntityNames(type: entity.name.uppercased(), attributes: attributes, relationships: relationships)
        namesByEntity[ObjectIdentifier(entity)] = names
        return names
    }

    /// Core Data's name for an attribute type in `<attribute type="…">` (Quire reads the type from the model,
    /// not from this).
    static func typeName(_ type: AttributeType) -> String {
        switch type {
        case .integer16: return "int16"
        case .integer32: return "int32"
        case .integer64: return "int64"
        case .decimal: return "decimal"
        case .double: return "double"
        case .float: return "float"
        case .string: return "string"
        case .boolean: return "bool"
        case .date: return "date"
        case .binaryData: return "binary"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .transformable: return "transformable"
        }
    }

    private mutating func attribute(_ attribute: AttributeDescription, named name: String, _ value: AttributeValue) {
        if case .null = value { return }
        raw("        <attribute name=\""); text(name); raw("\" type=\"" + Self.typeName(attribute.attributeType) + "\"")
        switch value {
        case .null: break
        case .integer(let v): raw(">\(v)")
        case .double(let v): raw(">\(v)")
        case .float(let v): raw(">\(v)")
        case .decimal(let v): raw(">"); text(v.description)
        case .string(let v):
            if Self.isRepresentable(v) {
                raw(">"); text(v)
            } else {
                raw(" encoding=\"base64\">" + Data(v.utf8).base64EncodedString())
            }
        case .boolean(let v): raw(v ? ">1" : ">0")
        case .date(let v): raw(">\(v.timeIntervalSinceReferenceDate)")
        case .data(let v): raw(">" + v.base64EncodedString())
        case .uuid(let v): raw(">" + v.uuidString)
        case .uri(let v): raw(">"); text(v.absoluteString)
        case .externalData(let v):
            raw(" external=\""); text(v.uuid); raw("\"")
            if let length = v.length { raw(" length=\"\(length)\"") }
            raw(">")
        }
        raw("</attribute>\n")
    }
}
