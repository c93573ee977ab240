// Unit tests of the XML store's parser reading in parts, which has no public face: uses QuireCore's and QuireStores' package API.
import Foundation
import Testing

import Quire
import QuireCore
import QuireStores

/// Reading an XML store's objects in two parts at once gives exactly what one thread gives: the same
/// records, counts and relationships, and for bad input the same first error with the same line.
@Suite struct XMLSplitReadTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

    /// Nodes in a tree: node i's parent is node i / 2, so the first half's nodes have children in the second
    /// half and the second half's nodes have parents in the first.
    static func treeModel() -> ManagedObjectModel {
        let node = EntityDescription(name: "Node", properties: [
            AttributeDescription(name: "name", type: .string),
            AttributeDescription(name: "score", type: .double),
            AttributeDescription(name: "when", type: .date),
            AttributeDescription(name: "blob", type: .binaryData),
            AttributeDescription(name: "count", type: .integer64),
            AttributeDescription(name: "ratio", type: .float),
            RelationshipDescription(name: "parent", destination: "Node", inverse: "children"),
            RelationshipDescription(name: "children", destination: "Node", toMany: true, inverse: "parent"),
        ])
        let leaf = EntityDescription(name: "Leaf", properties: [AttributeDescription(name: "label", type: .string)])
        node.subentities = [leaf]
        return ManagedObjectModel(entities: [node, leaf])
    }

    /// A saved store of `count` nodes (every tenth a leaf), and the store it was opened with.
    private func makeStore(count: Int) throws -> (url: URL, coordinator: PersistentStoreCoordinator) {
        let url = folder.file("Tree-\(UUID().uuidString).xml")
        let coordinator = try PersistentStoreCoordinator(managedObjectModel: Self.treeModel())
        try coordinator.addPersistentStore(type: .xml, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = coordinator
        let model = coordinator.managedObjectModel
        let nodeEntity = try #require(model.entitiesByName["Node"])
        let leafEntity = try #require(model.entitiesByName["Leaf"])
        var nodes: [ManagedObject] = []
        for index in 1...count {
            let node = ManagedObject(entity: index % 10 == 0 ? leafEntity : nodeEntity, insertInto: context)
            node.setValue("node \(index) <&> é", forKey: "name")
            node.setValue(Double(index) * 1.37 + 0.1, forKey: "score")
            node.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 1000.123 - 5e5), forKey: "when")
            node.setValue(Data((0..<(index % 23)).map { UInt8(truncatingIfNeeded: $0 &* index) }), forKey: "blob")
            node.setValue(Int64(index) * -3, forKey: "count")
            node.setValue(Float(index) / 3, forKey: "ratio")
            if index % 10 == 0 { node.setValue("leaf \(index)", forKey: "label") }
            if index > 1 { node.setValue(nodes[index / 2 - 1], forKey: "parent") }
            nodes.append(node)
        }
        try context.save()
        return (url, coordinator)
    }

    private func store(_ coordinator: PersistentStoreCoordinator) throws -> PersistentStore {
        try #require(coordinator.persistentStores.first)
    }

    private func parse(
        _ data: Data, _ url: URL, _ coordinator: PersistentStoreCoordinator, split: XMLStoreParser.SplitPolicy
    ) throws -> XMLStoreParser.Result {
        try XMLStoreParser.parse(data, file: url, model: coordinator.managedObjectModel, store: try store(coordinator), split: split)
    }

    private func expectSame(_ a: XMLStoreParser.Result, _ b: XMLStoreParser.Result, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.nodes?.count == b.nodes?.count, sourceLocation: sourceLocation)
        #expect(a.entityCounts == b.entityCounts, sourceLocation: sourceLocation)
        #expect(a.uuid == b.uuid, sourceLocation: sourceLocation)
        #expect(a.nextKey == b.nextKey, sourceLocation: sourceLocation)
        #expect(a.metadata == b.metadata, sourceLocation: sourceLocation)
        #expect(a.modelBase64 == b.modelBase64, sourceLocation: sourceLocation)
        var differences = 0
        for key in a.nodes?.sortedKeys() ?? [] {
            guard let node = a.nodes?[key], let other = b.nodes?[key], other.objectID == node.objectID, other.version == node.version,
                other.attributes == node.attributes, other.relationships == node.relationships
            else {
                differences += 1
                continue
            }
        }
        #expect(differences == 0, sourceLocation: sourceLocation)
    }

    /// The error of a one-thread parse and of a split parse of the same bytes, which must be the same.
    private func expectSameError(
        _ data: Data, _ url: URL, _ coordinator: PersistentStoreCoordinator, splitFrom offset: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> QuireError {
        let single = try #require(throws: QuireError.self, sourceLocation: sourceLocation) {
            _ = try parse(data, url, coordinator, split: .never)
        }
        let split = try #require(throws: QuireError.self, sourceLocation: sourceLocation) {
            _ = try parse(data, url, coordinator, split: .from(offset))
        }
        #expect(single.code == .fileReadCorruptFile, sourceLocation: sourceLocation)
        #expect(split.code == single.code, sourceLocation: sourceLocation)
        #expect(split.message == single.message, sourceLocation: sourceLocation)
        #expect(split.context == single.context, sourceLocation: sourceLocation)
        return split
    }

    /// The file's lines, and the byte offset of the start of each.
    private func lines(_ data: Data) -> (lines: [String], offsets: [Int]) {
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.components(separatedBy: "\n")
        var offsets: [Int] = []
        var offset = 0
        for line in lines {
            offsets.append(offset)
            offset += line.utf8.count + 1
        }
        return (lines, offsets)
    }

    /// The index of the first line at or after `start` that begins an object.
    private func objectLine(_ lines: [String], from start: Int) throws -> Int {
        try #require((start..<lines.count).first { lines[$0].hasPrefix("    <object ") })
    }

    private func joined(_ lines: [String]) -> Data { Data(lines.joined(separator: "\n").utf8) }

    @Test func aSplitReadGivesWhatOneThreadReads() throws {
        let (url, coordinator) = try makeStore(count: 3_000)
        let data = try Data(contentsOf: url)
        let single = try parse(data, url, coordinator, split: .never)
        #expect(single.nodes?.count == 3_000)
        #expect(!single.wasSplit)
        for offset in [data.count / 2, data.count / 3, data.count - 200, 0] {
            let split = try parse(data, url, coordinator, split: .from(offset))
            #expect(split.wasSplit == (offset != data.count - 200))
            expectSame(single, split)
        }
        // Relationships across the parts resolve: the last node's parent is in the first half, and the
        // first node's children are in the second.
        let split = try parse(data, url, coordinator, split: .from(data.count / 2))
        let model = coordinator.managedObjectModel
        let parentSlot = try #require(model.entitiesByName["Node"]?.relationshipsByName["parent"]?.slot)
        let childrenSlot = try #require(model.entitiesByName["Node"]?.relationshipsByName["children"]?.slot)
        let last = try #require(split.nodes?[3_000])
        #expect(last.relationships[parentSlot].objectIDs.map(\.primaryKey) == [1_500])
        let first = try #require(split.nodes?[1_000])
        #expect(Set(first.relationships[childrenSlot].objectIDs.compactMap(\.primaryKey)) == [2_000, 2_001])
        let node = try #require(model.entitiesByName["Node"])
        let leaf = try #require(model.entitiesByName["Leaf"])
        #expect(split.entityCounts?[node.entityNumber] == 2_700)
        #expect(split.entityCounts?[leaf.entityNumber] == 300)
    }

    @Test func aLargeStoreIsReadInTwoPartsAndCountsWithoutReadingRecords() throws {
        let (url, coordinator) = try makeStore(count: 6_000)
        let data = try Data(contentsOf: url)
        #expect(data.count > XMLStoreParser.minimumSplitSize)
        let automatic = try parse(data, url, coordinator, split: .automatic)
        #expect(automatic.wasSplit)
        expectSame(try parse(data, url, coordinator, split: .never), automatic)
        // Through the store: the objects and the counts are all there.
        let reopened = try PersistentStoreCoordinator(managedObjectModel: Self.treeModel())
        try reopened.addPersistentStore(type: .xml, at: url)
        let context = ManagedObjectContext()
        context.persistentStoreCoordinator = reopened
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Node")) == 6_000)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Leaf")) == 600)
        let request = FetchRequest<ManagedObject>(entityName: "Node")
        request.predicate = try QueryPredicate(format: "count == -18000")
        let last = try #require(try context.fetch(request).first)
        #expect((last.value(forKey: "parent") as? ManagedObject)?.value(forKey: "count") as? Int64 == -9_000)
    }

    @Test func aSplitGuessThatIsNotAnObjectBoundaryFallsBackToOneThread() throws {
        let (url, coordinator) = try makeStore(count: 400)
        let data = try Data(contentsOf: url)
        var (lines, offsets) = lines(data)
        let at = try objectLine(lines, from: lines.count / 2)
        // A comment and a CDATA section holding what looks like an object tag, just where the split looks.
        lines.insert("    <!-- <object type=\"NODE\" id=\"z9999\"> -->", at: at)
        let objectLine = try objectLine(lines, from: at + 1)
        lines.insert("<attribute name=\"name\" type=\"string\"><![CDATA[<object type=\"NODE\" id=\"z9998\">]]></attribute>", at: objectLine + 1)
        lines.remove(at: objectLine + 2)
        let edited = joined(lines)
        offsets = self.lines(edited).offsets
        let single = try parse(edited, url, coordinator, split: .never)
        for offset in [offsets[at], offsets[objectLine + 1]] {
            let split = try parse(edited, url, coordinator, split: .from(offset))
            #expect(!split.wasSplit)
            expectSame(single, split)
        }
        // Inside an object (depth 2) it is not a boundary either: a nested <object> is an ignored element.
        var nested = lines
        nested.insert("<object type=\"NODE\" id=\"z9997\"></object>", at: objectLine + 1)
        let nestedData = joined(nested)
        let nestedSingle = try parse(nestedData, url, coordinator, split: .never)
        let nestedSplit = try parse(nestedData, url, coordinator, split: .from(self.lines(nestedData).offsets[objectLine + 1]))
        #expect(!nestedSplit.wasSplit)
        expectSame(nestedSingle, nestedSplit)
    }

    @Test func aSecondDatabaseInfoInTheSecondPartIsReadAsOneThreadReadsIt() throws {
        let (url, coordinator) = try makeStore(count: 400)
        let data = try Data(contentsOf: url)
        var lines = lines(data).lines
        let at = try objectLine(lines, from: lines.count * 3 / 4)
        lines.insert("<databaseInfo><UUID>AAAAAAAA-0000-4000-8000-000000000009</UUID><nextObjectID>5000</nextObjectID></databaseInfo>", at: at)
        let edited = joined(lines)
        let single = try parse(edited, url, coordinator, split: .never)
        let split = try parse(edited, url, coordinator, split: .from(edited.count / 2))
        #expect(single.uuid == "AAAAAAAA-0000-4000-8000-000000000009")
        #expect(single.nextKey == 5000)
        expectSame(single, split)
    }

    @Test func aCorruptValueInTheSecondPartReportsItsLine() throws {
        let (url, coordinator) = try makeStore(count: 400)
        let data = try Data(contentsOf: url)
        var lines = lines(data).lines
        let target = try #require((lines.count * 3 / 4..<lines.count).first { lines[$0].contains("name=\"count\"") })
        lines[target] = "        <attribute name=\"count\" type=\"int64\">lots</attribute>"
        let edited = joined(lines)
        let error = try expectSameError(edited, url, coordinator, splitFrom: edited.count / 2)
        #expect(error.message.contains("line \(target + 1),"))
        #expect(error.message.contains("'lots'"))
        #expect(error.context.position == target + 1)

        // A corrupt byte (a control character) there too.
        var control = self.lines(data).lines
        control[target] = control[target].replacingOccurrences(of: "type=", with: "type\u{1}=")
        let controlError = try expectSameError(joined(control), url, coordinator, splitFrom: data.count / 2)
        #expect(controlError.message.contains("line \(target + 1),"))

        // With a bad value in the first part as well, the first part's error is the one reported.
        let early = try #require((0..<lines.count / 4).first { lines[$0].contains("name=\"score\"") })
        lines[early] = "        <attribute name=\"score\" type=\"double\">much</attribute>"
        let both = joined(lines)
        let firstError = try expectSameError(both, url, coordinator, splitFrom: both.count / 2)
        #expect(firstError.message.contains("line \(early + 1),"))
        #expect(firstError.message.contains("'much'"))
    }

    @Test func aTruncatedSecondPartReportsWhereItEnds() throws {
        let (url, coordinator) = try makeStore(count: 400)
        let data = try Data(contentsOf: url)
        let truncated = data.prefix(data.count * 3 / 4)
        let error = try expectSameError(Data(truncated), url, coordinator, splitFrom: data.count / 2)
        #expect(error.message.contains("not well-formed"))
    }

    @Test func duplicateIDsAcrossAndWithinPartsAreRefusedAsOneThreadRefusesThem() throws {
        let (url, coordinator) = try makeStore(count: 400)
        let data = try Data(contentsOf: url)
        let lines = lines(data).lines
        let firstObject = try objectLine(lines, from: 0)
        let lateObject = try objectLine(lines, from: lines.count * 3 / 4)
        let laterObject = try objectLine(lines, from: lateObject + 1)
        let lastObject = try objectLine(lines, from: lines.count - 40)
        func id(_ line: String) throws -> String {
            let start = try #require(line.range(of: "id=\"")).upperBound
            return String(line[start...].prefix { $0 != "\"" })
        }
        func withID(_ lines: [String], at index: Int, _ newID: String) throws -> [String] {
            var lines = lines
            lines[index] = lines[index].replacingOccurrences(of: "id=\"\(try id(lines[index]))\"", with: "id=\"\(newID)\"")
            return lines
        }
        func closing(_ lines: [String], after index: Int) throws -> Int {
            try #require((index..<lines.count).first { lines[$0] == "    </object>" }) + 1
        }

        // Across the parts: a late object takes the first object's id.
        let across = try withID(lines, at: lateObject, try id(lines[firstObject]))
        let acrossError = try expectSameError(joined(across), url, coordinator, splitFrom: data.count / 2)
        #expect(acrossError.message.contains("two objects have the id \(try id(lines[firstObject]))"))
        #expect(acrossError.message.contains("line \(try closing(across, after: lateObject)),"))

        // Within the second part, after a duplicate across the parts: the one met first is reported.
        let within = try withID(try withID(across, at: lastObject, try id(lines[laterObject])), at: lateObject, try id(lines[firstObject]))
        let withinError = try expectSameError(joined(within), url, coordinator, splitFrom: data.count / 2)
        #expect(withinError.message.contains("line \(try closing(within, after: lateObject)),"))

        // Within the second part only.
        let second = try withID(lines, at: lastObject, try id(lines[laterObject]))
        let secondError = try expectSameError(joined(second), url, coordinator, splitFrom: data.count / 2)
        #expect(secondError.message.contains("two objects have the id \(try id(lines[laterObject]))"))
        #expect(secondError.message.contains("line \(try closing(second, after: lastObject)),"))

        // A duplicate across the parts before a syntax error later in the second part wins.
        var broken = across
        broken[lastObject] = "<object type=\"NODE\" id=\"z1\" id=\"z2\">"
        let brokenError = try expectSameError(joined(broken), url, coordinator, splitFrom: data.count / 2)
        #expect(brokenError.message.contains("two objects have the id"))
    }

    @Test func aDanglingReferenceInTheSecondPartIsReported() throws {
        let (url, coordinator) = try makeStore(count: 400)
        let data = try Data(contentsOf: url)
        var lines = lines(data).lines
        let target = try #require((lines.count * 3 / 4..<lines.count).first { lines[$0].contains("name=\"parent\"") })
        lines[target] = lines[target].replacing(#/idrefs="z\d+"/#, with: "idrefs=\"z77777\"")
        let edited = joined(lines)
        let error = try expectSameError(edited, url, coordinator, splitFrom: edited.count / 2)
        #expect(error.message.contains("z77777"))
        #expect(error.message.contains("line \(target + 1),"))
    }
}
