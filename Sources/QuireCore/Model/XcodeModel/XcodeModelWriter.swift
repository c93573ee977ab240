import QuireSupport
import Foundation

/// Writes a model as an Xcode data model: a `.xcdatamodel` folder holding the `contents` XML Xcode writes, which
/// ``ManagedObjectModel/init(contentsOf:)`` (and Xcode) read back as the same model, with the same entity version
/// hashes.
///
/// ```swift
/// let model = try ManagedObjectModel(contentsOf: URL(fileURLWithPath: "App.momd"))
/// try model.writeXcodeModel(to: URL(fileURLWithPath: "App.xcdatamodel"))
/// ```
///
/// Everything the Xcode model reader reads is written: the model's version identifier, configurations and fetch
/// request templates; each entity's class name, parent, abstractness, renaming identifier, version hash modifier,
/// user info, uniqueness constraints, fetch indexes and fetched properties; every attribute's type, optionality,
/// transience, indexing, default, minimum and maximum, regular expression, external storage, Spotlight and
/// external-record flags, value transformer, preserve-after-deletion flag, derivation, user info, renaming
/// identifier and version hash modifier; composite attributes (as model-level `<compositeAttribute>` definitions);
/// every relationship's destination, inverse, to-many and ordering, delete rule, minimum and maximum counts,
/// optionality, transience, Spotlight and external-record flags, user info, renaming identifier and version hash modifier. A model's
/// localization dictionary, which Xcode keeps beside the model rather than in it, is written by
/// ``write(_:to:)`` as `<Name>Model.strings` beside the folder.
///
/// What an Xcode model cannot hold is refused, never dropped: validation predicates other than the limits above,
/// default values of binary and transformable attributes, limits on Boolean and UUID attributes, sorted fetched
/// properties, fetch request templates with sort
/// descriptors, properties to fetch or group by, a having predicate or prefetching, and more than one version
/// identifier. The error lists every such thing, naming the entity and property.
public struct XcodeModelWriter: Sendable {
    /// A writer.
    public init() {}

    /// The `contents` file of an Xcode model for `model`, UTF-8 XML.
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` naming everything in the model an Xcode model cannot hold.
    public func contents(of model: ManagedObjectModel) throws -> Data {
        var builder = Builder(document: ModelDocument(model: model))
        let text = builder.build()
        guard builder.refusals.isEmpty else {
            let shown = builder.refusals.prefix(10).joined(separator: "; ")
            let more = builder.refusals.count > 10 ? "; and \(builder.refusals.count - 10) more" : ""
            throw QuireError(
                .invalidArgument, "The model cannot be written as an Xcode model: \(shown)\(more).")
        }
        return Data(text.utf8)
    }

    /// The strings file Xcode keeps a model's localization in (`"key" = "value";` lines, UTF-8), nil when the
    /// model has no localization.
    public func localizationStrings(of model: ManagedObjectModel) -> Data? {
        guard !model.localizationDictionary.isEmpty else { return nil }
        func quoted(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": result += "\\\""
                case "\\": result += "\\\\"
                case "\n": result += "\\n"
                case "\r": result += "\\r"
                case "\t": result += "\\t"
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }
        let lines = model.localizationDictionary.sorted { $0.key < $1.key }.map { "\(quoted($0.key)) = \(quoted($0.value));" }
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Writes `model` as the Xcode model folder `url` (`Name.xcdatamodel`), built beside it and renamed into place
    /// so that nothing half-written is left behind; a localized model also gets `NameModel.strings` beside it.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - url: The folder to create; it must not exist.
    /// - Throws: ``QuireError/Code/invalidArgument`` for what an Xcode model cannot hold (nothing is written);
    ///   ``QuireError/Code/fileWriteFileExists`` when `url` or the strings file exists; a file write error naming
    ///   `url` and the reason when the folder cannot be written.
    public func write(_ model: ManagedObjectModel, to url: URL) throws {
        let contents = try contents(of: model)
        let strings = localizationStrings(of: model)
        let stringsURL = ManagedObjectModel.localizationFiles(besideModelAt: url).first
        var status = stat()
        for target in [url] + (strings == nil ? [] : [stringsURL].compactMap { $0 }) where lstat(target.path, &status) == 0 {
            throw QuireError(.fileWriteFileExists, "'\(target.path)' already exists.", context: .init(file: target))
        }
        let folder = url.deletingLastPathComponent()
        let staging = folder.appendingPathComponent(".\(url.lastPathComponent).quire-\(UUID().uuidString.prefix(8)).tmp")
        func failure(_ call: String) -> QuireError {
            let code = errno
            return QuireError(
                code == ENOSPC ? .fileWriteOutOfSpace : code == EROFS ? .fileWriteVolumeReadOnly : .fileWriteNoPermission,
                "The Xcode model '\(url.path)' cannot be written: \(String(cString: strerror(code)).lowercased()).",
                context: .init(file: url), underlying: SystemCallError(code: code, function: call))
        }
        guard mkdir(staging.path, 0o755) == 0 else { throw failure("mkdir") }
        var done = false
        defer { if !done { _ = try? FileManager.default.removeItem(at: staging) } }
        try Self.writeNewFile(contents, to: staging.appendingPathComponent("contents"), failure: failure)
        if let strings, let stringsURL {
            try Self.writeNewFile(strings, to: stringsURL, failure: failure)
        }
        guard rename(staging.path, url.path) == 0 else {
            let error = failure("rename")
            if strings != nil, let stringsURL { unlink(stringsURL.path) }
            throw error
        }
        done = true
    }

    private static func writeNewFile(_ data: Data, to url: URL, failure: (String) -> QuireError) throws {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw failure("open") }
        defer { close(descriptor) }
        var written = 0
        let complete = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = Foundation.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
        guard complete, fsync(descriptor) == 0 else {
            let error = failure("write")
            unlink(url.path)
            throw error
        }
    }
}

extension ManagedObjectModel {
    /// Writes the model as an Xcode model folder (`Name.xcdatamodel`) that Xcode and
    /// ``init(contentsOf:)`` read back as the same model; see ``XcodeModelWriter``.
    ///
    /// ```swift
    /// try model.writeXcodeModel(to: URL(fileURLWithPath: "Library.xcdatamodel"))
    /// ```
    ///
    /// - Throws: ``QuireError/Code/invalidArgument`` naming what an Xcode model cannot hold; file errors naming
    ///   the folder.
    public func writeXcodeModel(to url: URL) throws {
        try XcodeModelWriter().write(self, to: url)
    }
}

extension XcodeModelWriter {
    /// Builds the XML of one model document, collecting what cannot be written.
    fileprivate struct Builder {
        let document: ModelDocument
        var refusals: [String] = []
        var lines: [String] = []
        /// Composite definitions written at model level, in order, and the names taken.
        var compositeDefinitions: [(name: String, composite: ModelDocument.Composite)] = []
        var compositeNames: Set<String> = []

        init(document: ModelDocument) { self.document = document }

        mutating func build() -> String {
            var head = #"<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" minimumToolsVersion="Automatic""#
                + #" sourceLanguage="Swift""#
            if document.versionIdentifiers.count > 1 {
                refusals.append(
                    "the model has \(document.versionIdentifiers.count) version identifiers "
                        + "(\(document.versionIdentifiers.joined(separator: ", "))); an Xcode model holds one")
            }
            if let identifier = document.versionIdentifiers.first {
                head += " userDefinedModelVersionIdentifier=\(Self.quote(identifier))"
            }
            lines = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#, head + ">"]
            for entity in document.entities { entityElement(entity) }
            for (name, template) in (document.fetchRequestTemplates ?? [:]).sorted(by: { $0.key < $1.key }) {
                fetchRequestElement(name, template)
            }
            for (name, members) in document.configurations.sorted(by: { $0.key < $1.key }) {
                if members.isEmpty {
                    lines.append("    <configuration name=\(Self.quote(name))/>")
                    continue
                }
                lines.append("    <configuration name=\(Self.quote(name))>")
                for member in members { lines.append("        <memberEntity name=\(Self.quote(member))/>") }
                lines.append("    </configuration>")
            }
            var index = 0
            while index < compositeDefinitions.count {
                let (name, composite) = compositeDefinitions[index]
                index += 1
                lines.append("    <compositeAttribute name=\(Self.quote(name))>")
                for element in composite.elements { attributeElement(element, owner: "composite '\(name)'", indent: 8) }
                for nested in composite.composites ?? [] {
                    compositeUse(nested, path: name, indent: 8)
                }
                lines.append("    </compositeAttribute>")
            }
            lines.append("</model>")
            return lines.joined(separator: "\n") + "\n"
        }

        // MARK: Entities

        mutating func entityElement(_ entity: ModelDocument.Entity) {
            var head = "    <entity name=\(Self.quote(entity.name))"
            if let className = entity.className, !className.isEmpty { head += " representedClassName=\(Self.quote(className))" }
            if let parent = entity.parent { head += " parentEntity=\(Self.quote(parent))" }
            if entity.abstract { head += #" isAbstract="YES""# }
            head += Self.identity(entity.renamingIdentifier, entity.versionHashModifier)
            lines.append(head + #" syncable="YES">"#)
            for attribute in entity.attributes { attributeElement(attribute, owner: "'\(entity.name)", indent: 8) }
            for relationship in entity.relationships { relationshipElement(relationship, entity: entity.name) }
            for composite in entity.composites ?? [] {
                compositeUse(composite, path: entity.name, indent: 8)
            }
            for fetched in entity.fetchedProperties ?? [] { fetchedPropertyElement(fetched, entity: entity.name) }
            userInfoElement(entity.userInfo, indent: 8)
            for index in entity.fetchIndexes ?? [] {
                var line = "        <fetchIndex name=\(Self.quote(index.name))"
                if let predicate = index.partialIndexPredicate { line += " partialIndexPredicate=\(Self.quote(predicate))" }
                lines.append(line + ">")
                for element in index.elements {
                    lines.append(
                        "            <fetchIndexElement property=\(Self.quote(element.propertyName)) "
                            + "type=\"\(element.collationType == .rTree ? "RTree" : "Binary")\" "
                            + "order=\"\(element.isAscending ? "ascending" : "descending")\"/>")
                }
                lines.append("        </fetchIndex>")
            }
            if let constraints = entity.uniquenessConstraints, !constraints.isEmpty {
                lines.append("        <uniquenessConstraints>")
                for constraint in constraints {
                    lines.append("            <uniquenessConstraint>")
                    for name in constraint { lines.append("                <constraint value=\(Self.quote(name))/>") }
                    lines.append("            </uniquenessConstraint>")
                }
                lines.append("        </uniquenessConstraints>")
            }
            if lines.last?.hasPrefix("    <entity ") == true, let open = lines.popLast() {
                // An entity with nothing in it, as Xcode writes one.
                lines.append(String(open.dropLast()) + "/>")
            } else {
                lines.append("    </entity>")
            }
        }

        // MARK: Attributes

        /// `owner` names the entity (`'Car`, completed with `.name'`) or the composite definition.
        mutating func attributeElement(_ attribute: ModelDocument.Attribute, owner: String, indent: Int) {
            let place = owner.hasPrefix("'") ? "\(owner).\(attribute.name)'" : "'\(attribute.name)' of \(owner)"
            var line = String(repeating: " ", count: indent) + "<attribute name=\(Self.quote(attribute.name))"
            if attribute.optional { line += #" optional="YES""# }
            if attribute.transient { line += #" transient="YES""# }
            if attribute.indexed { line += #" indexed="YES""# }
            line += " attributeType=\(Self.quote(XcodeModelDecoder.attributeTypeNames[attribute.type] ?? "Undefined"))"
            let isDate = attribute.type == .date
            if let value = attribute.defaultValue {
                if let text = valueText(value, type: attribute.type) {
                    line += (isDate ? " defaultDateTimeInterval=" : " defaultValueString=") + Self.quote(text)
                } else {
                    refusals.append("\(place) has a default value of type \(attribute.type.rawValue), which an Xcode model cannot hold")
                }
            }
            for (bound, key) in [(attribute.minimum, "min"), (attribute.maximum, "max")] {
                guard let bound else { continue }
                if let text = boundText(bound, type: attribute.type) {
                    line += " \(key)\(isDate ? "DateTimeInterval" : "ValueString")=\(Self.quote(text))"
                } else {
                    let word = key == "min" ? "minimum" : "maximum"
                    refusals.append("\(place) has a \(word) on a \(attribute.type.rawValue) attribute, which an Xcode model cannot hold")
                }
            }
            if let expression = attribute.regularExpression { line += " regularExpressionString=\(Self.quote(expression))" }
            if attribute.allowsExternalStorage { line += #" allowsExternalBinaryDataStorage="YES""# }
            if attribute.indexedBySpotlight { line += #" spotlightIndexingEnabled="YES""# }
            if attribute.storedInExternalRecord { line += #" storedInTruthFile="YES""# }
            if let name = attribute.valueTransformerName { line += " valueTransformerName=\(Self.quote(name))" }
            if attribute.preservesValueInHistoryOnDeletion == true { line += #" preserveAfterDeletion="YES""# }
            if let expression = attribute.derivationExpression {
                line += #" derived="YES""#
                if !expression.isEmpty { line += " derivationExpression=\(Self.quote(expression))" }
            }
            line += Self.identity(attribute.renamingIdentifier, attribute.versionHashModifier)
            if let predicates = attribute.validationPredicates, !predicates.isEmpty {
                refusals.append(
                    "\(place) has validation predicates (\(predicates.joined(separator: ", "))), which an Xcode model cannot "
                        + "hold (it holds a minimum, a maximum and a regular expression)")
            }
            finish(&line, element: "attribute", userInfo: attribute.userInfo, indent: indent)
        }

        /// A default value as the reader takes it back for the type; nil when an Xcode model cannot hold it.
        func valueText(_ value: AttributeValue, type: AttributeType) -> String? {
            let text: String
            switch value {
            case .null, .data, .externalData: return nil
            case .integer(let v): text = type == .boolean ? (v != 0 ? "YES" : "NO") : String(v)
            case .double(let v): text = "\(v)"
            case .float(let v): text = "\(v)"
            case .decimal(let v): text = "\(v)"
            case .string(let v): text = v
            case .boolean(let v): text = v ? "YES" : "NO"
            case .date(let v): text = "\(v.timeIntervalSinceReferenceDate)"
            case .uuid(let v): text = v.uuidString
            case .uri(let v): text = v.absoluteString
            }
            if type == .date {
                guard case .date = value else { return nil }
                return text
            }
            // Only what reads back as the same value is written.
            guard let back = XcodeModelDecoder.attributeValue(text, type: type), back == value else { return nil }
            return text
        }

        /// A minimum or maximum as the reader takes it back; nil when an Xcode model cannot hold it.
        func boundText(_ value: AttributeValue, type: AttributeType) -> String? {
            if type == .date {
                guard case .date(let date) = value else { return nil }
                return "\(date.timeIntervalSinceReferenceDate)"
            }
            let text: String
            switch value {
            case .integer(let v): text = String(v)
            case .double(let v): text = "\(v)"
            case .float(let v): text = "\(v)"
            case .decimal(let v): text = "\(v)"
            default: return nil
            }
            guard let back = XcodeModelDecoder.bound(text, type: type), back == value else { return nil }
            return text
        }

        // MARK: Composites

        /// An attribute of composite type, and its definition (written at model level).
        mutating func compositeUse(_ composite: ModelDocument.Composite, path: String, indent: Int) {
            var base = path.prefix(1).uppercased() + path.dropFirst()
            base += composite.name.prefix(1).uppercased() + composite.name.dropFirst()
            var name = base
            var number = 2
            while compositeNames.contains(name) {
                name = "\(base)\(number)"
                number += 1
            }
            compositeNames.insert(name)
            compositeDefinitions.append((name, composite))
            var line = String(repeating: " ", count: indent) + "<attribute name=\(Self.quote(composite.name))"
            if composite.optional { line += #" optional="YES""# }
            if composite.transient { line += #" transient="YES""# }
            line += #" attributeType="Composite" composite="# + Self.quote(name)
            line += Self.identity(composite.renamingIdentifier, composite.versionHashModifier)
            finish(&line, element: "attribute", userInfo: composite.userInfo, indent: indent)
        }

        // MARK: Relationships

        mutating func relationshipElement(_ relationship: ModelDocument.Relationship, entity: String) {
            let place = "'\(entity).\(relationship.name)'"
            var line = "        <relationship name=\(Self.quote(relationship.name))"
            if relationship.optional { line += #" optional="YES""# }
            if relationship.transient { line += #" transient="YES""# }
            if relationship.toMany {
                line += #" toMany="YES""#
                // A to-many's maximum is never 1 (a relationship with a maximum of 1 is to-one).
                if relationship.maxCount > 1 { line += " maxCount=\"\(relationship.maxCount)\"" }
            } else {
                line += #" maxCount="1""#
            }
            if relationship.minCount > 0 { line += " minCount=\"\(relationship.minCount)\"" }
            if relationship.ordered { line += #" ordered="YES""# }
            line += " deletionRule=\(Self.quote(XcodeModelDecoder.deleteRuleNames[relationship.deleteRule] ?? "Nullify"))"
            line += " destinationEntity=\(Self.quote(relationship.destination))"
            if let inverse = relationship.inverse {
                line += " inverseName=\(Self.quote(inverse)) inverseEntity=\(Self.quote(declaringEntity(of: inverse, from: relationship.destination)))"
            }
            if relationship.indexedBySpotlight { line += #" spotlightIndexingEnabled="YES""# }
            if relationship.storedInExternalRecord == true { line += #" storedInTruthFile="YES""# }
            line += Self.identity(relationship.renamingIdentifier, relationship.versionHashModifier)
            if let predicates = relationship.validationPredicates, !predicates.isEmpty {
                refusals.append(
                    "\(place) has validation predicates (\(predicates.joined(separator: ", "))), which an Xcode model cannot hold")
            }
            finish(&line, element: "relationship", userInfo: relationship.userInfo, indent: 8)
        }

        /// The entity that declares `relationship`: `entity` or one of its ancestors.
        func declaringEntity(of relationship: String, from entity: String) -> String {
            var current = document.entities.first { $0.name == entity }
            var steps = 0
            while let candidate = current, steps <= document.entities.count {
                if candidate.relationships.contains(where: { $0.name == relationship }) { return candidate.name }
                current = candidate.parent.flatMap { parent in document.entities.first { $0.name == parent } }
                steps += 1
            }
            return entity
        }

        // MARK: Fetched properties and fetch requests

        mutating func fetchedPropertyElement(_ fetched: FetchedPropertyDescription, entity: String) {
            if let sort = fetched.sortKeys, !sort.isEmpty {
                refusals.append(
                    "the fetched property '\(entity).\(fetched.name)' is sorted (by \(sort.map(\.keyPath).joined(separator: ", "))), "
                        + "which an Xcode model cannot hold")
            }
            lines.append(
                "        <fetchedProperty name=\(Self.quote(fetched.name))\(fetched.isOptional ? #" optional="YES""# : "")>")
            userInfoElement(fetched.userInfo, indent: 12)
            var request = "            <fetchRequest"
            if let name = fetched.fetchRequestName { request += " name=\(Self.quote(name))" }
            request += " entity=\(Self.quote(fetched.destinationEntityName))"
            if let predicate = fetched.predicateFormat { request += " predicateString=\(Self.quote(predicate))" }
            lines.append(request + "/>")
            lines.append("        </fetchedProperty>")
        }

        mutating func fetchRequestElement(_ name: String, _ template: FetchRequestTemplate) {
            var cannot: [String] = []
            if !template.sortDescriptors.isEmpty { cannot.append("sort descriptors") }
            if template.propertiesToFetch != nil { cannot.append("properties to fetch") }
            if template.propertiesToGroupBy != nil { cannot.append("properties to group by") }
            if template.havingPredicate != nil { cannot.append("a having predicate") }
            if !template.relationshipKeyPathsForPrefetching.isEmpty { cannot.append("relationships to prefetch") }
            if !cannot.isEmpty {
                refusals.append(
                    "the fetch request template '\(name)' has \(cannot.joined(separator: ", ")), which an Xcode model cannot hold")
            }
            var line = "    <fetchRequest name=\(Self.quote(name)) entity=\(Self.quote(template.entityName))"
            if let predicate = template.predicate { line += " predicateString=\(Self.quote(predicate.predicateFormat))" }
            if template.fetchLimit != 0 { line += " fetchLimit=\"\(template.fetchLimit)\"" }
            if template.fetchOffset != 0 { line += " fetchOffset=\"\(template.fetchOffset)\"" }
            if template.fetchBatchSize != 0 { line += " fetchBatchSize=\"\(template.fetchBatchSize)\"" }
            switch template.resultType {
            case .managedObject: break
            case .managedObjectID: line += #" resultType="1""#
            case .dictionary: line += #" resultType="2""#
            case .count: line += #" resultType="4""#
            }
            if !template.includesSubentities { line += #" includeSubentities="NO""# }
            if !template.returnsObjectsAsFaults { line += #" returnObjectsAsFaults="NO""# }
            if template.returnsDistinctResults { line += #" returnDistinctResults="YES""# }
            if !template.includesPendingChanges { line += #" includesPendingChanges="NO""# }
            lines.append(line + "/>")
        }

        // MARK: Shared

        /// Ends an element: self-closing, or holding its user info.
        mutating func finish(_ line: inout String, element: String, userInfo: [String: String], indent: Int) {
            guard !userInfo.isEmpty else {
                lines.append(line + "/>")
                return
            }
            lines.append(line + ">")
            userInfoElement(userInfo, indent: indent + 4)
            lines.append(String(repeating: " ", count: indent) + "</\(element)>")
        }

        mutating func userInfoElement(_ userInfo: [String: String], indent: Int) {
            guard !userInfo.isEmpty else { return }
            let pad = String(repeating: " ", count: indent)
            lines.append(pad + "<userInfo>")
            for (key, value) in userInfo.sorted(by: { $0.key < $1.key }) {
                lines.append(pad + "    <entry key=\(Self.quote(key)) value=\(Self.quote(value))/>")
            }
            lines.append(pad + "</userInfo>")
        }

        /// ` elementID="…" versionHashModifier="…"` for what is set.
        static func identity(_ renaming: String?, _ modifier: String?) -> String {
            var text = ""
            if let renaming { text += " elementID=\(quote(renaming))" }
            if let modifier { text += " versionHashModifier=\(quote(modifier))" }
            return text
        }

        /// An XML attribute value in double quotes, with markup and the white space XML would fold escaped.
        static func quote(_ text: String) -> String {
            var result = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": result += "&amp;"
                case "<": result += "&lt;"
                case ">": result += "&gt;"
                case "\"": result += "&quot;"
                case "\n": result += "&#10;"
                case "\r": result += "&#13;"
                case "\t": result += "&#9;"
                default: result.unicodeScalars.append(scalar)
                }
            }
            return result + "\""
        }
    }
}
