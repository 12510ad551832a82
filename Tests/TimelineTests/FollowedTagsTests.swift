import Foundation
import Testing
@testable import Timeline
import TimelineDomain

extension InMemoryState {
    func followsTag(_ user: UserID, _ tag: String) -> Bool { followedTagEdges.contains([user.rawValue, tag]) }
    func followedTagCount(_ user: UserID) -> Int { followedTagEdges.filter { $0[0] == user.rawValue }.count }
}
