import Foundation
import Testing
@testable import Timeline
import TimelineDomain

extension InMemoryState {
    func pinned(_ user: UserID, _ post: PostID) -> Bool { pinEdges.contains([user.rawValue, post.rawValue]) }
    func pinCount(_ user: UserID) -> Int { pinEdges.filter { $0[0] == user.rawValue }.count }
    func mutesConversation(_ user: UserID, _ post: PostID) -> Bool {
        conversationMuteEdges.contains([user.rawValue, post.rawValue])
    }
    func accountNote(_ writer: UserID, _ target: UserID) -> String? { accountNotes[[writer, target]] }
    func endorses(_ user: UserID, _ target: UserID) -> Bool { endorsementEdges.contains([user, target]) }
}
