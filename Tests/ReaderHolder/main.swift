// A test fixture, not part of the product: opens the database at the path given, takes a read
// transaction and never ends it, saying "holding" once it holds it, so that a test can kill the
// process and check that LMDB's reader slot is cleared (ResourceTests).
import Foundation
import Timeline

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: ReaderHolder DATABASE\n".utf8))
    exit(2)
}
let service = try TimelineService(path: CommandLine.arguments[1])
_ = try service.lastSequence()
try service.holdReadTransaction {
    FileHandle.standardOutput.write(Data("holding\n".utf8))
    while true { sleep(60) }
}
