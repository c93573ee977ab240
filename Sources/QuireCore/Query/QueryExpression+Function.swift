import QuireSupport
import Foundation

extension QueryExpression {
    /// A function of `NSExpression(forFunction:arguments:)`, named by its selector (`add:to:`, `lowercase:`,
    /// `now`): the argument count is the number of colons.
    ///
    /// Predicates write them as `name:(arguments)` (as Core Data prints them), `name(arguments)`, or for
    /// arithmetic with the operators `+`, `-`, `*`, `/` and `**`:
    ///
    /// ```swift
    /// let raise = try QueryPredicate(format: "salary * 12 > 100000 AND lowercase:(name) == 'ann'")
    /// let recent = try QueryPredicate(format: "born > now() - 86400")
    /// ```
    ///
    /// Numbers follow Core Data's (and SQLite's) arithmetic: integers give integers (`7 / 2` is 3) unless the
    /// result overflows, anything with a floating-point or decimal value gives a double; division or modulus by
    /// zero gives nil, as does an operation on nil. A date plus or minus a number of seconds is a date, and a date
    /// minus a date the seconds between them.
    public enum Function: String, Hashable, Sendable, CaseIterable, Codable {
        /// `sum:`: the sum of a collection's numbers (0 when empty).
        case sum = "sum:"
        /// `count:`: the number of elements of a collection.
        case count = "count:"
        /// `min:`: the smallest element of a collection (nil when empty).
        case min = "min:"
        /// `max:`: the largest element of a collection (nil when empty).
        case max = "max:"
        /// `average:`: the average of a collection's numbers (nil when empty).
        case average = "average:"
        /// `median:`: the middle number of a collection, or the average of the two middle ones (nil when empty).
        case median = "median:"
        /// `mode:`: the array of the values that occur most often in a collection, in order of first occurrence.
        case mode = "mode:"
        /// `stddev:`: the population standard deviation of a collection's numbers (nil when empty).
        case stddev = "stddev:"
        /// `add:to:` (`a + b`).
        case add = "add:to:"
        /// `from:subtract:` (`a - b`).
        case subtract = "from:subtract:"
        /// `multiply:by:` (`a * b`).
        case multiply = "multiply:by:"
        /// `divide:by:` (`a / b`): integer division (toward zero) when both are integers.
        case divide = "divide:by:"
        /// `modulus:by:`: the remainder, with the sign of the dividend (`fmod` for non-integers).
        case modulus = "modulus:by:"
        /// `sqrt:`: the square root, a double.
        case sqrt = "sqrt:"
        /// `log:`: the base-10 logarithm, a double.
        case log = "log:"
        /// `ln:`: the natural logarithm, a double.
        case ln = "ln:"
        /// `raise:toPower:` (`a ** b`): a double.
        case raise = "raise:toPower:"
        /// `exp:`: *e* to the power of the number, a double.
        case exp = "exp:"
        /// `ceiling:`: the smallest integral value not less than the number, a double.
        case ceiling = "ceiling:"
        /// `abs:`: the absolute value, of the number's own kind.
        case abs = "abs:"
        /// `trunc:`: the integral value nearest the number toward zero, a double.
        case trunc = "trunc:"
        /// `floor:`: the largest integral value not greater than the number, a double.
        case floor = "floor:"
        /// `random`: a random double in 0..<1.
        case random = "random"
        /// `randomn:`: a random integer in 0..<n (the documentation's `random:` is read as this).
        case randomn = "randomn:"
        /// `now`: the current date.
        case now = "now"
        /// `uppercase:`: the string in upper case (Unicode's full mapping, as `-[NSString uppercaseString]`).
        case uppercase = "uppercase:"
        /// `lowercase:`: the string in lower case (Unicode's full mapping, as `-[NSString lowercaseString]`).
        case lowercase = "lowercase:"
        /// `bitwiseAnd:with:`: of the two numbers as 64-bit integers.
        case bitwiseAnd = "bitwiseAnd:with:"
        /// `bitwiseOr:with:`: of the two numbers as 64-bit integers.
        case bitwiseOr = "bitwiseOr:with:"
        /// `bitwiseXor:with:`: of the two numbers as 64-bit integers.
        case bitwiseXor = "bitwiseXor:with:"
        /// `leftshift:by:`: of the first number as a 64-bit integer.
        case leftshift = "leftshift:by:"
        /// `rightshift:by:`: of the first number as a 64-bit integer (arithmetic shift).
        case rightshift = "rightshift:by:"
        /// `onesComplement:`: of the number as a 64-bit integer.
        case onesComplement = "onesComplement:"
        /// `noindex:`: the argument itself (a hint for Core Data's SQL, meaningless here).
        case noindex = "noindex:"
        /// `length:`: the length of a string in UTF-16 units (as `-[NSString length]`), or of data in bytes.
        case length = "length:"
        /// `castObject:toType:`: as `CAST(value, "type")`.
        case castObject = "castObject:toType:"
        /// `distanceToLocation:fromLocation:`: needs Core Location, which Quire does not have; evaluating it
        /// throws ``QuireError/Code/predicateEvaluation``.
        case distanceToLocation = "distanceToLocation:fromLocation:"

        /// The selector name, such as `add:to:`.
        public var name: String { rawValue }

        /// The number of arguments: the number of colons in the name.
        public var arity: Int { rawValue.reduce(0) { $1 == ":" ? $0 + 1 : $0 } }

        /// The function a name written in a format string stands for: the selector (`add:to:`), or a
        /// one-word name without its colon (`lowercase`, `now`); `random:` is `randomn:`.
        ///
        /// - Parameter name: The name as written.
        public init?(formatName name: String) {
            if name == "random:" {
                self = .randomn
                return
            }
            if let function = Self(rawValue: name) {
                self = function
                return
            }
            guard !name.contains(":"), let function = Self(rawValue: name + ":") else { return nil }
            self = function
        }

        /// True for the functions that reduce a collection to a value (`sum:`, `median:`, …).
        public var isAggregate: Bool {
            switch self {
            case .sum, .count, .min, .max, .average, .median, .mode, .stddev: return true
            default: return false
            }
        }

        /// True when the same arguments always give the same value (not `now` and the random functions).
        public var isDeterministic: Bool {
            switch self {
            case .now, .random, .randomn: return false
            default: return true
            }
        }

        /// The infix operator the function is written with in a format string (`+` for `add:to:`), if any.
        public var infixOperator: String? {
            switch self {
            case .add: return "+"
            case .subtract: return "-"
            case .multiply: return "*"
            case .divide: return "/"
            case .raise: return "**"
            default: return nil
            }
        }

        /// The aggregate the function shares its meaning with (`sum:` and `@sum`), if any.
        package var aggregate: Aggregate? {
            switch self {
            case .sum: return .sum
            case .count: return .count
            case .min: return .min
            case .max: return .max
            case .average: return .avg
            default: return nil
            }
        }
    }
}
