import Foundation

extension DerivationExpression {
    /// A string derivation's result, the one definition both the context (at save) and the SQLite functions Core Data's
    /// triggers call (`NSCoreDataCanonical`, `NSCoreDataToUpper`, `NSCoreDataToLower`) use, so the value an object gets
    /// and the value a trigger writes never differ.
    ///
    /// `canonical:` folds case, diacritics and width and lower-cases (Core Data's normalized form for search).
    package static func apply(_ function: StringFunction, to text: String) -> String {
        switch function {
        case .lowercase: text.lowercased()
        case .uppercase: text.uppercased()
        case .canonical: text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil).lowercased()
        }
    }
}
