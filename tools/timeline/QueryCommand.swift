import Foundation
import JSONModel
import Timeline

/// `timeline query NAME --param value…`: one query, pretty JSON. A user parameter written as
/// `@name` is looked up by username.
enum QueryCommand {
    static let help = """
        usage: timeline query [--db PATH] <query> [--user ID|@name] [--target ID|@name] [--post ID]
                              [--viewer ID|@name] [--tag TAG] [--username NAME] [--prefix P]
                              [--image ID] [--latitude DEG] [--longitude DEG] [--radiusKm KM]
                              [--limit N] [--before CURSOR] [--as ID|@name]

        queries: \(names { !Catalogue.isPrivate($0) })
        private: \(names(Catalogue.isPrivate)) (for --as; findContacts takes a list: use exec)
        """

    /// The names of the queries that are `kept`, as one line.
    private static func names(_ kept: (String) -> Bool) -> String {
        Catalogue.queryNames.filter(kept).joined(separator: " ")
    }

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown([], anyOption: true)  // its options are the query's fields, checked by the catalogue
        guard !args.has("help"), let name = args.positional.first else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args, existing: true)  // a query never creates a database
        var request: JSONValue = ["query": .string(name)]
        for (key, values) in args.options where !TimelineTool.openOptions.contains(key) {
            guard let value = values.last else { continue }
            if ["user", "target", "viewer", "as"].contains(key), value.hasPrefix("@") {
                let id = try? service.user(named: String(value.dropFirst())).id.rawValue
                request = request.setting(key, .string(id ?? value))
            } else if key == "limit", let number = Int(value) {
                request = request.setting(key, .integer(number))
            } else if ["latitude", "longitude", "radiusKm"].contains(key), let number = Double(value), number.isFinite {
                request = request.setting(key, .double(number))
            } else {
                request = request.setting(key, .string(value))
            }
        }
        let answer = await ExecSession(service: service).handle(line: JSONOutput.line(request))
        let object = try JSONDecoder().decode(JSONValue.self, from: Data(answer.utf8))
        print(String(decoding: JSONOutput.pretty(object), as: UTF8.self), terminator: "")
        return object["ok"] == .bool(true) ? 0 : 1
    }
}
