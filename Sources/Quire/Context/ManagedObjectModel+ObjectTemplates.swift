import QuireCore

extension ManagedObjectModel {
    /// The request stored under a name (`fetchRequestTemplate(forName:)`), or nil.
    ///
    /// The request belongs to the model: once the model is frozen (a coordinator uses it), changing the
    /// request stops with "Can't modify a named fetch request in an immutable model.", as in Core Data. Use
    /// ``fetchRequestFromTemplate(withName:substitutionVariables:)`` for a request of your own.
    ///
    /// - Parameter name: The template's name.
    /// - Returns: The request, with `$VARIABLES` left in its predicate.
    public func fetchRequestTemplate(forName name: String) -> FetchRequest<ManagedObject>? {
        guard let template = fetchRequestTemplatesByName[name] else { return nil }
        let request: FetchRequest<ManagedObject> = template.makeRequest()
        request.isImmutable = !isEditable
        return request
    }

    /// A new request from a template with its `$VARIABLES` replaced
    /// (`fetchRequestFromTemplate(withName:substitutionVariables:)`); nil when the model has no such template.
    ///
    /// ```swift
    /// let request = try model.fetchRequestFromTemplate(
    ///     withName: "publicationsForAuthorSinceDate",
    ///     substitutionVariables: ["FIRST_NAME": "Ann", "LAST_NAME": "Lee", "DATE": lastMonth])
    /// ```
    ///
    /// - Parameters:
    ///   - name: The template's name.
    ///   - variables: A value for every variable of the predicate and the having predicate.
    /// - Returns: A mutable request.
    /// - Throws: ``QuireError/Code/predicateEvaluation`` naming a variable without a value.
    public func fetchRequestFromTemplate(
        withName name: String, substitutionVariables variables: [String: Any]
    ) throws -> FetchRequest<ManagedObject>? {
        try fetchRequestFromTemplate(withName: name, substitutionVariables: variables, as: ManagedObject.self)
    }
}

extension FetchRequestTemplate {
    /// A new, mutable request for managed objects with the template's parameters.
    public func makeRequest() -> FetchRequest<ManagedObject> { makeRequest(of: ManagedObject.self) }
}
