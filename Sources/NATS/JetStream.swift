internal import CNATS

/// A JetStream context: streams, publishing with optimistic concurrency, reading by sequence,
/// and key-value buckets.
public final class JetStream: @unchecked Sendable {
    let handle: OpaquePointer
    /// Keeps the connection alive as long as the context.
    let connection: NATSConnection

    init(_ handle: OpaquePointer, connection: NATSConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { jsCtx_Destroy(handle) }

    /// Creates the stream if it does not exist (file storage, `replicas` copies).
    public func ensureStream(name: String, subject: String, replicas: Int) throws(NATSError) {
        var config = jsStreamConfig()
        try check(jsStreamConfig_Init(&config), "init stream config")
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        let status: natsStatus = name.withCString { cName in
            subject.withCString { cSubject in
                var subjects: [UnsafePointer<CChar>?] = [cSubject]
                return subjects.withUnsafeMutableBufferPointer { list in
                    config.Name = cName
                    config.Subjects = list.baseAddress
                    config.SubjectsLen = 1
                    config.Storage = js_FileStorage
                    config.Replicas = Int64(replicas)
                    config.Duplicates = 2 * 60 * 1_000_000_000  // MsgId dedupe window: 2 minutes
                    return js_AddStream(&info, handle, &config, nil, &code)
                }
            }
        }
        if let info { jsStreamInfo_Destroy(info) }
        if status == NATS_OK || code == JSStreamNameExistErr { return }
        throw NATSError(status, code, "add stream \(name)")
    }

    /// The name of the server that leads stream `name` (`nil` while it has no leader).
    public func leader(ofStream name: String) throws(NATSError) -> String? {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        try check(js_GetStreamInfo(&info, handle, name, nil, &code), code: code, "stream info of \(name)")
        defer { jsStreamInfo_Destroy(info) }
        guard let cluster = info?.pointee.Cluster, let leader = cluster.pointee.Leader else { return nil }
        let text = String(cString: leader)
        return text.isEmpty ? nil : text
    }

    /// Publishes `data`, stored only if the stream's last sequence is `expectLastSequence`;
    /// `messageID` makes a retry a no-op. Returns the message's sequence (and whether it was
    /// a duplicate of an earlier publish).
    public func publish(subject: String, data: [UInt8], messageID: String, expectLastSequence: UInt64?)
        throws(NATSError) -> (sequence: UInt64, duplicate: Bool)
    {
        var options = jsPubOptions()
        try check(jsPubOptions_Init(&options), "init publish options")
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(0)
        let status: natsStatus = messageID.withCString { cID in
            options.MsgId = cID
            if let expectLastSequence {
                options.ExpectLastSeq = expectLastSequence
                // ExpectLastSeq = 0 means "no check" to the client library: an empty stream is
                // expected with ExpectNoMessage-like semantics via the stream's first sequence.
            }
            return data.withUnsafeBytes { bytes in
                js_Publish(&ack, handle, subject, bytes.baseAddress, Int32(bytes.count), &options, &code)
            }
        }
        defer { if let ack { jsPubAck_Destroy(ack) } }
        try check(status, code: code, "publish to \(subject)")
        guard let ack else { throw NATSError(NATS_ERR, code, "publish to \(subject): no acknowledgement") }
        return (ack.pointee.Sequence, ack.pointee.Duplicate)
    }

    /// The data of the message at `sequence`, or `nil` past the end of the stream.
    public func message(stream: String, sequence: UInt64) throws(NATSError) -> [UInt8]? {
        var message: OpaquePointer?
        var code = jsErrCode(0)
        let status = js_GetMsg(&message, handle, stream, sequence, nil, &code)
        if status == NATS_NOT_FOUND || code == JSNoMessageFoundErr { return nil }
        try check(status, code: code, "get message \(sequence) of \(stream)")
        defer { natsMsg_Destroy(message) }
        let length = Int(natsMsg_GetDataLength(message))
        guard length > 0, let data = natsMsg_GetData(message) else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The key-value bucket `name`, created (with `replicas` copies, one value per key, each
    /// key forgotten `ttl` after it was last set, if given) if missing.
    public func keyValue(bucket name: String, replicas: Int, ttl: Duration? = nil) throws(NATSError) -> KeyValueBucket {
        var store: OpaquePointer?
        if js_KeyValue(&store, handle, name) == NATS_OK, let store {
            return KeyValueBucket(store, name: name, context: self)
        }
        var config = kvConfig()
        try check(kvConfig_Init(&config), "init bucket config")
        let status: natsStatus = name.withCString { cName in
            config.Bucket = cName
            config.History = 1
            config.Replicas = Int32(replicas)
            config.StorageType = js_FileStorage
            if let ttl {
                config.TTL = ttl.components.seconds * 1_000_000_000 + ttl.components.attoseconds / 1_000_000_000
            }
            return js_CreateKeyValue(&store, handle, &config)
        }
        if status != NATS_OK {
            // Another node may have created it meanwhile.
            try check(js_KeyValue(&store, handle, name), "open bucket \(name)")
        }
        return KeyValueBucket(store!, name: name, context: self)
    }
}

/// A JetStream key-value bucket.
public final class KeyValueBucket: @unchecked Sendable {
    let handle: OpaquePointer
    let name: String
    let context: JetStream

    init(_ handle: OpaquePointer, name: String, context: JetStream) {
        self.handle = handle
        self.name = name
        self.context = context
    }

    deinit { kvStore_Destroy(handle) }

    /// The latest value of `key` as the bucket's stream leader has it, or `nil` if it has none
    /// (never set, deleted or purged). Unlike `get` (which the client serves by a direct get
    /// that any replica may answer, a lagging one included), this asks the leader
    /// (`STREAM.MSG.GET` for the key's last message), so a value whose store was acknowledged
    /// is seen. Throws on a timeout or any other failure: never `nil` for "could not tell".
    public func latest(_ key: String) throws(NATSError) -> [UInt8]? {
        var message: OpaquePointer?
        var code = jsErrCode(0)
        let status = js_GetLastMsg(&message, context.handle, "KV_" + name, "$KV.\(name).\(key)", nil, &code)
        if status == NATS_NOT_FOUND || code == JSNoMessageFoundErr { return nil }
        try check(status, code: code, "get the latest \(key) of bucket \(name)")
        defer { natsMsg_Destroy(message) }
        var operation: UnsafePointer<CChar>?
        if natsMsgHeader_Get(message, "KV-Operation", &operation) == NATS_OK, let operation {
            let value = String(cString: operation)
            if value == "DEL" || value == "PURGE" { return nil }
        }
        let length = Int(natsMsg_GetDataLength(message))
        guard length > 0, let data = natsMsg_GetData(message) else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// The value of `key`, or `nil` if it has none (never set, deleted or purged), as the
    /// client's direct get finds it (possibly on a replica that lags: see `latest`).
    public func get(_ key: String) throws(NATSError) -> [UInt8]? {
        var entry: OpaquePointer?
        let status = kvStore_Get(&entry, handle, key)
        if status == NATS_NOT_FOUND { return nil }
        try check(status, "get \(key)")
        defer { kvEntry_Destroy(entry) }
        let length = Int(kvEntry_ValueLen(entry))
        guard length > 0, let value = kvEntry_Value(entry) else { return [] }
        return Array(UnsafeRawBufferPointer(start: value, count: length))
    }

    /// Sets `key` only if it has no value; returns `false` if it already had one.
    public func create(_ key: String, _ value: [UInt8]) throws(NATSError) -> Bool {
        var revision: UInt64 = 0
        let status = value.withUnsafeBytes { kvStore_Create(&revision, handle, key, $0.baseAddress, Int32($0.count)) }
        if status == NATS_OK { return true }
        if try latest(key) != nil { return false }
        throw NATSError(status, jsErrCode(0), "create \(key)")
    }

    /// Removes `key` and every earlier revision of it.
    public func purge(_ key: String) throws(NATSError) {
        try check(kvStore_Purge(handle, key, nil), "purge \(key)")
    }
}
