import Foundation
import JSONModel
import Timeline

/// `timeline federation`: the servers this one federates with, as the operator sees to it
/// (events in the log: DomainBlocked, DomainUnblocked).
enum FederationCommand {
    static let help = """
        usage: timeline federation [--db PATH] block HOST [--json]
               timeline federation [--db PATH] unblock HOST [--json]
               timeline federation [--db PATH] blocks [--json]
               timeline federation [--db PATH] peers [--json]

        block    stop federating with a server (HOST: its host name, with its port if it has one):
                 nothing from it is accepted, nothing is sent to it, it is no peer
        unblock  federate with it again
        blocks   the servers blocked
        peers    the other servers whose accounts acted here (GET /api/v1/instance/peers)
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown(["json"])
        guard !args.has("help"), let verb = args.positional.first else {
            print(help)
            return args.has("help") ? 0 : 2
        }
        let service = try TimelineTool.open(args, existing: true)
        defer { TimelineTool.close(service) }
        switch (verb, args.positional.count) {
        case ("block", 2), ("unblock", 2):
            let host = args.positional[1]
            let result = try await service.execute(
                verb == "block" ? .blockDomain(host: host) : .unblockDomain(host: host), as: .operator)
            if args.has("json") {
                emit(JSONOutput.line(JSONOutput.result(result)))
            } else {
                print(result == .changed(false) ? "\(host): unchanged" : "\(host): \(verb)ed")
            }
        case ("blocks", 1), ("peers", 1):
            let hosts = verb == "blocks" ? try service.blockedDomains() : try service.peers()
            if args.has("json") {
                try emitJSON([verb: hosts])
            } else {
                hosts.forEach { print($0) }
            }
        default:
            throw UsageError("usage: timeline federation block HOST | unblock HOST | blocks | peers")
        }
        return 0
    }
}
