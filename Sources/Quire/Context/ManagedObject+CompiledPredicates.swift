import QuireCore
import Foundation

extension QueryPredicate {
    /// Evaluates the predicate against a managed object in memory, as `-[NSPredicate evaluateWithObject:]` does:
    /// the general evaluation's answer for the object, only faster for the comparisons real apps filter
    /// registered objects with.
    ///
    /// ```swift
    /// let predicate = try QueryPredicate(format: "remoteID == %@", id)
    /// for object in context.registeredObjects where !object.isFault {
    ///     if let mood = object as? Mood, try predicate.evaluate(with: mood) { return mood }
    /// }
    /// ```
    ///
    /// A comparison of a key path through to-one relationships with a constant (`remoteID == %@`,
    /// `owner.name ==[c] %@`, `rank > 3`), alone or under `AND`, `OR` and `NOT`, is read straight from the objects'
    /// slots, with no intermediate values; anything else (to-many key paths, functions, subqueries, variables)
    /// takes the general evaluator, which gives the same answers.
    ///
    /// - Parameters:
    ///   - object: The object `SELF` stands for.
    ///   - substitutionVariables: Values for the predicate's `$VARIABLES`, converted as format arguments are.
    /// - Returns: Whether the object satisfies the predicate.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` as the general evaluation does.
    ///
    /// Inlined where it is called: a comparison of the object's own string attribute with a string (`remoteID ==
    /// %@`, asked of every object a lookup among the registered objects meets) is answered in the caller's loop.
    @inlinable
    public func evaluate(with object: ManagedObject, substitutionVariables: [String: Any] = [:]) throws -> Bool {
        if let answer = object.inlinedStringEquality(of: self) { return answer }
        return try evaluateOutOfLine(with: object, substitutionVariables: substitutionVariables)
    }

    /// ``evaluate(with:substitutionVariables:)`` past its inlined part: the compiled comparisons, then the general
    /// evaluator.
    @usableFromInline
    func evaluateOutOfLine(with object: ManagedObject, substitutionVariables: [String: Any]) throws -> Bool {
        if let answer = object.compiledEvaluation(of: self) { return answer }
        return try evaluateInterpreted(with: object, substitutionVariables: substitutionVariables)
    }
}

extension ManagedObject {
    /// The answer of a predicate that is one compiled `==` or `!=` of the object's own attribute with a string
    /// (`remoteID == %@`), read where the object keeps the string; nil for any other predicate, or when the
    /// object cannot tell so (``compiledEvaluation(of:)`` then answers, as it would have).
    @inlinable @inline(__always)
    func inlinedStringEquality(of predicate: QueryPredicate) -> Bool? {
        // The compiled form unretained: the predicate (which the caller holds for the call) keeps it alive.
        guard let compiled = predicate.compiledComparison.map(Unmanaged.passUnretained) else { return nil }
        return compiled._withUnsafeGuaranteedRef { compiled in
            guard compiled.lastKeyPosition == 0, compiled.equalityString != nil else { return nil }
            return ownStringEquality(compiled)
        }
    }

    /// The answer of a compiled `==` or `!=` of the object's own attribute (the comparison's one key) with the
    /// comparison's ``CompiledComparison/equalityString``; nil when the key is not one of the entity's attributes,
    /// the object is a fault, or the stored value cannot tell (see ``storedString(at:equals:ascii:)``).
    @inlinable @inline(__always)
    func ownStringEquality(_ compiled: CompiledComparison) -> Bool? {
        guard let string = compiled.equalityString, !faultFlag,
            let slot = withEntity({ compiled.firstKeyAttributeSlot(in: $0) }),
            let equal = storedString(at: slot, equals: string, ascii: compiled.equalityASCII)
        else { return nil }
        return compiled.operator == .equalTo ? equal : !equal
    }

    /// The predicate's answer for the object from its compiled comparisons, or nil when some comparison it met
    /// has no compiled form for this object (the general evaluator then answers: evaluating has no effect but
    /// firing faults, so starting again gives the same answer).
    ///
    /// Inlined into its callers (``QueryPredicate/evaluate(with:substitutionVariables:)``), and so is the match of
    /// a one-key comparison: a comparison alone costs the one call of `evaluate(with:)` per object.
    @inline(__always)
    func compiledEvaluation(of predicate: QueryPredicate) -> Bool? {
        // A comparison alone, the common case, first, with its compiled form unretained: the predicate (which the
        // caller holds for the call) keeps it alive, for the parts of a comparison are never changed once made.
        // Skips a retain and a release for every object a predicate is evaluated on.
        if let compiled = predicate.compiledComparison.map(Unmanaged.passUnretained) {
            return compiled._withUnsafeGuaranteedRef { compiledComparisonMatch($0) }
        }
        return compiledCompoundEvaluation(of: predicate)
    }

    /// A compiled comparison's answer: one key (`remoteID == %@`) answered here, with no call of its own, a key
    /// path by ``compiledMatch(_:)``.
    @inline(__always)
    private func compiledComparisonMatch(_ compiled: CompiledComparison) -> Bool? {
        compiled.lastKeyPosition == 0 ? compiledAttributeMatch(compiled, keyAt: 0) : compiledMatch(compiled)
    }

    /// ``compiledEvaluation(of:)`` of a predicate that is not a comparison with a compiled form: `NOT`, `AND`,
    /// `OR` of compiled parts, `TRUEPREDICATE`, `FALSEPREDICATE`; nil for any other comparison.
    @inline(never)
    private func compiledCompoundEvaluation(of predicate: QueryPredicate) -> Bool? {
        switch predicate {
        case .comparison:
            return nil
        case .true:
            return true
        case .false:
            return false
        case .not(let operand):
            return compiledEvaluation(of: operand).map { !$0 }
        case .and(let operands):
            for operand in operands {
                guard let answer = compiledEvaluation(of: operand) else { return nil }
                if !answer { return false }
            }
            return true
        case .or(let operands):
            for operand in operands {
                guard let answer = compiledEvaluation(of: operand) else { return nil }
                if answer { return true }
            }
            return false
        }
    }

    /// A compiled comparison's answer: the keys before the last followed through to-one relationships, the last
    /// read as an attribute's stored value, as ``predicateValue(forKey:)`` reads them; nil where the general
    /// evaluator is needed (a key that is not such a property, a to-many or unloaded relationship, external data).
    func compiledMatch(_ compiled: CompiledComparison) -> Bool? {
        let last = compiled.lastKeyPosition
        // One key: the object's own attribute, with no reference taken.
        if last == 0 { return compiledAttributeMatch(compiled, keyAt: 0) }
        var object = self
        var position = 0
        while position < last {
            guard let index = object.withEntity({ compiled.propertyIndex(ofKeyAt: position, in: $0) }),
                index >= object.withEntity({ $0.frozenAttributeCount }),
                let relationship = object.withEntity({ $0.frozenProperty(at: index) }) as? RelationshipDescription,
                !relationship.isToMany
            else { return nil }
            // A nil destination (or an object outside any context) reads as nil, and nil has every key, nil.
            guard let context = object.managedObjectContext else { return compiled.matches(.null) }
            switch object.loadedStorage(for: relationship) {
            case .toOne(let id):
                guard let id else { return compiled.matches(.null) }
                object = context.object(with: id)
            default:
                return nil
            }
            position += 1
        }
        return object.compiledAttributeMatch(compiled, keyAt: last)
    }

    /// The comparison's answer for the object's attribute named by the key at `position` (the last of the path);
    /// nil when the key is not an attribute of the entity, or its value is data kept outside the store.
    @inline(__always)
    private func compiledAttributeMatch(_ compiled: CompiledComparison, keyAt position: Int) -> Bool? {
        let index: Int
        if position == 0 {
            // `==` or `!=` of the object's own string (`remoteID == %@`, an import's lookup of every record among
            // the registered objects): the stored string compared where it is kept.
            if let equal = ownStringEquality(compiled) { return equal }
            // The object's own attribute: its slot as the comparison remembers it.
            guard let slot = withEntity({ compiled.firstKeyAttributeSlot(in: $0) }) else { return nil }
            index = slot
        } else {
            guard let found = withEntity({ compiled.propertyIndex(ofKeyAt: position, in: $0) }),
                found < withEntity({ $0.frozenAttributeCount })
            else { return nil }
            index = found
            if let string = compiled.equalityString, !faultFlag,
                let equal = storedString(at: index, equals: string, ascii: compiled.equalityASCII)
            {
                return compiled.operator == .equalTo ? equal : !equal
            }
        }
        let value = attributeValue(at: index)
        if case .externalData = value { return nil }
        return compiled.matches(value)
    }

    /// Whether the attribute in `slot` of an object that is not a fault equals `string` (`==`, as
    /// ``PredicateEvaluator``'s `equal` without options answers), read in place: from the packed row the object
    /// holds (byte for byte, when the constant is ASCII: ``CompiledComparison/equalityASCII``) or from its values;
    /// nil when that cannot tell (not a string or nil, no ASCII constant for a packed row, a slot past the values),
    /// and the caller reads the value as ``attributeValue(at:)`` gives it.
    @inlinable @inline(__always)
    func storedString(at slot: Int, equals string: String, ascii: [UInt8]?) -> Bool? {
        // The row unretained: the object holds it strongly and is alive for the call, and reading the row's bytes
        // touches nothing that could release it.
        if let row = withExtendedLifetime(heldRow, { $0.map(Unmanaged.passUnretained) }) {
            guard let ascii else { return nil }
            return row._withUnsafeGuaranteedRef { row in ascii.withUnsafeBufferPointer { row.attribute(at: slot, equalsASCII: $0) } }
        }
        return storedAttributes.withUnsafeBufferPointer { values in
            guard slot < values.count else { return nil }
            switch values[slot] {
            case .string(let stored): return stored == string
            case .null: return false
            default: return nil
            }
        }
    }
}
