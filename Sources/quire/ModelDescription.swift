import Foundation
import Quire
import QuireCore

/// A model in words and as JSON, for `quire model`.
enum ModelDescription {
    /// Xcode's name of an attribute type (the names Xcode's model files use).
    static func typeName(_ type: AttributeType) -> String {
        XcodeModelDecoder.attributeTypeNames[type] ?? "Undefined"
    }

    /// The delete rule in Xcode's words.
    static func ruleName(_ rule: DeleteRule) -> String {
        XcodeModelDecoder.deleteRuleNames[rule] ?? "Nullify"
    }

    /// A default value as Xcode writes it (`defaultValueString`), nil for none.
    static func defaultText(_ value: AttributeValue) -> String? {
        switch value {
        case .null, .data, .externalData: return nil
        case .integer(let v): return String(v)
        case .double(let v): return "\(v)"
        case .float(let v): return "\(v)"
        case .decimal(let v): return "\(v)"
        case .string(let v): return v
        case .boolean(let v): return v ? "YES" : "NO"
        case .date(let v): return "\(v.timeIntervalSinceReferenceDate)"
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        }
    }

    /// The entities in name order.
    static func entities(_ model: ManagedObjectModel) -> [EntityDescription] {
        model.entities.sorted { $0.name < $1.name }
    }

    /// The entity's own attributes and relationships (not inherited), by name.
    static func ownAttributes(_ entity: EntityDescription) -> [AttributeDescription] {
        entity.properties.compactMap { $0 as? AttributeDescription }.sorted { $0.name < $1.name }
    }

    static func ownRelationships(_ entity: EntityDescription) -> [RelationshipDescription] {
        entity.properties.compactMap { $0 as? RelationshipDescription }.sorted { $0.name < $1.name }
    }

    /// A relationship's kind in words: `to-one Author`, `to-many ordered Book`.
    static func shape(_ relationship: RelationshipDescription) -> String {
        (relationship.isToMany ? "to-many " : "to-one ") + (relationship.isOrdered ? "ordered " : "") + relationship.destinationEntityName
    }

    /// The model as text, one block per entity.
    static func text(_ model: ManagedObjectModel, origin: String) -> String {
        var lines = ["Model: \(origin)", "Entities: \(model.entities.count)"]
        for entity in entities(model) {
            var head = "\(entity.name)"
            if let parent = entity.superentity { head += " : \(parent.name)" }
            if entity.isAbstract { head += " (abstract)" }
            lines.append("")
            lines.append(head)
            let attributes = ownAttributes(entity)
            let relationships = ownRelationships(entity)
            let width = (attributes.map(\.name) + relationships.map(\.name)).map(\.count).max() ?? 0
            func pad(_ name: String) -> String { name.padding(toLength: width, withPad: " ", startingAt: 0) }
            for attribute in attributes {
                var parts = [typeName(attribute.attributeType)]
                parts.append(attribute.isOptional ? "optional" : "required")
                if attribute.isTransient { parts.append("transient") }
                if let text = defaultText(attribute.defaultAttributeValue) { parts.append("default \(text)") }
                if attribute.allowsExternalBinaryDataStorage { parts.append("external storage") }
                if attribute.isIndexed { parts.append("indexed") }
                lines.append("  \(pad(attribute.name))  \(parts.joined(separator: ", "))")
            }
            for relationship in relationships {
                var parts = ["-> \(shape(relationship))"]
                parts.append("inverse \(relationship.inverseRelationshipName ?? "none")")
                parts.append("delete \(ruleName(relationship.deleteRule).lowercased())")
                if !relationship.isOptional { parts.append("required") }
                if relationship.isTransient { parts.append("transient") }
                lines.append("  \(pad(relationship.name))  \(parts.joined(separator: ", "))")
            }
            for constraint in entity.uniquenessConstraints {
                lines.append("  unique (\(constraint.joined(separator: ", ")))")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The model as a JSON object.
    static func json(_ model: ManagedObjectModel) -> [String: Any] {
        var result: [[String: Any]] = []
        for entity in entities(model) {
            var object: [String: Any] = ["name": entity.name, "abstract": entity.isAbstract]
            if let parent = entity.superentity { object["parent"] = parent.name }
            object["attributes"] = ownAttributes(entity).map { attribute -> [String: Any] in
                var item: [String: Any] = [
                    "name": attribute.name, "type": typeName(attribute.attributeType), "optional": attribute.isOptional,
                    "transient": attribute.isTransient,
                ]
                if let text = defaultText(attribute.defaultAttributeValue) { item["default"] = text }
                return item
            }
            object["relationships"] = ownRelationships(entity).map { relationship -> [String: Any] in
                var item: [String: Any] = [
                    "name": relationship.name, "destination": relationship.destinationEntityName,
                    "toMany": relationship.isToMany, "ordered": relationship.isOrdered,
                    "deleteRule": ruleName(relationship.deleteRule), "optional": relationship.isOptional,
                ]
                if let inverse = relationship.inverseRelationshipName { item["inverse"] = inverse }
                return item
            }
            if !entity.uniquenessConstraints.isEmpty { object["uniquenessConstraints"] = entity.uniquenessConstraints }
            result.append(object)
        }
        return ["entities": result]
    }
}

/// The model as a Graphviz graph: one box per entity listing its attributes, one edge per relationship pair
/// (an inverse pair drawn once, with both names), dashed arrows from sub-entity to parent.
enum ModelGraph {
    static func dot(_ model: ManagedObjectModel, title: String) -> String {
        var lines = [
            "digraph model {",
            "  graph [rankdir=LR, fontname=\"Helvetica\", label=\(quote(title)), labelloc=t];",
            "  node [shape=plaintext, fontname=\"Helvetica\", fontsize=10];",
            "  edge [fontname=\"Helvetica\", fontsize=9];",
        ]
        for entity in ModelDescription.entities(model) {
            var rows = ["<TR><TD BGCOLOR=\"lightgrey\"><B>\(html(entity.name))</B>\(entity.isAbstract ? " <I>(abstract)</I>" : "")</TD></TR>"]
            for attribute in ModelDescription.ownAttributes(entity) {
                rows.append(
                    "<TR><TD ALIGN=\"LEFT\">\(html(attribute.name)): \(html(ModelDescription.typeName(attribute.attributeType)))"
                        + "\(attribute.isOptional ? "?" : "")</TD></TR>")
            }
            lines.append("  \(quote(entity.name)) [label=<<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\">\(rows.joined())</TABLE>>];")
        }
        var drawn = Set<String>()
        for entity in ModelDescription.entities(model) {
            if let parent = entity.superentity {
                lines.append("  \(quote(entity.name)) -> \(quote(parent.name)) [style=dashed, arrowhead=empty];")
            }
            for relationship in ModelDescription.ownRelationships(entity) {
                let key = "\(entity.name).\(relationship.name)"
                guard !drawn.contains(key) else { continue }
                drawn.insert(key)
                let head = relationship.isToMany ? "crow" : "tee"
                if let inverse = relationship.inverseRelationship {
                    drawn.insert("\(relationship.destinationEntityName).\(inverse.name)")
                    lines.append(
                        "  \(quote(entity.name)) -> \(quote(relationship.destinationEntityName)) [dir=both, "
                            + "arrowhead=\(head), arrowtail=\(inverse.isToMany ? "crow" : "tee"), "
                            + "headlabel=\(quote(relationship.name)), taillabel=\(quote(inverse.name))];")
                } else {
                    lines.append(
                        "  \(quote(entity.name)) -> \(quote(relationship.destinationEntityName)) [arrowhead=\(head), "
                            + "headlabel=\(quote(relationship.name))];")
                }
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes the graph: DOT for `.dot` and `.gv`, else rendered by `dot` in the format the extension names.
    static func write(_ dot: String, to url: URL, force: Bool) throws {
        if !force && FileManager.default.fileExists(atPath: url.path) {
            throw CommandFailure(status: .unwritableOutput, message: "'\(url.path)' already exists; pass --force to replace it.")
        }
        let ext = url.pathExtension.lowercased()
        let staging = try stagingFolder(beside: url)
        defer { try? FileManager.default.removeItem(at: staging) }
        let built = staging.appendingPathComponent("graph")
        switch ext {
        case "dot", "gv", "":
            try writing(url) { try Data(dot.utf8).write(to: built) }
        case "svg", "png", "pdf":
            guard let program = findExecutable("dot") else {
                throw CommandFailure(
                    status: .unwritableOutput,
                    message: "'\(url.lastPathComponent)': rendering \(ext.uppercased()) needs Graphviz's dot, which is not installed "
                        + "(apt-get install graphviz); or write DOT with --graph \(url.deletingPathExtension().lastPathComponent).dot.")
            }
            let process = Process()
            process.executableURL = program
            process.arguments = ["-T\(ext)", "-o", built.path]
            let input = Pipe()
            let errors = Pipe()
            process.standardInput = input
            process.standardError = errors
            try writing(url) { try process.run() }
            input.fileHandleForWriting.write(Data(dot.utf8))
            try? input.fileHandleForWriting.close()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw CommandFailure(
                    status: .unwritableOutput,
                    message: "'\(url.lastPathComponent)': Graphviz's dot failed: \(message.split(whereSeparator: \.isNewline).first ?? "").")
            }
        default:
            throw CommandFailure(status: .usage, message: "'\(url.lastPathComponent)': --graph writes .dot, .gv, .svg, .png or .pdf.")
        }
        try moveIntoPlace(built, to: url, force: force)
    }

    /// An executable on `PATH`.
    static func findExecutable(_ name: String) -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        return nil
    }

    private static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    private static func html(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}

/// `--export`: the library's ``XcodeModelWriter`` builds the model folder (and the strings file of a localized
/// model) in a staging folder beside the output, then it is moved into place.
enum XcodeModelExport {
    /// Writes `Name.xcdatamodel` (and `NameModel.strings` for a localized model); returns the files written.
    static func write(_ model: ManagedObjectModel, to url: URL, force: Bool) throws -> [URL] {
        if !force && FileManager.default.fileExists(atPath: url.path) {
            throw CommandFailure(status: .unwritableOutput, message: "'\(url.path)' already exists; pass --force to replace it.")
        }
        if force, FileManager.default.fileExists(atPath: url.path) {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue,
                url.pathExtension == "xcdatamodel"
            else {
                throw CommandFailure(status: .unwritableOutput, message: "'\(url.path)' is not an Xcode model; not replaced.")
            }
        }
        let staging = try stagingFolder(beside: url)
        defer { try? FileManager.default.removeItem(at: staging) }
        let built = staging.appendingPathComponent(url.lastPathComponent, isDirectory: true)
        do {
            try model.writeXcodeModel(to: built)
        } catch let error as QuireError where error.code == .invalidArgument {
            // What an Xcode model cannot hold, named: nothing is written.
            throw CommandFailure(status: .unwritableOutput, message: "'\(url.path)': \(error.message)", error: error)
        } catch {
            throw CommandFailure(status: .unwritableOutput, message: "'\(url.path)': \(plainReason(error)).")
        }
        var written = [url]
        if let strings = ManagedObjectModel.localizationFiles(besideModelAt: url).first?.lastPathComponent,
            FileManager.default.fileExists(atPath: staging.appendingPathComponent(strings).path)
        {
            let target = url.deletingLastPathComponent().appendingPathComponent(strings)
            try moveIntoPlace(staging.appendingPathComponent(strings), to: target, force: force)
            written.append(target)
        }
        try moveIntoPlace(built, to: url, force: force)
        return written
    }
}
