import QuireCore
import QuireStores
import Foundation
import OrderedCollections

extension ManagedObject {
    // MARK: Key-value access

    /// The value of a property (`value(forKey:)`), firing the fault when needed.
    ///
    /// Attributes give what Core Data gives: numbers (every integer width, double, float, Boolean) as `NSNumber`
    /// and decimals as `NSDecimalNumber`, so that `value(forKey:) as? Int`, `as? Int64`, `as? Int16`,
    /// `as? Double`, `as? Bool` and `as? NSNumber` all give the value when it fits the type exactly, as on the
    /// Mac; `String`, `Date`, `Data`, `UUID`, `URL`, a transformable attribute's value, or `nil`. A to-one
    /// relationship gives the related ``ManagedObject`` or `nil`; a to-many relationship a `Set<ManagedObject>`,
    /// an ordered one an `OrderedSet<ManagedObject>`. An unknown key traps, as Core Data's
    /// `NSUndefinedKeyException` does: for keys that come from input use ``validatedValue(forKey:)``, which throws.
    ///
    /// Casting an `NSNumber` is Foundation's bridging, which costs several thousand instructions a value: to read
    /// many values, declare ``ManagedProperty()`` properties (or use ``attributeValue(forKey:)``), which read the
    /// stored value without boxing it.
    public func value(forKey key: String) -> Any? {
        // The precomputed property index (one scan of machine words for keys that are the names themselves).
        let hint = Int(nextKeyHint)
        let keyed = withEntity { $0.keyedPropertyIndex(forKey: key, hint: hint) }
        if let keyed { nextKeyHint = UInt8(truncatingIfNeeded: keyed.index &+ 1) }
        // Most attributes read as their stored value's own type: no description to look at.
        if let keyed, keyed.isPlainAttribute {
            if faultFlag { fireFaultIfNeeded() }
            if let row = unretainedPackedValues { return packedAnyValue(at: keyed.index, in: row) }
            let stored = attributeValue(at: keyed.index)
            if case .externalData = stored {} else { return stored.bridgedValue }
        }
        let entity = self.entity
        if let (index, _) = keyed {
            if index < entity.frozenAttributeCount {
                return value(of: entity.frozenAttribute(at: index))
            }
            if let relationship = entity.frozenProperty(at: index) as? RelationshipDescription {
                return relatedObjects(for: relationship)
            }
        }
        switch property(forKey: key) {
        case let attribute as AttributeDescription:
            return value(of: attribute)
        case let relationship as RelationshipDescription:
            return relatedObjects(for: relationship)
        case let composite as CompositeAttributeDescription:
            return compositeValue(composite)
        default:
            // A fetched property: its results, evaluated on first use (see fetchedValue(forKey:)).
            return try? fetchedValue(forKey: key)
        }
    }

    /// `value(forKey:)` of an attribute.
    private func value(of attribute: AttributeDescription) -> Any? {
        let value = attributeValue(at: attribute.slot)
        if case .externalData = value {
            // The file is read now; a missing or damaged file gives nil (dataValue(forKey:) throws instead).
            guard let bytes = try? resolvedAttributeValue(at: attribute.slot, key: attribute.name) else { return nil }
            return ValueCoercion.publicValue(bytes, for: attribute)
        }
        return ValueCoercion.publicValue(value, for: attribute)
    }

    /// Sets the value of a property (`setValue(_:forKey:)`), recording the change and, for relationships,
    /// keeping the inverse relationship in step on both sides.
    ///
    /// Attributes take any Swift value that fits their type (any integer for integer attributes, within
    /// range); a to-one relationship takes a ``ManagedObject`` or `nil`; a to-many relationship a
    /// `Set`, `Array` or `OrderedSet` of managed objects. An integer outside its attribute's range (40 000 for
    /// an Integer 16) is stored, and the save fails validation with
    /// ``QuireError/Code/validationNumberTooLarge`` or ``QuireError/Code/validationNumberTooSmall``, as in Core
    /// Data. An unknown key or a value of the wrong type traps (Core Data raises an exception Swift cannot
    /// catch): for keys and values that come from input use ``setValidatedValue(_:forKey:)``, which throws.
    public func setValue(_ value: consuming Any?, forKey key: String) {
        // Fast path: an attribute given a value of its natural Swift type, taken without a copy or a cast. The
        // attribute after the one set last is tried first (the key hint value(forKey:) uses too).
        let hint = Int(nextKeyHint)
        if let (slot, type) = withEntity({ $0.settableAttributeSlot(forKey: key, hint: hint) }) {
            nextKeyHint = UInt8(truncatingIfNeeded: slot &+ 1)
            switch ValueCoercion.exactValue(value, type: type) {
            case .stored(let stored): return setAttributeValue(stored, at: slot)
            case .needsConversion(let other): return setConvertedValue(other, forKey: key)
            }
        }
        setConvertedValue(value, forKey: key)
    }

    /// `setValue(_:forKey:)` of everything but its fast path: values to convert, relationships, composites,
    /// derived attributes and unknown keys.
    private func setConvertedValue(_ value: Any?, forKey key: String) {
        switch property(forKey: key) {
        case let attribute as AttributeDescription:
            if attribute.derivationExpression != nil { return noteDerivedAttributeWrite(key) }
            do {
                let converted = try ValueCoercion.attributeValue(from: value, for: attribute, keepingIntegersOutOfRange: true)
                setAttributeValue(converted, at: attribute.slot)
            } catch {
                preconditionFailure("\(error) Use setValidatedValue(_:forKey:) for values that come from input.")
            }
        case let relationship as RelationshipDescription:
            setRelated(value, for: relationship)
        case let composite as CompositeAttributeDescription:
            do {
                try setCompositeValue(value, for: composite)
            } catch {
                preconditionFailure("\(error) Use setValidatedValue(_:forKey:) for values that come from input.")
            }
        default:
            break
        }
    }

    /// Reads or writes a property by key, like ``value(forKey:)`` and ``setValue(_:forKey:)-(Any?,String)``.
    public subscript(key: String) -> Any? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    /// The value at a dotted key path through to-one relationships (`"department.name"`); a path through a
    /// to-many relationship gives an array of the values reached.
    public func value(forKeyPath keyPath: String) -> Any? {
        var current: [ManagedObject] = [self]
        var result: Any? = nil
        var fannedOut = false
        let components = keyPath.split(separator: ".").map(String.init)
        for (index, component) in components.enumerated() {
            let isLast = index == components.count - 1
            if !isLast, let composite = current.first?.entity.property(named: component) as? CompositeAttributeDescription {
                // The rest of the path names an element of a composite attribute: `address.city`.
                guard let leaf = composite.leaf(forPath: components[(index + 1)...]) else { return nil }
                let values = current.compactMap { $0.value(forKey: leaf.name) }
                return fannedOut ? values : values.first
            }
            var next: [ManagedObject] = []
            var values: [Any] = []
            for object in current {
                let value = object.value(forKey: component)
                if isLast {
                    if let value { values.append(value) }
                } else if let related = value as? ManagedObject {
                    next.append(related)
                } else if let set = value as? Set<ManagedObject> {
                    fannedOut = true
                    next.append(contentsOf: set)
                } else if let ordered = value as? OrderedSet<ManagedObject> {
                    fannedOut = true
                    next.append(contentsOf: ordered)
                }
            }
            if isLast { result = fannedOut ? values : values.first }
            current = next
        }
        return result
    }

    /// The stored value of a property without recording a change or maintaining inverses
    /// (`primitiveValue(forKey:)`). Relationships give object IDs' objects as ``value(forKey:)`` does.
    public func primitiveValue(forKey key: String) -> Any? {
        value(forKey: key)
    }

    /// Stores a value without maintaining inverse relationships (`setPrimitiveValue(_:forKey:)`); the object
    /// is still saved with it.
    public func setPrimitiveValue(_ value: Any?, forKey key: String) {
        switch property(forKey: key) {
        case let attribute as AttributeDescription:
            if attribute.derivationExpression != nil { return noteDerivedAttributeWrite(key) }
            do {
                let converted = try ValueCoercion.attributeValue(from: value, for: attribute)
                setAttributeValue(converted, at: attribute.slot)
            } catch {
                preconditionFailure("\(error)")
            }
        case let relationship as RelationshipDescription:
            willChangeRelationships()
            relationshipStorage[relationship.slot] = storage(from: value, for: relationship)
        default:
            break
        }
    }

    /// The stored value of an attribute as an ``AttributeValue``; `.null` for an unknown key.
    public func attributeValue(forKey key: String) -> AttributeValue {
        // The precomputed property index, as value(forKey:) finds it: attributes come first, so an index below
        // the attribute count is an attribute's slot.
        let hint = Int(nextKeyHint)
        if let keyed = withEntity({ $0.keyedPropertyIndex(forKey: key, hint: hint) }) {
            nextKeyHint = UInt8(truncatingIfNeeded: keyed.index &+ 1)
            guard keyed.index < withEntity({ $0.frozenAttributeCount }) else { return .null }
            return attributeValue(at: keyed.index)
        }
        guard let attribute = entity.propertiesByName[key] as? AttributeDescription else { return .null }
        return attributeValue(at: attribute.slot)
    }

    // MARK: To-many edits

    /// Adds an object to a to-many relationship (appending to an ordered one), keeping the inverse in step.
    public func addObject(_ object: ManagedObject, toRelationship key: String) {
        guard let relationship = property(forKey: key) as? RelationshipDescription, relationship.isToMany else {
            preconditionFailure("'\(key)' is not a to-many relationship of entity '\(entity.name)'.")
        }
        link(object, through: relationship)
    }

    /// Removes an object from a to-many relationship, keeping the inverse in step.
    public func removeObject(_ object: ManagedObject, fromRelationship key: String) {
        guard let relationship = property(forKey: key) as? RelationshipDescription, relationship.isToMany else {
            preconditionFailure("'\(key)' is not a to-many relationship of entity '\(entity.name)'.")
        }
        unlink(object, through: relationship)
    }

    // MARK: Changes

    /// The properties changed since the last save or fetch, with their new values (`changedValues()`).
    ///
    /// An inserted object lists every attribute that has a value and every relationship that holds objects. A
    /// saved object lists the attributes whose values differ from the saved ones and the relationships that
    /// changed, to-many relationships changed while still faults included (`country.moods` after
    /// `mood.country = country`; the set is loaded to give its value). Nil values are `NSNull`. A to-many's set
    /// is built once per change and kept, and the whole answer is kept until the object changes again, so calling
    /// this again (from `willSave()`, say) costs a few comparisons, and after a change what the object's own
    /// changes cost, not what its sets hold.
    public func changedValues() -> [String: Any] {
        if let memo = memoizedChangedValues() { return memo }
        let result = buildChangedValues()
        memoizeChangedValues(result)
        return result
    }

    /// ``changedValues()`` built from the object's values.
    private func buildChangedValues() -> [String: Any] {
        let entity = self.entity
        var result = changedAttributeValues(of: entity)
        if insertedFlag {
            // Every relationship an inserted object holds objects in is its own doing.
            let current = relationshipStorage
            for relationship in entity.allRelationships where relationship.slot < current.count {
                switch current[relationship.slot] {
                case .fault, .toOne(nil): continue
                case .toMany(let ids) where ids.isEmpty: continue
                case .ordered(let ids) where ids.isEmpty: continue
                default: result[relationship.name] = changedRelationshipValue(relationship)
                }
            }
            return result
        }
        if let committed = committedRelationships {
            for relationship in entity.allRelationships
            where relationship.slot < committed.count && !committed[relationship.slot].isFault
                && committed[relationship.slot] != relationshipStorage[relationship.slot] {
                result[relationship.name] = changedRelationshipValue(relationship)
            }
        }
        if let deferred = changeState?.deferredMembers, !deferred.isEmpty {
            // To-many relationships changed through their inverses while they were faults.
            for (slot, members) in deferred where !members.isEmpty {
                guard let relationship = entity.allRelationships.first(where: { $0.slot == slot }) else { continue }
                result[relationship.name] = changedRelationshipValue(relationship)
            }
        }
        return result
    }

    /// The attributes' part of ``changedValues()``.
    private func changedAttributeValues(of entity: EntityDescription) -> [String: Any] {
        let committed = committedAttributes
        guard committed != nil || insertedFlag else { return [:] }
        let current = attributeStorage
        // The last whole answer (``ChangedValuesMemo``), if any: asked for the boxes of numbers that have not
        // changed since.
        let previous = changeState?.changedValuesMemo
        let attributes = entity.allAttributes
        var result: [String: Any]
        if let committed {
            // Slots are the attributes' positions in `allAttributes`; the values are compared by slot, and only a
            // changed one's attribute is looked at.
            let slots = 0..<min(attributes.count, committed.count, current.count)
            var changed = 0
            for slot in slots where committed[slot] != current[slot] { changed += 1 }
            // Sized once: a dictionary grown entry by entry is made again at each growth.
            result = Dictionary(minimumCapacity: changed)
            if changed > 0 {
                // A number that has not changed since the last answer keeps the box it had there: making an
                // `NSNumber` costs more than finding the old one (a `willSave()` asking again after another change
                // of the object meets the same counters).
                for slot in slots where committed[slot] != current[slot] {
                    let attribute = attributes[slot]
                    if let previous, slot < previous.attributes.count, Self.sameNumber(previous.attributes[slot], current[slot]),
                        let boxed = previous.values[attribute.name]
                    {
                        result[attribute.name] = boxed
                    } else {
                        result[attribute.name] = ValueCoercion.publicValue(current[slot], for: attribute) ?? NSNull()
                    }
                }
            }
        } else {
            result = Dictionary(minimumCapacity: attributes.count)
            for attribute in attributes where !current[attribute.slot].isNull {
                result[attribute.name] = ValueCoercion.publicValue(current[attribute.slot], for: attribute)
            }
        }
        return result
    }

    /// Whether two values are the same integer, or doubles with the same bits (so that their public values, boxes
    /// of one type for one attribute, are interchangeable; `0.0` and `-0.0`, equal as values, are not).
    private static func sameNumber(_ a: AttributeValue, _ b: AttributeValue) -> Bool {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y
        case (.double(let x), .double(let y)): return x.bitPattern == y.bitPattern
        default: return false
        }
    }

    /// A changed relationship's value for ``changedValues()``: the related object or `NSNull`, or the set, built
    /// once for each value of the relationship and kept in the change state while the object stays changed.
    private func changedRelationshipValue(_ relationship: RelationshipDescription) -> Any {
        guard relationship.isToMany else { return relatedObjects(for: relationship) ?? NSNull() }
        let storage = loadedStorage(for: relationship)
        if let cached = cachedChangedSet(slot: relationship.slot, storage: storage) { return cached }
        let value = relatedObjects(for: relationship) ?? NSNull()
        cacheChangedSet(value, slot: relationship.slot, storage: storage)
        return value
    }

    /// The values of the given keys (all persistent keys for `nil`) as last saved or fetched
    /// (`committedValues(forKeys:)`); empty for an object never saved.
    public func committedValues(forKeys keys: [String]?) -> [String: Any] {
        guard !insertedFlag else { return [:] }
        fireFaultIfNeeded()
        let attributes = committedAttributes ?? attributeStorage
        var result: [String: Any] = [:]
        let wanted = keys.map(Set.init)
        for attribute in entity.allAttributes where !attribute.isTransient && (wanted?.contains(attribute.name) ?? true) {
            result[attribute.name] = ValueCoercion.publicValue(attributes[attribute.slot], for: attribute) ?? NSNull()
        }
        let relationships = committedRelationships ?? relationshipStorage
        for relationship in entity.allRelationships where wanted?.contains(relationship.name) ?? true {
            let storage = relationships[relationship.slot]
            guard !storage.isFault else { continue }
            switch storage {
            case .toOne(let id): result[relationship.name] = id.flatMap { managedObjectContext?.object(with: $0) } ?? NSNull()
            default:
                let objects = storage.objectIDs.compactMap { managedObjectContext?.object(with: $0) }
                result[relationship.name] = relationship.isOrdered ? OrderedSet(objects) as Any : Set(objects) as Any
            }
        }
        return result
    }

    // MARK: Internals

    func property(forKey key: String) -> PropertyDescription? {
        guard let property = entity.property(named: key) else {
            // Fetched properties are read through value(forKey:) and are read-only.
            if entity.fetchedProperty(named: key) != nil { return nil }
            preconditionFailure("Entity '\(entity.name)' has no property named '\(key)'.")
        }
        return property
    }

    func fireFaultIfNeeded() {
        guard faultFlag else { return }
        if let context = managedObjectContext {
            context.fulfillFault(of: self)
        } else if let held = heldRow, attributeStorage.isEmpty {
            // The context is gone: a fault that kept its fetched row still reads that row's values.
            (attributeStorage, relationshipStorage) = held.unpacked(owner: objectID.idOwner)
        }
    }

    func attributeValue(at slot: Int) -> AttributeValue {
        if faultFlag { fireFaultIfNeeded() }
        // Values still packed (a fired fault or a filled fetched object nobody changed): decode the one asked for.
        if let value = packedAttributeValue(at: slot) { return value }
        return slot < storedAttributes.count ? storedAttributes[slot] : .null
    }

    func setAttributeValue(_ value: consuming AttributeValue, at slot: Int) {
        // An object inserted since its context last posted its changes, in a context that records no undo: it
        // has nothing to note, keep or register (see `insertionNotePending`), so the value is simply stored.
        if insertionNotePending && insertedFlag && heldRow == nil && slot < storedAttributes.count {
            storedAttributes[slot] = value
            return
        }
        fireFaultIfNeeded()
        unpackValuesIfNeeded()
        guard slot < storedAttributes.count else { return }
        // Asked first without holding on to the context (keeping it across the call below would retain and
        // release it on every change).
        if managedObjectContext?.undoState.undoManager != nil {
            managedObjectContext?.registerUndoForAttribute(self, slot: slot, newValue: value)
        }
        willChangeAttributes()
        storedAttributes[slot] = value
    }

    /// Marks the object changed and keeps the committed values, the first time it changes.
    func willChangeAttributes() {
        // An object inserted since the context last posted its changes is reported as inserted, never also as
        // updated (`ObjectsDidChange`), and has no committed values to keep: nothing to note.
        if insertionNotePending && insertedFlag { return }
        managedObjectContext?.changeNotes.noteUpdated(self)
        guard !insertedFlag else { return }
        if committedAttributes == nil { committedAttributes = attributeStorage }
        if !updatedFlag { startsChanging() }
    }

    func willChangeRelationships() {
        fireFaultIfNeeded()
        managedObjectContext?.registerUndoForRelationships(self)
        managedObjectContext?.changeNotes.noteUpdated(self)
        guard !insertedFlag else { return }
        if committedRelationships == nil { committedRelationships = relationshipStorage }
        if !updatedFlag { startsChanging() }
    }

    /// The relationship's value, loading a to-many fault first.
    func loadedStorage(for relationship: RelationshipDescription) -> RelationshipStorage {
        fireFaultIfNeeded()
        if let packed = packedValues {
            // A to-one read from packed values leaves them packed; a to-many fault is loaded below.
            let storage = packed.relationship(at: relationship.slot, owner: objectID.idOwner)
            if !storage.isFault { return storage }
        }
        guard relationship.slot < relationshipStorage.count else { return .empty(for: relationship) }
        if relationshipStorage[relationship.slot].isFault {
            managedObjectContext?.fulfillRelationshipFault(of: self, relationship: relationship)
        }
        let storage = relationshipStorage[relationship.slot]
        return storage.isFault ? .empty(for: relationship) : storage
    }

    func relatedObjects(for relationship: RelationshipDescription) -> Any? {
        let storage = loadedStorage(for: relationship)
        guard let context = managedObjectContext else { return nil }
        switch storage {
        case .fault: return nil
        case .toOne(let id): return id.map { context.object(with: $0) }
        case .toMany(let ids): return Set(ids.map { context.object(with: $0) })
        case .ordered(let ids): return OrderedSet(ids.map { context.object(with: $0) })
        }
    }

    private func objects(from value: Any?, for relationship: RelationshipDescription) -> [ManagedObject] {
        guard let objects = ManagedObject.relationshipMembers(of: value) else {
            // Programmer misuse of the non-throwing API; values from input go through setValidatedValue(_:forKey:).
            preconditionFailure("Relationship '\(relationship.name)' takes managed objects, not \(Self.memberTypeName(of: value)).")
        }
        return objects
    }

    private func storage(from value: Any?, for relationship: RelationshipDescription) -> RelationshipStorage {
        let ids = objects(from: value, for: relationship).map(\.objectID)
        if !relationship.isToMany { return .toOne(ids.first) }
        return relationship.isOrdered ? .ordered(OrderedSet(ids)) : .toMany(Set(ids))
    }

    private func setRelated(_ value: Any?, for relationship: RelationshipDescription) {
        setRelatedObjects(objects(from: value, for: relationship), for: relationship)
    }

    /// Sets a relationship to objects, as `setValue(_:forKey:)` does, for callers that hold the objects unboxed
    /// (migrations setting relationships of many objects).
    func setRelatedObjects(_ newObjects: [ManagedObject], for relationship: RelationshipDescription) {
        if !relationship.isToMany {
            precondition(newObjects.count <= 1, "To-one relationship '\(relationship.name)' takes one object.")
            if let object = newObjects.first {
                link(object, through: relationship)
            } else if case .toOne(let old?) = loadedStorage(for: relationship), let context = managedObjectContext {
                unlink(context.object(with: old), through: relationship)
            }
            return
        }
        let current = loadedStorage(for: relationship).objectIDs
        if !current.isEmpty, let context = managedObjectContext {
            let newIDs = Set(newObjects.map(\.objectID))
            for id in current where !newIDs.contains(id) {
                unlink(context.object(with: id), through: relationship)
            }
        }
        for object in newObjects { link(object, through: relationship) }
        if relationship.isOrdered {
            // Keep the order the caller gave.
            willChangeRelationships()
            relationshipStorage[relationship.slot] = .ordered(OrderedSet(newObjects.map(\.objectID)))
        }
    }

    /// Adds `object` to this object's relationship and this object to the inverse, on both sides at once.
    func link(_ object: ManagedObject, through relationship: RelationshipDescription) {
        precondition(
            object.entity.isKind(of: relationship.resolvedDestination ?? object.entity),
            "Relationship '\(relationship.name)' of '\(entity.name)' takes '\(relationship.destinationEntityName)' objects, not '\(object.entity.name)'.")
        precondition(
            object.managedObjectContext === managedObjectContext,
            "Objects in different contexts cannot be related ('\(relationship.name)' of '\(entity.name)').")
        if defersMembers(of: relationship) {
            // A to-many fault: record the new member without loading the set (nothing to do for a member).
            if knownMembership(of: object, in: relationship) == true { return }
            deferMember(object.objectID, of: relationship, adding: true)
        } else {
            do {
                let current = loadedStorage(for: relationship)
                if current.contains(object.objectID) { return }
                if !relationship.isToMany, case .toOne(let old?) = current, let context = managedObjectContext {
                    unlink(context.object(with: old), through: relationship)
                }
            }
            willChangeRelationships()
            // Changed in place: a copy taken out and put back would copy the whole set on every member added.
            Self.add(object.objectID, to: &relationshipStorage[relationship.slot], of: relationship)
        }
        guard let inverse = relationship.resolvedInverse else { return }
        if object.defersMembers(of: inverse) {
            // The inverse is a to-many fault (`item.owner = owner` with `owner.items` not loaded): record it.
            object.deferMember(objectID, of: inverse, adding: true)
            return
        }
        // The other side: a to-one inverse first leaves whatever it pointed at.
        do {
            let otherSide = object.loadedStorage(for: inverse)
            if otherSide.contains(objectID) { return }
            if !inverse.isToMany, case .toOne(let previous?) = otherSide, let context = managedObjectContext {
                let previousObject = context.object(with: previous)
                previousObject.removeOneSide(object.objectID, relationship: relationship)
            }
        }
        object.willChangeRelationships()
        Self.add(objectID, to: &object.relationshipStorage[inverse.slot], of: inverse)
    }

    /// Adds an ID to a relationship's storage in place (an unloaded one starts empty).
    private static func add(_ id: ObjectID, to storage: inout RelationshipStorage, of relationship: RelationshipDescription) {
        if storage.isFault { storage = .empty(for: relationship) }
        storage.add(id)
    }

    /// Removes `object` from this object's relationship and this object from the inverse.
    func unlink(_ object: ManagedObject, through relationship: RelationshipDescription) {
        if defersMembers(of: relationship) {
            // A to-many fault: skip what is known not to be a member; otherwise record it on both sides.
            if knownMembership(of: object, in: relationship) == false { return }
            deferMember(object.objectID, of: relationship, adding: false)
            if let inverse = relationship.resolvedInverse { object.removeOneSide(objectID, relationship: inverse) }
            return
        }
        let current = loadedStorage(for: relationship)
        guard current.contains(object.objectID) else { return }
        removeOneSide(object.objectID, relationship: relationship)
        guard let inverse = relationship.resolvedInverse else { return }
        object.removeOneSide(objectID, relationship: inverse)
    }

    /// Removes an ID from one side only (the other side is handled by the caller).
    func removeOneSide(_ id: ObjectID, relationship: RelationshipDescription) {
        if defersMembers(of: relationship) {
            deferMember(id, of: relationship, adding: false)
            return
        }
        let current = loadedStorage(for: relationship)
        guard current.contains(id) else { return }
        willChangeRelationships()
        var updated = current
        updated.remove(id)
        relationshipStorage[relationship.slot] = updated
    }
}
