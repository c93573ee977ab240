import QuireSupport
import Foundation
import Synchronization

/// A comparison of two expressions, Core Data's `NSComparisonPredicate`.
///
/// `ANY tags.name ==[c] "swift"` is
/// `QueryComparison(.keyPath("tags.name"), .equalTo, .constant(.string("swift")), modifier: .any,
/// options: .caseInsensitive)`.
public struct QueryComparison: Hashable, Sendable {
    /// How the comparison treats a collection on its left side (`ANY`, `ALL`, `NONE`, or none of them).
    public enum Modifier: Hashable, Sendable, CaseIterable {
        /// No modifier: the left value is compared as it is. A collection on the left (a key path through a
        /// to-many relationship) is compared as with ``any``, as Core Data's stores do.
        case direct
        /// True when the comparison holds for some element of the left collection (`ANY`, `SOME`).
        case any
        /// True when the comparison holds for every element of the left collection (`ALL`); true when empty.
        case all
        /// True when the comparison holds for no element of the left collection (`NONE`).
        case none
    }

    /// The comparison operator.
    public enum Operator: Hashable, Sendable, CaseIterable {
        /// `==` (also `=`).
        case equalTo
        /// `!=` (also `<>`).
        case notEqualTo
        /// `<`.
        case lessThan
        /// `<=` (also `=<`).
        case lessThanOrEqualTo
        /// `>`.
        case greaterThan
        /// `>=` (also `=>`).
        case greaterThanOrEqualTo
        /// `MATCHES`: the left string matches the right ICU regular expression as a whole.
        case matches
        /// `LIKE`: the left string matches the right pattern, where `*` matches any run of characters, `?`
        /// one character, and a backslash escapes the next character.
        case like
        /// `BEGINSWITH`: the left string begins with the right string.
        case beginsWith
        /// `ENDSWITH`: the left string ends with the right string.
        case endsWith
        /// `IN`: the left value is an element of the right collection (or a substring of the right string).
        case `in`
        /// `CONTAINS`: the left collection has the right value as an element (or the left string has the
        /// right string as a substring).
        case contains
        /// `BETWEEN`: the left value lies between the two values of the right collection, bounds included.
        case between

        /// The operator as the printer writes it: `==`, `BEGINSWITH`, …
        public var symbol: String {
            switch self {
            case .equalTo: return "=="
            case .notEqualTo: return "!="
            case .lessThan: return "<"
            case .lessThanOrEqualTo: return "<="
            case .greaterThan: return ">"
            case .greaterThanOrEqualTo: return ">="
            case .matches: return "MATCHES"
            case .like: return "LIKE"
            case .beginsWith: return "BEGINSWITH"
            case .endsWith: return "ENDSWITH"
            case .in: return "IN"
            case .contains: return "CONTAINS"
            case .between: return "BETWEEN"
            }
        }

        /// True for the operators that compare strings (`MATCHES`, `LIKE`, `BEGINSWITH`, `ENDSWITH`).
        public var isStringOperator: Bool {
            switch self {
            case .matches, .like, .beginsWith, .endsWith: return true
            default: return false
            }
        }
    }

    /// String comparison options, written in brackets after the operator: `[c]`, `[d]`, `[cd]`, `[n]`.
    public struct Options: OptionSet, Hashable, Sendable {
        /// The raw bits.
        public var rawValue: UInt8

        /// Creates options from raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// `[c]`: letters compare regardless of case.
        public static let caseInsensitive = Options(rawValue: 1 << 0)
        /// `[d]`: letters compare regardless of diacritics (`é` equals `e`).
        public static let diacriticInsensitive = Options(rawValue: 1 << 1)
        /// `[n]`: the strings are already normalized. Swift strings always compare by canonical equivalence,
        /// so this only records the flag.
        public static let normalized = Options(rawValue: 1 << 2)
        /// `[l]`: locale-sensitive comparison. Quire compares deterministically, so this only records the flag.
        public static let localeSensitive = Options(rawValue: 1 << 3)

        /// The option letters in canonical order (`cdnl`), empty when there are none.
        public var letters: String {
            var result = ""
            if contains(.caseInsensitive) { result += "c" }
            if contains(.diacriticInsensitive) { result += "d" }
            if contains(.normalized) { result += "n" }
            if contains(.localeSensitive) { result += "l" }
            return result
        }

        /// The option for one letter of a bracketed option list (`c`, `d`, `n` or `l`, any case).
        package init?(letter: Character) {
            switch letter {
            case "c", "C": self = .caseInsensitive
            case "d", "D": self = .diacriticInsensitive
            case "n", "N": self = .normalized
            case "l", "L": self = .localeSensitive
            default: return nil
            }
        }
    }

    /// The comparison's expressions and what is prepared from them, in one allocation, never changed once made (a
    /// change of the comparison makes new parts): copying a comparison, as matching a predicate's case does for
    /// every object a predicate is evaluated on, retains one reference rather than one per expression.
    @usableFromInline final class Parts: Sendable {
        let left: QueryExpression
        let right: QueryExpression
        /// The left expression's key path split into its keys, when it is a key path.
        let leftKeyPath: SplitKeyPath?
        /// The comparison prepared for objects that read their properties by slot.
        @usableFromInline let compiled: CompiledComparison?

        init(
            left: QueryExpression, right: QueryExpression, leftKeyPath: SplitKeyPath?, operator: Operator,
            modifier: Modifier, options: Options, prepared: Bool = true
        ) {
            self.left = left
            self.right = right
            self.leftKeyPath = leftKeyPath
            self.compiled =
                prepared
                ? CompiledComparison(keyPath: leftKeyPath, operator: `operator`, right: right, modifier: modifier, options: options)
                : nil
        }
    }

    /// Inlinable, with ``compiled``, so that evaluating a compiled comparison on an object reads it in place.
    @usableFromInline private(set) var parts: Parts

    /// The left expression.
    public var left: QueryExpression {
        get { parts.left }
        set { prepare(left: newValue, right: parts.right, leftKeyPath: SplitKeyPath(newValue)) }
    }
    /// The left expression's key path split into its keys, once, when the left expression is a key path: what
    /// in-memory evaluation follows for every object (not part of the comparison's value).
    package var leftKeyPath: SplitKeyPath? { parts.leftKeyPath }
    /// The comparison prepared for objects that read their properties by slot, when it compares a key path with
    /// a constant (not part of the comparison's value).
    @inlinable package var compiled: CompiledComparison? { parts.compiled }
    /// The operator.
    public var `operator`: Operator {
        didSet { prepare(left: parts.left, right: parts.right, leftKeyPath: parts.leftKeyPath) }
    }
    /// The right expression.
    public var right: QueryExpression {
        get { parts.right }
        set { prepare(left: parts.left, right: newValue, leftKeyPath: parts.leftKeyPath) }
    }
    /// How a collection on the left is treated.
    public var modifier: Modifier {
        didSet { prepare(left: parts.left, right: parts.right, leftKeyPath: parts.leftKeyPath) }
    }
    /// The string comparison options.
    public var options: Options {
        didSet { prepare(left: parts.left, right: parts.right, leftKeyPath: parts.leftKeyPath) }
    }

    /// Creates a comparison.
    ///
    /// ```swift
    /// let c = QueryComparison(.keyPath("age"), .greaterThan, .constant(.integer(30)))
    /// ```
    ///
    /// - Parameters:
    ///   - left: The left expression.
    ///   - operator: The operator.
    ///   - right: The right expression.
    ///   - modifier: How a collection on the left is treated; ``Modifier/direct`` by default.
    ///   - options: The string comparison options; none by default.
    public init(
        _ left: QueryExpression,
        _ operator: Operator,
        _ right: QueryExpression,
        modifier: Modifier = .direct,
        options: Options = []
    ) {
        self.operator = `operator`
        self.modifier = modifier
        self.options = options
        self.parts = Parts(
            left: left, right: right, leftKeyPath: SplitKeyPath(left), operator: `operator`, modifier: modifier,
            options: options)
    }

    /// A comparison without modifier or options whose left key path was split before (a format string parsed
    /// before, ``PredicateTokenCache``): `leftKeyPath` must be the split of `left`.
    init(_ left: QueryExpression, _ operator: Operator, _ right: QueryExpression, leftKeyPath: SplitKeyPath) {
        self.operator = `operator`
        self.modifier = .direct
        self.options = []
        self.parts = Parts(
            left: left, right: right, leftKeyPath: leftKeyPath, operator: `operator`, modifier: .direct, options: [])
    }

    /// The comparison with other expressions on its sides (nil keeps a side), the same operator, modifier and
    /// options, made in one step and not prepared for evaluation in memory: ``compiled`` is nil, so evaluating it
    /// takes the general evaluator, which gives the same answers. An SQL store keys its cache of statements by
    /// such a comparison (``SQLPredicateShape``) and makes one for every fetch: setting ``left`` and ``right``
    /// in turn would split the key path again and prepare the comparison twice. The left key path's split is
    /// kept when the left side is.
    package func replacingSides(left: QueryExpression?, right: QueryExpression?) -> QueryComparison {
        QueryComparison(
            parts: Parts(
                left: left ?? parts.left, right: right ?? parts.right,
                leftKeyPath: left.map { SplitKeyPath($0) } ?? parts.leftKeyPath, operator: `operator`, modifier: modifier,
                options: options, prepared: false),
            operator: `operator`, modifier: modifier, options: options)
    }

    private init(parts: Parts, operator: Operator, modifier: Modifier, options: Options) {
        self.operator = `operator`
        self.modifier = modifier
        self.options = options
        self.parts = parts
    }

    /// Makes the parts again for the comparison's current operator, modifier and options.
    private mutating func prepare(left: QueryExpression, right: QueryExpression, leftKeyPath: SplitKeyPath?) {
        parts = Parts(
            left: left, right: right, leftKeyPath: leftKeyPath, operator: `operator`, modifier: modifier,
            options: options)
    }

    /// Comparisons are equal when their expressions, operator, modifier and options are.
    public static func == (lhs: QueryComparison, rhs: QueryComparison) -> Bool {
        lhs.left == rhs.left && lhs.operator == rhs.operator && lhs.right == rhs.right && lhs.modifier == rhs.modifier
            && lhs.options == rhs.options
    }

    /// Hashes the expressions, operator, modifier and options.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(left)
        hasher.combine(`operator`)
        hasher.combine(right)
        hasher.combine(modifier)
        hasher.combine(options)
    }
}

/// A key path split into its keys once, so that evaluating a comparison in memory over many objects does not split
/// it again for each (`QueryComparison.leftKeyPath`). Immutable: comparisons parsed from the same format string
/// share one (``PredicateTokenCache``).
package final class SplitKeyPath: Sendable {
    /// The keys, in order.
    package let keys: [String]
    /// The first key's index plus one in the low 16 bits, the ``EntityDescription/layoutSerial`` of the entity it
    /// was found in above them; zero before the first lookup. One word, so that a reader never pairs one entity's
    /// serial with another's index; serials are never reused, so nothing needs to be kept alive for them.
    private let rememberedFirstKey = Atomic<UInt64>(0)
    /// The words of each key, compared with the words of an entity's property names (``CompiledComparison``).
    let words: [StringWords]
    /// Whether every key is a plain key (not empty, no `@` operator): what ``CompiledComparison`` follows.
    let isPlain: Bool

    /// The keys of a key-path expression; nil for other expressions.
    package init?(_ expression: QueryExpression) {
        guard case .keyPath(let keyPath) = expression else { return nil }
        let keys = QueryExpression.components(of: keyPath)
        self.keys = keys
        words = keys.map(StringWords.init)
        isPlain = !keys.isEmpty && keys.allSatisfy { !$0.isEmpty && !$0.hasPrefix("@") }
    }

    /// The index of the first key among `entity`'s properties, as ``EntityDescription/propertyIndex(forKey:words:)``
    /// finds it, remembered with the entity it was found in: a predicate evaluated on every registered object of an
    /// import finds its key by one load and compare instead of a search of the entity's property names.
    @inline(__always)
    func firstKeyIndex(in entity: EntityDescription) -> Int? {
        let serial = entity.layoutSerial
        let remembered = rememberedFirstKey.load(ordering: .relaxed)
        if remembered >> 16 == serial, remembered & 0xFFFF != 0 { return Int(remembered & 0xFFFF) - 1 }
        return resolveFirstKey(in: entity, serial: serial)
    }

    /// The first key's index in `entity`, found by name and remembered when the entity's layout is final and the
    /// index fits.
    @inline(never)
    private func resolveFirstKey(in entity: EntityDescription, serial: UInt64) -> Int? {
        guard let index = entity.propertyIndex(forKey: keys[0], words: words[0]) else { return nil }
        // Only a frozen entity's indexes never change (a found index says it is frozen; its serial is not 0); the
        // serial must leave 16 bits for the index.
        if serial != 0, serial >> 48 == 0, index < 0xFFFF {
            rememberedFirstKey.store(serial << 16 | UInt64(index + 1), ordering: .relaxed)
        }
        return index
    }
}
