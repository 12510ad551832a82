import JSONModel
import Testing

extension JSONModelTests {
    /// `removing` drops a member of an object (every one of the name) and leaves other values alone.
    @Test func removingDropsAMember() {
        let object: JSONValue = ["a": 1, "b": [1, 2], "c": nil]
        #expect(object.removing("b") == ["a": 1, "c": nil])
        #expect(object.removing("z") == object)
        #expect(JSONValue.object([("a", 1), ("a", 2)]).removing("a") == [:])
        #expect(JSONValue.array([1]).removing("a") == [1])
    }
}
