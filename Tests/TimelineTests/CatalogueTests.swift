import Foundation
import JSONModel
import Testing
import Timeline
import TimelineDomain

@Suite struct CatalogueTests {
    /// Every command of the registry has its sample, in the registry's order.
    @Test func everyCommandHasASample() {
        #expect(sampleCommands.map(\.name) == Command.names)
    }

    /// The decoder (`Catalogue.command`) and the encoder (`Command.jsonObject`) are one mapping:
    /// every command survives the round trip, and the decoder reads every field encoded.
    @Test(arguments: sampleCommands) func commandJSONRoundTrips(_ command: Command) throws {
        let object = command.jsonObject()
        #expect(object["command"]?.string == command.name)
        let input = JSONInput(object: object.removing("command"))
        let decoded = try Catalogue.command(named: command.name, input)
        try input.refuseUnreadFields()
        #expect(decoded == command)
        #expect(decoded != Command.signOut(session: "another"))
    }

    /// Every query name decodes to that query, which says whether it is private as the catalogue does.
    @Test(arguments: Catalogue.queryNames) func queryNamesDecode(_ name: String) throws {
        let fields: JSONValue = [
            "user": "u1", "username": "zoe", "prefix": "z", "target": "u2", "post": "p1", "tag": "sea",
            "image": "i1", "limit": 5, "latitude": .double(1.5), "longitude": .double(2.5), "emails": ["a@b.co"],
            "kind": "post", "id": "p1", "account": "u3", "poll": "q1", "list": "l1",
            "collection": "c1", "scheduledPost": "s1", "year": "2025", "story": "st1", "media": "m1"
        ]
        let query = try Catalogue.query(named: name, JSONInput(object: fields))
        #expect(query.name == name)
        #expect(query.isPrivate == Catalogue.isPrivate(name))
    }

    @Test func unknownCommandNamesAreRefused() {
        #expect(throws: TimelineError.self) { try Catalogue.command(named: "teleport", JSONInput(object: [:])) }
        #expect(throws: TimelineError.self) { try Catalogue.query(named: "teleports", JSONInput(object: [:])) }
    }

    /// Every command and event type has its JSON Schema.
    @Test func everyCommandAndEventTypeHasASchema() {
        let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../schemas")
            .standardized
        for name in Command.names {
            let path = schemas.appending(path: "commands/\(name).schema.json").path
            #expect(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
        for type in EventType.allCases {
            let path = schemas.appending(path: "events/\(type.rawValue).v\(type.currentVersion).schema.json").path
            #expect(FileManager.default.fileExists(atPath: path), "missing \(path)")
        }
    }
}
