import QuireSupport
import Foundation

extension ManagedObjectModel {
    /// Stores a fetch request under a name (`setFetchRequestTemplate(_:forName:)`), or removes the template
    /// when `request` is nil. Only while the model is editable.
    ///
    /// ```swift
    /// let request = FetchRequest<ManagedObject>(entityName: "Publication")
    /// request.predicate = try QueryPredicate(format: "publicationDate > $DATE")
    /// model.setFetchRequestTemplate(request, forName: "publicationsSinceDate")
    /// ```
    ///
    /// - Parameters:
    ///   - request: The request; its parameters are copied, so changing it later changes nothing here.
    ///   - name: The template's name.
    public func setFetchRequestTemplate<Result>(_ request: FetchRequest<Result>?, forName name: String) {
        setFetchRequestTemplate(request.map { FetchRequestTemplate($0) }, forName: name)
    }

    /// Stores a template under a name, or removes it when `template` is nil. Only while the model is editable.
    ///
    /// - Parameters:
    ///   - template: The template.
    ///   - name: The template's name.
    public func setFetchRequestTemplate(_ template: FetchRequestTemplate?, forName name: String) {
        precondition(isEditable, "Can't modify a named fetch request in an immutable model.")
        fetchRequestTemplatesByName[name] = template
    }



    /// A new request from a template with its `$VARIABLES` replaced, for results of another type
    /// (`ObjectID`, `[String: Any]`, `Int`).
    ///
    /// - Parameters:
    ///   - name: The template's name.
    ///   - variables: A value for every variable of the predicate and the having predicate.
    ///   - type: The element type of the results.
    /// - Returns: A mutable request, nil when the model has no such template.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` naming a variable without a value.
    public func fetchRequestFromTemplate<Result>(
        withName name: String, substitutionVariables variables: [String: Any], as type: Result.Type
    ) throws -> FetchRequest<Result>? {
        guard var template = fetchRequestTemplatesByName[name] else { return nil }
        template.predicate = try template.predicate?.withSubstitutionVariables(variables)
        template.havingPredicate = try template.havingPredicate?.withSubstitutionVariables(variables)
        return template.makeRequest(of: type)
    }
}
