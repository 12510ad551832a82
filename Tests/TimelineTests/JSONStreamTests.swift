import Foundation
import JSONModel
import JSONStream
import Testing

@Suite struct JSONStreamTests {
    func records(_ text: String, chunk: Int) throws -> [([String], JSONValue)] {
        var out: [([String], JSONValue)] = []
        let splitter = RecordSplitter(depth: 2) { out.append(($0, $1)) }
        let parser = JSONStreamParser { try splitter.consume($0) }
        let bytes = Array(text.utf8)
        var start = 0
        while start < bytes.count {
            try parser.feed(Array(bytes[start..<min(start + chunk, bytes.count)]))
            start += chunk
        }
        try parser.finish()
        return out
    }

    @Test(arguments: [1, 3, 7, 4096])
    func recordsComeOutWhateverTheChunking(chunk: Int) throws {
        let text =
            #"{"users":{"u1":{"username":"a","follows":{"u2":true},"n":[1,2.5e3,null]},"u2":{"user":"b"}},"meta":5,"images":{"i1":"QUJD"},"followers":{"u1":{"u2":true}}}"#
        let out = try records(text, chunk: chunk)
        #expect(out.map(\.0) == [["users", "u1"], ["users", "u2"], ["images", "i1"], ["followers", "u1"]])
        #expect(out[0].1["follows"]?["u2"] == .bool(true))
        #expect(out[0].1["n"] == .array([.number("1"), .number("2.5e3"), .null]))
        #expect(out[1].1["user"]?.string == "b")
        #expect(out[2].1 == .string("QUJD"))
    }

    @Test func malformedInputThrows() {
        for bad in [#"{"a":}"#, #"{"a":{"b":1}"#, "\u{FF}", #"{"a":"\#u{0}"}"#] {
            #expect(throws: (any Error).self) { _ = try records(bad, chunk: 2) }
        }
    }
}
