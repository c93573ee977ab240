import QuireSupport
import Synchronization
import Foundation

/// A comparison of a key path with a constant (`remoteID == "r-1"`, `owner.name == "Ann"`, `rank >= 3`) prepared
/// once, when the comparison is made, for objects that read their properties by slot: such an object follows the
/// keys itself and hands the value at the end of the path to ``matches(_:)``, with no ``PredicateValue`` made per
/// step and no evaluator (`QueryComparison.compiled`).
///
/// Only what gives exactly the general evaluator's answer is prepared: no modifier, an ordering or equality
/// operator, a constant on the right, a key path of plain keys (no `@` operators) on the left. The object answers
/// nil where its property is not a plain attribute at the end and to-one relationships before it (a to-many, a
/// composite, data kept outside the store, a key it lacks), and the general evaluator then runs.
@usableFromInline package final class CompiledComparison: Sendable {
    /// The left key path, split once (shared by every comparison made from the same format string).
    private let keyPath: SplitKeyPath
    /// The keys of the left key path, in order.
    package var keys: [String] { keyPath.keys }
    /// The operator: `==`, `!=`, `<`, `<=`, `>` or `>=`.
    @usableFromInline package let `operator`: QueryComparison.Operator
    /// The string comparison options.
    package let options: QueryComparison.Options
    /// The right side's constant.
    package let constant: AttributeValue
    /// The position of the last key (the key count less one).
    @usableFromInline package let lastKeyPosition: Int
    /// The constant of an `==` or `!=` comparison of strings that `String`'s own `==` decides (no `[c]` or `[d]`):
    /// an object compares its stored string with it in place (no ``AttributeValue`` copied out), nil otherwise.
    @usableFromInline package let equalityString: String?
    /// ``equalityString``'s UTF-8 bytes when they are all ASCII: a string kept as bytes (a packed row) is compared
    /// with them byte for byte, for an ASCII string is canonically equivalent to no other string of ASCII bytes.
    @usableFromInline package let equalityASCII: [UInt8]?
    /// The prepared form of a comparison, or nil when it is not a key path compared with a constant.
    init?(
        keyPath: SplitKeyPath?,
        operator: QueryComparison.Operator,
        right: QueryExpression,
        modifier: QueryComparison.Modifier,
        options: QueryComparison.Options
    ) {
        guard modifier == .direct, let keyPath, keyPath.isPlain else { return nil }
        switch `operator` {
        case .equalTo, .notEqualTo, .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo: break
        default: return nil
        }
        guard case .constant(let constant) = right else { return nil }
        self.keyPath = keyPath
        self.lastKeyPosition = keyPath.keys.count - 1
        self.operator = `operator`
        self.options = options
        self.constant = constant
        if `operator` == .equalTo || `operator` == .notEqualTo, options.isDisjoint(with: [.caseInsensitive, .diacriticInsensitive]),
            case .string(let string) = constant
        {
            equalityString = string
            let bytes = Array(string.utf8)
            equalityASCII = bytes.allSatisfy { $0 < 0x80 } ? bytes : nil
        } else {
            equalityString = nil
            equalityASCII = nil
        }
    }

    /// The first key's attribute slot with the ``EntityDescription/layoutSerial`` of the entity it was found in,
    /// as ``SplitKeyPath`` remembers the first key's index (the slot plus one in the low 16 bits, the serial above
    /// them; zero before the first lookup), kept only when the key is an attribute.
    @usableFromInline let rememberedAttributeSlot = Atomic<UInt64>(0)

    /// The attribute slot of the first key in `entity` (its property index, attributes coming first), nil when it
    /// is not one of the entity's attributes (a relationship, a key the entity lacks, an entity not frozen).
    ///
    /// Inlined into the object's evaluation (``ManagedObject``'s compiled match), which asks it for every object an
    /// import looks a record up among: once remembered, one load and compare, with no call into this module and no
    /// second question of whether the index is an attribute's.
    @inlinable @inline(__always)
    package func firstKeyAttributeSlot(in entity: EntityDescription) -> Int? {
        let serial = entity.layoutSerial
        let remembered = rememberedAttributeSlot.load(ordering: .relaxed)
        if remembered >> 16 == serial, remembered & 0xFFFF != 0 { return Int(truncatingIfNeeded: remembered & 0xFFFF) &- 1 }
        return resolveFirstKeyAttributeSlot(in: entity, serial: serial)
    }

    /// ``firstKeyAttributeSlot(in:)`` found by ``propertyIndex(ofKeyAt:in:)``, remembered when the entity is frozen
    /// (its serial is not 0), the serial leaves 16 bits for the slot, and the key is an attribute.
    @usableFromInline @inline(never)
    func resolveFirstKeyAttributeSlot(in entity: EntityDescription, serial: UInt64) -> Int? {
        guard let index = propertyIndex(ofKeyAt: 0, in: entity), index < entity.frozenAttributeCount else { return nil }
        if serial != 0, serial >> 48 == 0, index < 0xFFFF {
            rememberedAttributeSlot.store(serial << 16 | UInt64(index + 1), ordering: .relaxed)
        }
        return index
    }

    /// The index of the key at `position` among the entity's properties (attributes first, by slot, then
    /// relationships), as `ManagedObject.predicateValue(forKey:)` finds it; nil for a key the entity does not have
    /// or an entity not frozen.
    ///
    /// The first key's index is remembered by the split key path, which comparisons parsed from the same format
    /// share (``SplitKeyPath/firstKeyIndex(in:)``).
    @inline(__always)
    package func propertyIndex(ofKeyAt position: Int, in entity: EntityDescription) -> Int? {
        if position == 0 { return keyPath.firstKeyIndex(in: entity) }
        return entity.propertyIndex(forKey: keyPath.keys[position], words: keyPath.words[position])
    }

    /// Whether the value at the end of the key path satisfies the comparison: the general evaluator's answer for
    /// the same value (both ask ``PredicateEvaluator``'s `equal` and `order` of attribute values).
    @inline(__always)
    package func matches(_ value: AttributeValue) -> Bool {
        switch `operator` {
        case .equalTo:
            return PredicateEvaluator.equal(value, constant, options)
        case .notEqualTo:
            return !PredicateEvaluator.equal(value, constant, options)
        case .lessThan:
            return PredicateEvaluator.order(value, constant, options) == .orderedAscending
        case .lessThanOrEqualTo:
            return PredicateEvaluator.order(value, constant, options).map { $0 != .orderedDescending } ?? false
        case .greaterThan:
            return PredicateEvaluator.order(value, constant, options) == .orderedDescending
        case .greaterThanOrEqualTo:
            return PredicateEvaluator.order(value, constant, options).map { $0 != .orderedAscending } ?? false
        default:
            // Not prepared (see the initializer).
            return false
        }
    }
}

extension QueryPredicate {
    /// The compiled form of the predicate when it is one comparison that has one (``CompiledComparison``).
    /// Inlinable: asked once for every object a predicate is evaluated on, and read in place where inlined.
    @inlinable package var compiledComparison: CompiledComparison? {
        guard case .comparison(let comparison) = self else { return nil }
        return comparison.compiled
    }
}
