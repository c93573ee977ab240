import QuireSupport
import Foundation

extension QueryPredicate {
    /// Evaluates the predicate against an object in memory, as `-[NSPredicate evaluateWithObject:]` does.
    ///
    /// ```swift
    /// let p = try QueryPredicate(format: "ANY books.year > $YEAR")
    /// try p.evaluate(with: ["books": [["year": 2021]]], substitutionVariables: ["YEAR": 2020])   // true
    /// try QueryPredicate(format: "SELF BETWEEN {1, 10}").evaluate(with: AttributeValue.integer(5))  // true
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object `SELF` stands for: a managed object, a ``PredicateDictionary`` or
    ///     `[String: Any]`, an ``AttributeValue``, a ``PredicateValue``.
    ///   - substitutionVariables: Values for the predicate's `$VARIABLES`, converted as format arguments are.
    /// - Returns: Whether the object satisfies the predicate.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` for a missing variable, a key an object lacks, an
    ///   invalid `MATCHES` pattern, or an aggregate over values it cannot combine.
    public func evaluate(
        with object: some PredicateEvaluable,
        substitutionVariables: [String: Any] = [:]
    ) throws -> Bool {
        try evaluateInterpreted(with: object, substitutionVariables: substitutionVariables)
    }

    /// ``evaluate(with:substitutionVariables:)`` by the general evaluator, whatever the object's type (managed
    /// objects' own overload falls back to it where their compiled comparisons cannot answer).
    package func evaluateInterpreted(
        with object: some PredicateEvaluable,
        substitutionVariables: [String: Any]
    ) throws -> Bool {
        let evaluator = PredicateEvaluator(substitutionVariables: substitutionVariables)
        return try evaluator.evaluate(self, on: object.predicateSelfValue)
    }
}

extension QueryExpression {
    /// Evaluates the expression against an object in memory, as `-[NSExpression expressionValueWithObject:context:]`.
    ///
    /// ```swift
    /// try QueryExpression(format: "books.@count").value(with: ["books": [1, 2, 3]])   // .value(.integer(3))
    /// ```
    ///
    /// - Parameters:
    ///   - object: The object `SELF` stands for.
    ///   - substitutionVariables: Values for the expression's `$VARIABLES`.
    /// - Returns: The value: an attribute value, an object, or a collection.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` as `QueryPredicate.evaluate(with:substitutionVariables:)`.
    public func value(
        with object: some PredicateEvaluable,
        substitutionVariables: [String: Any] = [:]
    ) throws -> PredicateValue {
        let evaluator = PredicateEvaluator(substitutionVariables: substitutionVariables)
        return try evaluator.value(of: self, on: object.predicateSelfValue)
    }
}
