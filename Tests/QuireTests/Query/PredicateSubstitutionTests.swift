import Foundation
import Testing

import Quire

@Suite("Predicate substitution variables")
struct PredicateSubstitutionTests {
    @Test("Replaces variables with constants")
    func substitutes() throws {
        let template = try QueryPredicate(format: "name == $NAME AND age > $AGE AND tag IN $TAGS")
        #expect(template.substitutionVariableNames == ["NAME", "AGE", "TAGS"])
        let predicate = try template.withSubstitutionVariables([
            "NAME": "Ann", "AGE": 30, "TAGS": ["a", "b"], "EXTRA": 1,
        ])
        #expect(predicate == (try QueryPredicate(format: #"name == "Ann" AND age > 30 AND tag IN {"a", "b"}"#)))
        #expect(predicate.substitutionVariableNames.isEmpty)
    }

    @Test("Makes a nil value a nil test")
    func nilValues() throws {
        let template = try QueryPredicate(format: "nickname == $NICK")
        let expected = try QueryPredicate(format: "nickname == nil")
        #expect(try template.withSubstitutionVariables(["NICK": Optional<Any>.none as Any]) == expected)
        #expect(try template.withSubstitutionVariables(["NICK": AttributeValue.null]) == expected)
        #expect(try template.withSubstitutionVariables(["NICK": NSNull()]) == expected)
        let graph = PredicateTestGraph()
        #expect(
            try template.withSubstitutionVariables(["NICK": Optional<String>.none as Any]).evaluate(with: graph.ann))
        #expect(try template.evaluate(with: graph.ann, substitutionVariables: ["NICK": Optional<Any>.none as Any]))
        #expect(try !template.evaluate(with: graph.bob, substitutionVariables: ["NICK": AttributeValue.null]))
    }

    @Test("Names a missing variable")
    func missing() throws {
        let template = try QueryPredicate(format: "firstName == $NAME OR age > $AGE")
        let error = #expect(throws: QuireError.self) { try template.withSubstitutionVariables(["NAME": "Ann"]) }
        #expect(error?.code == .predicateEvaluation)
        #expect(error?.message == "No value was given for the substitution variable $AGE.")
        let evaluationError = #expect(throws: QuireError.self) {
            try template.evaluate(with: PredicateTestGraph().bob, substitutionVariables: ["NAME": "Ann"])
        }
        #expect(evaluationError?.message == "No value was given for the substitution variable $AGE.")
    }

    @Test("Rejects a value without a constant form")
    func unsupported() throws {
        struct Opaque {}
        let template = try QueryPredicate(format: "a == $X")
        let error = #expect(throws: QuireError.self) { try template.withSubstitutionVariables(["X": Opaque()]) }
        #expect(
            error?.message
                == "The value for the substitution variable $X has the type 'Opaque', which has no constant form.")
    }

    @Test("Leaves subquery variables alone")
    func subqueryVariables() throws {
        let template = try QueryPredicate(format: "SUBQUERY(publications, $p, $p.year > $YEAR).@count >= $N")
        #expect(template.substitutionVariableNames == ["YEAR", "N"])
        let predicate = try template.withSubstitutionVariables(["YEAR": 2016, "N": 2, "p": "ignored"])
        #expect(predicate.predicateFormat == "SUBQUERY(publications, $p, $p.year > 2016).@count >= 2")
        #expect(try predicate.evaluate(with: PredicateTestGraph().ann))
    }

    @Test("Substitutes inside every kind of expression")
    func everywhere() throws {
        let template = try QueryPredicate(
            format: "NOT ($A.x == 1) AND {$B, 2} CONTAINS 2 AND CAST($C, 'NSDate') > $D AND ALL $E.@count == 0"
        )
        let date = Date(timeIntervalSinceReferenceDate: 10)
        let predicate = try template.withSubstitutionVariables(["A": 5, "B": 1, "C": 20, "D": date, "E": [Int]()])
        #expect(
            predicate.predicateFormat
                == #"NOT 5.x == 1 AND {1, 2} CONTAINS 2 AND CAST(20.0, "NSDate") > CAST(10.0, "NSDate")"#
                + " AND ALL {}.@count == 0"
        )
    }

    @Test("Evaluates variables bound at evaluation, objects included")
    func evaluationVariables() throws {
        let graph = PredicateTestGraph()
        let predicate = try QueryPredicate(format: "ANY publications.author == $AUTHOR AND age > $MIN")
        #expect(try predicate.evaluate(with: graph.ann, substitutionVariables: ["AUTHOR": graph.ann, "MIN": 40]))
        #expect(try !predicate.evaluate(with: graph.ann, substitutionVariables: ["AUTHOR": graph.bob, "MIN": 40]))
        let inDictionary = try QueryPredicate(format: "$P.age == 30 AND $P.address.city == 'Oslo'")
        #expect(try inDictionary.evaluate(with: AttributeValue.null, substitutionVariables: ["P": graph.dana]))
    }
}
