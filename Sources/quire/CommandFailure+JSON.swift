import Foundation
import Quire

extension ExitStatus {
    /// The status in words, as the JSON form of an error names it.
    var name: String {
        switch self {
        case .success: return "success"
        case .differences: return "differences"
        case .usage: return "usage"
        case .unreadableInput: return "input"
        case .unwritableOutput: return "output"
        }
    }
}

extension CommandFailure {
    /// The failure as the JSON object commands print under `--json` (the CLI article, "JSON output"):
    /// `status` (the exit status), `kind` (`usage`, `input`, `output`), `message`, and when the library
    /// reported it, `file` and `code` (the ``QuireError/Code`` name and number, such as `fileReadCorruptFile (259)`).
    var jsonObject: [String: Any] {
        var object: [String: Any] = ["status": Int(status.rawValue), "kind": status.name, "message": message]
        if let error {
            object["code"] = error.code.description
            if let file = error.context.file { object["file"] = file.path }
        }
        return object
    }

    /// `{"error": {…}}`, pretty-printed with sorted keys.
    func jsonData() throws -> Data {
        try JSONSerialization.data(
            withJSONObject: ["error": jsonObject], options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
    }
}
