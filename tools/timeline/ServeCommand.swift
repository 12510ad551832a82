import Dispatch
import Foundation
import MicroHTTPD
import Timeline
import OpenSSL
import Synchronization
import TimelineCluster
import TimelineFederation
import TimelineHTTP
import TimelineImport
import TimelinePush
import WebPush

/// `timeline serve`: the HTTP API (docs/spec.md) on libmicrohttpd.
enum ServeCommand {
    static let help = """
        usage: timeline serve [--db PATH] [--listen HOST:PORT] [--metrics-listen HOST:PORT] [--nats URL,…]
                              [--cors-origin ORIGIN]… [--rate-limit N] [--public-url URL | --domain HOST]
                              [--trusted-proxy ADDR]…
                              [--push-contact mailto:…] [--push-ca-file PATH] [--push-allow-private] [--demo]
                              [--source-url URL] [--contact-email ADDRESS]
                              [--smtp-url smtp://HOST:PORT --smtp-from ADDR [--smtp-ca-file PATH]]
                              [--federation-ca-file PATH] [--federation-allow-private]
                              [--federation-connect-to HOST:PORT:ADDR:PORT]… [--federation-authorized-fetch]

        Serves the HTTP API on HOST:PORT (default 127.0.0.1:8080; port 0 picks a free one, printed
        on the first line of standard output). --demo first fills an empty database with the demo
        network. --metrics-listen serves GET /metrics (and /healthz, /readyz) on a listener of its
        own, for the operator (its address is the second line of standard output); the API's
        listener has no /metrics. --cors-origin allows a browser origin (repeatable).
        --rate-limit N: requests one token (or one address without a valid token) may make to the
        API, /v1 and Mastodon's, in five minutes (default 300, as Mastodon; --mastodon-rate-limit is
        its older name). --public-url is the origin clients reach the server at (https://photos.example):
        answers' URLs are made from it and requests for another Host get 421; without it the Host
        must be localhost or an IP address. --domain HOST is the same for https://HOST: the name (a
        port may follow, localhost:8443) of this server in the fediverse, in its accounts' handles
        (@alice@HOST) and ActivityPub ids (docs/federation.md). --trusted-proxy ADDR (repeatable): a reverse proxy whose
        X-Forwarded-For and X-Forwarded-Proto are believed. Web Push: the VAPID key pair
        is made on first start in DB/push (0600); --push-contact is its contact (the JWT's sub);
        --push-ca-file trusts a private push service's authority; endpoints on loopback or private
        addresses are refused when pushing, and endpoints named by an IP address or localhost when
        subscribing, unless --push-allow-private. --source-url (where the source code is) and
        --contact-email (whom to write to) are what Mastodon's instance answers tell apps (by
        default this server's origin, and postmaster@ its host). --smtp-url and --smtp-from: where
        "Forgot password?" mails its one-hour links (SMTP through libcurl, STARTTLS when the server
        offers it, --smtp-ca-file trusting a private authority; a journal in DB/mail, never the
        address or the token); without them a reset
        request still answers 202 and nothing is sent. Federation's requests to other servers
        (fetching actors, delivering) trust --federation-ca-file's authority too, refuse loopback
        and private addresses unless --federation-allow-private, and --federation-connect-to sends
        a host's requests elsewhere (curl's --connect-to), for tests on one machine. Every fetch is signed by
        the server's own actor (/actor, its key in DB/federation, 0600); --federation-authorized-fetch
        serves the ActivityPub documents (actors, posts, collections) to signed requests alone, as
        Mastodon's authorised fetch does. SIGTERM or SIGINT: stop
        accepting, answer what is in flight, end the streams, close the database, exit 0.
        One JSON access-log line per request goes to standard error.
        """

    static func run(_ args: Arguments) async throws -> Int32 {
        try args.refuseUnknown([
            "listen", "metrics-listen", "cors-origin", "rate-limit", "mastodon-rate-limit", "public-url", "domain",
            "trusted-proxy", "push-contact", "push-ca-file", "push-allow-private", "demo", "source-url",
            "contact-email",
            "smtp-url", "smtp-from", "smtp-ca-file", "federation-ca-file", "federation-allow-private",
            "federation-connect-to", "federation-authorized-fetch"
        ])
        if args.has("help") {
            print(help)
            return 0
        }
        var serverOptions = HTTPServer.Options()
        (serverOptions.host, serverOptions.port) = try address(
            args.value("listen") ?? "127.0.0.1:8080", option: "listen")
        let metricsAddress = try args.value("metrics-listen").map { try address($0, option: "metrics-listen") }
        var apiOptions = TimelineAPI.Options()
        apiOptions.corsOrigins = Set(args.options["cors-origin"] ?? [])
        if let limit = args.value("rate-limit") ?? args.value("mastodon-rate-limit") {
            guard let number = Int(limit), number > 0 else { throw UsageError("--rate-limit takes a positive number") }
            apiOptions.requestsPerWindow = number
        }
        apiOptions.publicURL = try args.value("public-url").map { try publicURL($0) }
        if let domain = args.value("domain") {
            guard apiOptions.publicURL == nil else { throw UsageError("--domain and --public-url name the same thing") }
            apiOptions.publicURL = try publicURL("https://" + domain, option: "domain")
        }
        if let source = args.value("source-url") {
            guard let url = URL(string: source), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
                throw UsageError("--source-url takes an http(s) URL")
            }
            apiOptions.sourceURL = source
        }
        if let email = args.value("contact-email") {
            let parts = email.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !email.contains(where: \.isWhitespace)
            else { throw UsageError("--contact-email takes an email address") }
            apiOptions.contactEmail = email
        }
        for proxy in args.options["trusted-proxy"] ?? [] {
            guard IPAddress.isValid(proxy) else {
                throw UsageError("--trusted-proxy takes an IP address, not \(proxy)")
            }
            apiOptions.trustedProxies.insert(proxy)
        }

        let service = try TimelineTool.open(args)
        if args.has("demo"), try service.lastSequence() == 0 { try await DemoCommand.fill(service) }
        // Web Push: the VAPID key pair (made on first start) and the outbox, beside the database.
        let pushDirectory = (args.value("db") ?? TimelineService.defaultPath) + "/push"
        let contact = args.value("push-contact") ?? "mailto:postmaster@localhost"
        guard contact.hasPrefix("mailto:") || contact.hasPrefix("https://") else {
            throw UsageError("--push-contact takes a mailto: or https: URL")
        }
        let clusterOptions = args.value("nats").map { ClusterOptions(urls: $0.split(separator: ",").map(String.init)) }
        // A cluster signs with one key pair, kept in the cluster; a single node keeps its own.
        let keys =
            try clusterOptions.map { options in
                let pair = try JetStreamPushKeys.vapid(options: options) {
                    let made = try PushWorker.vapidKeys(in: pushDirectory)
                    return (made.privateKey, made.publicKey)
                }
                return P256KeyPair(privateKey: pair.privateKey, publicKey: pair.publicKey)
            } ?? PushWorker.vapidKeys(in: pushDirectory)
        let vapid = VAPID(keys: keys, contact: contact)
        apiOptions.vapidPublicKey = vapid.publicKey
        var pushOptions = PushWorker.Options()
        pushOptions.caFile = args.value("push-ca-file")
        pushOptions.allowPrivate = args.has("push-allow-private")
        // A cluster's nodes share the deliveries: one sends each.
        pushOptions.claims = try clusterOptions.map { try JetStreamDeliveryClaims(options: $0) }
        let pushWorker = try PushWorker(service: service, directory: pushDirectory, vapid: vapid, options: pushOptions)
        // Federation's deliveries are counted once their worker exists (it needs the API).
        let federationMetrics = Mutex<(@Sendable () -> String)?>(nil)
        apiOptions.moreMetrics = { pushWorker.metricsText + (federationMetrics.withLock { $0 }?() ?? "") }
        // "Forgot password?" mail, when the operator named an SMTP server.
        let mailWorker = try mailer(args, service)
        // Moving in from Instagram over HTTP (Settings, POST /v1/me/imports).
        apiOptions.importInstagram = { archive, user, progress throws(TimelineError) in
            try service.importInstagram(path: archive, as: user, progress: progress)
        }
        var federation = FederationClient.Options()
        federation.caFile = args.value("federation-ca-file")
        federation.allowPrivate = args.has("federation-allow-private")
        federation.connectTo = args.options["federation-connect-to"] ?? []
        for line in federation.connectTo where line.split(separator: ":", omittingEmptySubsequences: false).count != 4 {
            throw UsageError("--federation-connect-to takes HOST:PORT:ADDR:PORT, not \(line)")
        }
        let federationClient = FederationClient(options: federation)
        apiOptions.federation = federationClient
        apiOptions.authorizedFetch = args.has("federation-authorized-fetch")
        // The server's own actor's key (DB/federation/instance-actor.pem), which signs its fetches.
        let federationDirectory = (args.value("db") ?? TimelineService.defaultPath) + "/federation"
        apiOptions.instanceActorKey = try InstanceActor.key(in: federationDirectory)
        apiOptions.awaitedVideoPosts = try AwaitedVideoPosts(directory: federationDirectory + "/awaiting-videos")
        let api = TimelineAPI(service: service, options: apiOptions)
        serverOptions.refusal = api.serverRefusal  // each API's own error shape and limits
        // Videos arrive as files, written beside the database as they come (never held in memory).
        serverOptions.largeUploads = { [api] method, path in api.largeUploads(method: method, path: path) }
        serverOptions.spoolDirectory = service.uploadSpoolDirectory
        let server = try HTTPServer(options: serverOptions, handler: api.answer)
        // Pushes link to the pages people open: under the public origin, when there is one.
        pushWorker.serve(at: apiOptions.publicURL ?? url(serverOptions.host, server.port))
        pushWorker.start()
        mailWorker?.serve(at: apiOptions.publicURL ?? url(serverOptions.host, server.port))
        mailWorker?.start()
        // Federation's deliveries, their journal beside the database (DB/federation).
        var deliveryOptions = DeliveryWorker.Options()
        // A cluster's nodes share the deliveries here too: one sends each.
        deliveryOptions.claims = try clusterOptions.map {
            try JetStreamDeliveryClaims(options: $0, outbox: "FEDERATION")
        }
        let environment = ProcessInfo.processInfo.environment
        if let unit = environment["TIMELINE_FEDERATION_RETRY_UNIT_MS"].flatMap(Int.init) {
            deliveryOptions.retryUnit = .milliseconds(unit)  // tests only: a shorter backoff
        }
        if let aside = environment["TIMELINE_FEDERATION_SET_ASIDE_MS"].flatMap(Int.init) {
            // tests only: a server set aside sooner, and probed as often
            (deliveryOptions.setAsideAfter, deliveryOptions.probeEvery) = (.milliseconds(aside), .milliseconds(aside))
        }
        let origin = apiOptions.publicURL ?? url(serverOptions.host, server.port)
        if let key = apiOptions.instanceActorKey {
            federationClient.signFetches(keyId: InstanceActor.keyID(origin: origin), key: key)
        }
        let deliveries = try DeliveryWorker(
            api: api, client: federationClient, directory: federationDirectory, origin: origin, options: deliveryOptions
        )
        deliveries.start()
        federationMetrics.withLock { $0 = { deliveries.metricsText } }
        service.witnessErasures(deliveries)  // an erased actor's Delete is signed before its key goes
        emit("listening on \(url(serverOptions.host, server.port))")
        // How to point an existing app at it (stderr: the first lines of stdout are for tools).
        FileHandle.standardError.write(
            Data(
                """
                Mastodon apps (Ivory, Ice Cubes, Tusky, Elk, Phanpy, toot, Mastodon.py…): give them \(url(serverOptions.host, server.port)) as
                the server; they sign in on its /oauth/authorize page (e.g. `toot login --instance \(url(serverOptions.host, server.port))`).

                """.utf8))
        var metricsServer: HTTPServer?
        if let (host, port) = metricsAddress {
            var options = HTTPServer.Options()
            (options.host, options.port, options.threads, options.connectionLimit) = (host, port, 1, 64)
            let metrics = try HTTPServer(options: options, handler: api.answerOperations)
            emit("metrics on \(url(host, metrics.port))")
            metricsServer = metrics
        }

        // Photos uploaded but never attached go after a day: looked for at start and every 10 minutes.
        let mediaSweeper = Task {
            while !Task.isCancelled {
                do { try await service.expireUnattachedMedia() } catch {
                    FileHandle.standardError.write(Data("timeline serve: expiring unattached media: \(error)\n".utf8))
                }
                try? await Task.sleep(for: .seconds(600))
            }
        }

        // Work due at a time, run by one scheduler (what came due while the server was down, at
        // once): scheduled posts are published, the photos of stories past their day let go, and
        // the polls' ends pushed.
        let log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("timeline serve: \($0)\n".utf8)) }
        let scheduler = DueTimeScheduler(
            service: service,
            jobs: [.scheduledPosts(service, log: log), .stories(service, log: log), pushWorker.pollEndJob], log: log)
        scheduler.start()
        // Videos are transcoded one at a time, off the requests (what a restart interrupted, at once).
        let videoWorker = VideoWorker(service: service, concurrency: 1, log: log)
        videoWorker.start()
        // Other servers' posts with a video are recorded once it is transcoded.
        let awaitedVideoPosts = Task {
            while !Task.isCancelled {
                await api.publishAwaitedVideoPosts(log: log)
                try? await Task.sleep(for: .milliseconds(500))
            }
        }

        await waitForTermination()
        await scheduler.stop()
        await videoWorker.stop()
        mediaSweeper.cancel()
        awaitedVideoPosts.cancel()
        pushWorker.stop()
        mailWorker?.stop()
        await deliveries.stop()
        FileHandle.standardError.write(Data("timeline serve: stopping\n".utf8))
        api.stop()
        metricsServer?.stop()
        server.stop()
        TimelineTool.close(service)
        return 0
    }

    /// The reset mailer of `--smtp-url` and `--smtp-from` (both or neither), its journal in DB/mail.
    static func mailer(_ args: Arguments, _ service: TimelineService) throws -> MailWorker? {
        switch (args.value("smtp-url"), args.value("smtp-from")) {
        case (nil, nil): return nil
        case (let url?, let from?):
            guard url.hasPrefix("smtp://") || url.hasPrefix("smtps://") else {
                throw UsageError("--smtp-url takes an smtp:// or smtps:// URL")
            }
            let parts = from.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
                !from.contains(where: { "<> \r\n".contains($0) })
            else { throw UsageError("--smtp-from takes an email address") }
            return try MailWorker(
                service: service, directory: (args.value("db") ?? TimelineService.defaultPath) + "/mail",
                options: MailWorker.Options(url: url, from: from, caFile: args.value("smtp-ca-file")))
        default: throw UsageError("--smtp-url and --smtp-from go together")
        }
    }

    /// The host and port of `--option HOST:PORT`.
    static func address(_ text: String, option: String) throws -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            throw UsageError("--\(option) takes HOST:PORT, e.g. 127.0.0.1:8080")
        }
        // `[::1]:8080`: the host without its brackets (`url` writes them back).
        let host = text[..<colon]
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? host.dropFirst().dropLast() : host
        return (String(bare), port)
    }

    /// `--public-url`'s origin: `http(s)://host[:port]`, without a path (a trailing `/` is dropped).
    static func publicURL(_ text: String, option: String = "public-url") throws -> String {
        let origin = text.hasSuffix("/") ? String(text.dropLast()) : text
        guard let url = URL(string: origin), let scheme = url.scheme, ["http", "https"].contains(scheme),
            let host = url.host,
            !host.isEmpty, url.path.isEmpty, url.query == nil, url.fragment == nil, url.user == nil,
            origin.allSatisfy({ $0.isASCII && !$0.isWhitespace })
        else {
            throw UsageError(
                option == "domain"
                    ? "--domain takes a host name, with a port if it has one (photos.example, localhost:8443)"
                    : "--public-url takes an origin such as https://photos.example (no path)")
        }
        return origin.lowercased()
    }

    static func url(_ host: String, _ port: UInt16) -> String {
        "http://" + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// Returns at the first SIGTERM or SIGINT.
    static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let once = NSLock()
            var resumed = false
            var sources: [DispatchSourceSignal] = []
            for signalNumber in [SIGTERM, SIGINT] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
                source.setEventHandler {
                    once.lock()
                    defer { once.unlock() }
                    guard !resumed else { return }
                    resumed = true
                    for source in sources { source.cancel() }
                    continuation.resume()
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
