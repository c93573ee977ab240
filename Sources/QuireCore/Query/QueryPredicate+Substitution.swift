import QuireSupport
import Foundation

extension QueryPredicate {
    /// The predicate with its `$VARIABLES` replaced by constants, as
    /// `-[NSPredicate predicateWithSubstitutionVariables:]` does.
    ///
    /// A nil value (`Optional<Any>.none`, `NSNull` or ``AttributeValue/null``) becomes `nil`, so the comparison
    /// becomes a nil test. Variables bound by a `SUBQUERY` inside the predicate are left alone.
    ///
    /// ```swift
    /// let template = try QueryPredicate(format: "name == $NAME AND age > $AGE")
    /// let p = try template.withSubstitutionVariables(["NAME": "Ann", "AGE": 30])   // name == "Ann" AND age > 30
    /// ```
    ///
    /// - Parameter variables: The values, by variable name (without `$`), converted as format arguments are.
    /// - Returns: The predicate with constants in place of the variables.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` naming a variable that has no value, or whose value
    ///   has no constant form.
    public func withSubstitutionVariables(_ variables: [String: Any]) throws -> QueryPredicate {
        var substitution = PredicateSubstitution(variables: variables)
        return try substitution.apply(to: self)
    }

    /// The names of the `$VARIABLES` the predicate uses (subquery variables excluded), in order of appearance.
    public var substitutionVariableNames: [String] {
        var collector = PredicateVariableCollector()
        collector.collect(self)
        return collector.names
    }
}

extension QueryExpression {
    /// The expression with its `$VARIABLES` replaced by constants (see
    /// ``QueryPredicate/withSubstitutionVariables(_:)``).
    ///
    /// - Parameter variables: The values, by variable name (without `$`).
    /// - Returns: The expression with constants in place of the variables.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` naming a variable that has no value.
    public func withSubstitutionVariables(_ variables: [String: Any]) throws -> QueryExpression {
        var substitution = PredicateSubstitution(variables: variables)
        return try substitution.apply(to: self)
    }
}

/// Replaces variables with constants, leaving variables bound by subqueries alone.
private struct PredicateSubstitution {
    let variables: [String: Any]
    /// Variables bound by the subqueries being walked.
    var bound: [String] = []

    mutating func apply(to predicate: QueryPredicate) throws -> QueryPredicate {
        switch predicate {
        case .true, .false:
            return predicate
        case .comparison(var comparison):
            comparison.left = try apply(to: comparison.left)
            comparison.right = try apply(to: comparison.right)
            return .comparison(comparison)
        case .and(let operands):
            return .and(try operands.map { try apply(to: $0) })
        case .or(let operands):
            return .or(try operands.map { try apply(to: $0) })
        case .not(let operand):
            return .not(try apply(to: operand))
        }
    }

    mutating func apply(to expression: QueryExpression) throws -> QueryExpression {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .keyPath:
            return expression
        case .member(let base, let keyPath):
            return .member(try apply(to: base), keyPath: keyPath)
        case .variable(let name):
            if bound.contains(name) { return expression }
            guard let value = variables[name] else {
                throw QuireError(.predicateEvaluation, "No value was given for the substitution variable $\(name).")
            }
            guard let constant = PredicateConstantConverter.expression(for: value) else {
                throw QuireError(
                    .predicateEvaluation,
                    "The value for the substitution variable $\(name) has the type '\(type(of: value))', "
                        + "which has no constant form."
                )
            }
            return constant
        case .aggregate(let aggregate, let collection, let keyPath):
            return .aggregate(aggregate, try apply(to: collection), keyPath: keyPath)
        case .subquery(let collection, let variable, let predicate):
            let newCollection = try apply(to: collection)
            bound.append(variable)
            defer { bound.removeLast() }
            return .subquery(collection: newCollection, variable: variable, predicate: try apply(to: predicate))
        case .array(let elements):
            return .array(try elements.map { try apply(to: $0) })
        case .cast(let value, let type):
            return PredicateCast.fold(try apply(to: value), to: type)
        case .function(let function, let arguments):
            return .function(function, try arguments.map { try apply(to: $0) })
        }
    }
}

/// Collects the names of free variables.
private struct PredicateVariableCollector {
    var names: [String] = []
    var bound: [String] = []

    mutating func collect(_ predicate: QueryPredicate) {
        switch predicate {
        case .true, .false: break
        case .comparison(let comparison):
            collect(comparison.left)
            collect(comparison.right)
        case .and(let operands), .or(let operands):
            for operand in operands { collect(operand) }
        case .not(let operand):
            collect(operand)
        }
    }

    mutating func collect(_ expression: QueryExpression) {
        switch expression {
        case .constant, .objectID, .evaluatedObject, .keyPath: break
        case .member(let base, _): collect(base)
        case .variable(let name):
            if !bound.contains(name), !names.contains(name) { names.append(name) }
        case .aggregate(_, let collection, _): collect(collection)
        case .subquery(let collection, let variable, let predicate):
            collect(collection)
            bound.append(variable)
            collect(predicate)
            bound.removeLast()
        case .array(let elements):
            for element in elements { collect(element) }
        case .cast(let value, _): collect(value)
        case .function(_, let arguments):
            for argument in arguments { collect(argument) }
        }
    }
}
