import QuireCore
import QuireStores
import Foundation

extension SQLDialect {
    /// PostgreSQL's dialect: `$1::type` parameters, booleans, `IS NOT DISTINCT FROM`; identifiers folded to lower
    /// case (so the tables read like Core Data's unquoted DDL: `SELECT zname FROM zemployee`); strings ordered by
    /// the `quire_fold` function its schema defines (``PostgresDialect/functionStatements``), nil first in
    /// ascending order and ties in primary-key order, as SQLite and the in-memory sort give them.
    package static let postgres = SQLDialect(
        name: "PostgreSQL",
        quote: { SQLDialect.quoteRaw($0.lowercased()) },
        foldsIdentifiers: true,
        numberedParameter: { index, value in
            // `$n` cast to the type of the value's column form, so the server never has to guess its type.
            switch value {
            case .null: return "$\(index)::TEXT"
            case .integer, .boolean: return "$\(index)::BIGINT"
            case .double, .float, .decimal, .date: return "$\(index)::DOUBLE PRECISION"
            case .string, .uri: return "$\(index)::TEXT"
            case .data, .uuid, .externalData: return "$\(index)::BYTEA"
            }
        },
        positionalParameter: { "$\($0)" },
        columnParameter: { index, declared in "$\(index)::\(PostgresDialect.columnType(declared))" },
        alwaysTrue: "TRUE", alwaysFalse: "FALSE", ifNull: "COALESCE", isSame: ("IS NOT DISTINCT FROM", "IS DISTINCT FROM"),
        realType: "DOUBLE PRECISION",
        total: { "COALESCE(SUM(\($0))::DOUBLE PRECISION, 0)" },
        average: { "AVG(CAST(\($0) AS DOUBLE PRECISION))" },
        now: "(EXTRACT(EPOCH FROM statement_timestamp())::DOUBLE PRECISION - 978307200)",
        swiftFunctionCall: nil,
        divisionByZeroIsNull: false,
        jsonList: nil,
        keyList: (
            text: { "{" + $0.map(String.init).joined(separator: ",") + "}" },
            condition: { "\($0) = ANY(\($1)::BIGINT[])" }
        ),
        stringOrder: { sql, comparator in
            switch comparator {
            case .compare, .localizedCompare: return sql
            case .caseInsensitiveCompare, .localizedCaseInsensitiveCompare: return "quire_fold(\(sql), 1)"
            case .localizedStandardCompare: return "quire_fold(\(sql), 3)"
            }
        },
        orderDirections: (" ASC NULLS FIRST", " DESC NULLS LAST"),
        keyOrder: "t0.z_pk",
        ordersOnlyBySelected: true,
        noLimit: .null,
        namesConflictColumns: true)
}

/// What PostgreSQL needs beyond ``SQLDialect/postgres``: bound values, column types, and the SQL functions a
/// store's schema defines so that compiled predicates judge strings as the in-memory evaluator does.
package enum PostgresDialect {
    /// A string literal (for DDL only; values are always parameters).
    package static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// A bound value in the form its parameter (``SQLDialect/parameter(_:for:)``) and its column take.
    package static func value(_ value: AttributeValue, externalFormat: Bool = false) -> PostgresConnection.Value {
        switch value {
        case .null: return .null
        case .integer(let v): return .integer(v)
        case .boolean(let v): return .integer(v ? 1 : 0)
        case .double(let v): return .double(v)
        case .float(let v): return .double(Double(v))
        case .decimal(let v): return .numeric("\(v)")
        case .date(let v): return .double(v.timeIntervalSinceReferenceDate)
        case .string(let v): return .text(v)
        case .uri(let v): return .text(v.absoluteString)
        case .data(let v):
            guard externalFormat else { return .bytes(v) }
            var framed = Data([0x01])
            framed.append(v)
            return .bytes(framed)
        case .uuid(let v): return .bytes(Data(withUnsafeBytes(of: v.uuid) { Array($0) }))
        case .externalData(let v): return .bytes(ExternalDataFormat.externalColumn(v.uuid))
        }
    }

    /// A compiled predicate's bindings as parameters (decimals were bound as doubles by the compiler).
    package static func values(_ bindings: [AttributeValue]) -> [PostgresConnection.Value] {
        bindings.map { binding in
            if case .decimal(let d) = binding { return .double(NSDecimalNumber(decimal: d).doubleValue) }
            return value(binding)
        }
    }

    /// The column type of an SQLite declared type: integers (Booleans 0/1) `BIGINT`, reals and dates (seconds
    /// since 2001) `DOUBLE PRECISION`, decimals `NUMERIC`, text `TEXT COLLATE "C"` (byte order, as SQLite's
    /// `BINARY`), blobs `BYTEA`.
    package static func columnType(_ sqliteType: String) -> String {
        switch sqliteType {
        case "INTEGER": return "BIGINT"
        case "FLOAT", "TIMESTAMP": return "DOUBLE PRECISION"
        case "DECIMAL": return "NUMERIC"
        case "VARCHAR": return "TEXT COLLATE \"C\""
        default: return "BYTEA"
        }
    }

    /// The functions compiled predicates call, created in each store's schema: `quire_fold(text, flags)`
    /// (flag 1 `[c]`: lower case; flag 2 `[d]`: accents removed; then NFC), `quire_string(op, text, pattern,
    /// flags)` (1 `BEGINSWITH`, 2 `ENDSWITH`, 3 `CONTAINS`, 4 `LIKE` with `*` and `?`) and
    /// `quire_matches(text, pattern, flags)` (the whole text matches the regular expression; `.` does not match a
    /// newline, as in ICU). Each store's schema gets them when it is created.
    package static let functionStatements: [String] = [
        """
        CREATE OR REPLACE FUNCTION quire_fold(t TEXT, f INTEGER) RETURNS TEXT LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT normalize(CASE WHEN f & 1 <> 0 THEN lower(d COLLATE "C.utf8") ELSE d END, NFC)
          FROM (SELECT CASE WHEN f & 2 <> 0 THEN regexp_replace(normalize(t, NFD), '[\\u0300-\\u036f]', '', 'g') ELSE t END AS d) s
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION quire_like_pattern(p TEXT) RETURNS TEXT LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
        DECLARE r TEXT := ''; i INTEGER := 1; n INTEGER := length(p); c TEXT; d TEXT;
        BEGIN
          WHILE i <= n LOOP
            c := substr(p, i, 1);
            IF c = '\\' AND i < n THEN
              d := substr(p, i + 1, 1);
              r := r || CASE WHEN d IN ('%', '_', '\\') THEN '\\' || d ELSE d END;
              i := i + 2;
              CONTINUE;
            ELSIF c = '*' THEN r := r || '%';
            ELSIF c = '?' THEN r := r || '_';
            ELSIF c IN ('%', '_', '\\') THEN r := r || '\\' || c;
            ELSE r := r || c;
            END IF;
            i := i + 1;
          END LOOP;
          RETURN r;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION quire_string(op INTEGER, t TEXT, p TEXT, f INTEGER) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT CASE op
            WHEN 1 THEN starts_with(a, b)
            WHEN 2 THEN right(a, length(b)) = b
            WHEN 3 THEN strpos(a, b) > 0
            ELSE a LIKE quire_like_pattern(b)
          END
          FROM (SELECT quire_fold(t, f) AS a, quire_fold(p, f) AS b) s
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION quire_matches(t TEXT, p TEXT, f INTEGER) RETURNS BOOLEAN LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
          SELECT CASE WHEN f & 1 <> 0 THEN quire_fold(t, f & 2) ~* ('(?p)^(?:' || quire_fold(p, f & 2) || ')$')
                 ELSE quire_fold(t, f & 2) ~ ('(?p)^(?:' || quire_fold(p, f & 2) || ')$') END
        $$
        """,
    ]
}
