import JSONModel

extension JSONOutput {
    /// A page of posts as JSON — byte for byte the document `bytes(answer(.posts(page)))` makes
    /// with the typed encoder (`CompactJSONTests.thePageWriterWritesWhatTheTypedEncoderWrites`)
    /// — written straight from each post's record bytes: no value tree and no string per field
    /// (the timeline's HTTP answer).
    package static func postPageBytes(_ page: Page<Post>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + page.items.count * 900)
        (#"{"items":["# as StaticString).withUTF8Buffer { out.append(contentsOf: $0) }
        for (index, post) in page.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(post, into: &out)
        }
        (#"],"next":"# as StaticString).withUTF8Buffer { out.append(contentsOf: $0) }
        if let next = page.next { CompactJSONWriter.writeString(next, into: &out) } else { out += Array("null".utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `post(p)`'s object, keys in `JSONWriter`'s (Foundation's sorted) order.
    static func write(_ post: Post, into out: inout [UInt8]) {
        let r = post.readings, f = r.fields, bytes = r.bytes
        func literal(_ text: StaticString) { text.withUTF8Buffer { out.append(contentsOf: $0) } }
        /// `,"name":` (or without the comma for the first key).
        func key(_ name: StaticString, first: Bool = false) {
            if !first { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            literal(name)
            out.append(UInt8(ascii: "\""))
            out.append(UInt8(ascii: ":"))
        }
        func string(_ range: Range<Int>?) {
            if let range { CompactJSONWriter.writeString(bytes[range], into: &out) } else { literal("null") }
        }
        func number(_ value: Int?) {
            if let value { CompactJSONWriter.writeInteger(value, into: &out) } else { literal("null") }
        }
        func number(_ value: JSONValue) { if case .number(let text) = value { out += Array(text.utf8) } }
        func bool(_ value: Bool) { value ? literal("true") : literal("false") }
        out.append(UInt8(ascii: "{"))
        if f.addressees != nil {
            key("addressees", first: true)
            out.append(UInt8(ascii: "["))
            var firstAddressee = true
            r.forEachAddressee { range in
                if !firstAddressee { out.append(UInt8(ascii: ",")) }
                firstAddressee = false
                CompactJSONWriter.writeString(bytes[range], into: &out)
                return true
            }
            out.append(UInt8(ascii: "]"))
        }
        key("author", first: f.addressees == nil)
        string(f.author)
        key("authorUsername")
        string(f.authorUsername)
        if let saved = post.bookmarkedByViewer {
            key("bookmarkedByViewer")
            bool(saved)
        }
        if let boost = post.boost {
            key("boost")
            out.append(UInt8(ascii: "{"))
            key("at", first: true)
            out.append(UInt8(ascii: "\""))
            writeTimestamp(boost.at, into: &out)
            out.append(UInt8(ascii: "\""))
            key("by")
            CompactJSONWriter.writeString(boost.by.rawValue, into: &out)
            key("byUsername")
            CompactJSONWriter.writeString(boost.byUsername, into: &out)
            key("id")
            CompactJSONWriter.writeString(boost.id.rawValue, into: &out)
            key("visibility")
            CompactJSONWriter.writeString(boost.visibility.rawValue, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        key("boostCount")
        number(post.boostCount)
        if let boosted = post.boostedByViewer {
            key("boostedByViewer")
            bool(boosted)
        }
        key("caption")
        string(f.caption)
        key("commentCount")
        number(f.commentCount)
        key("createdAt")
        out.append(UInt8(ascii: "\""))
        writeTimestamp(f.createdAt, into: &out)
        out.append(UInt8(ascii: "\""))
        if let edited = f.editedAt {
            key("editedAt")
            out.append(UInt8(ascii: "\""))
            writeTimestamp(edited, into: &out)
            out.append(UInt8(ascii: "\""))
        }
        if !post.filtered.isEmpty {
            // The viewer's filters it matched: rare, so written by the typed encoder.
            key("filtered")
            out += (try? JSONValueEncoder.bytes(post.filtered.map(ResultJSON.FilterResult.init))) ?? Array("[]".utf8)
        }
        key("hashtags")
        out.append(UInt8(ascii: "["))
        var first = true
        r.forEachHashtag { range in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            CompactJSONWriter.writeString(bytes[range], into: &out)
        }
        out.append(UInt8(ascii: "]"))
        key("height")
        number(f.height)
        key("id")
        string(f.id)
        key("image")
        string(f.image.isEmpty ? nil : f.image)
        if let answered = f.inReplyTo {
            key("inReplyTo")
            string(answered)
        }
        key("likeCount")
        number(f.likeCount)
        if let liked = post.likedByViewer {
            key("likedByViewer")
            bool(liked)
        }
        if let latitude = f.latitude, let longitude = f.longitude {
            key("location")
            out.append(UInt8(ascii: "{"))
            // Degrees as the typed encoder writes a `Double` (and Foundation did): `48`, not `48.0`.
            key("latitude", first: true)
            number(JSONValue.double(latitude))
            key("longitude")
            number(JSONValue.double(longitude))
            if let name = f.placeName {
                key("name")
                string(name)
            }
            out.append(UInt8(ascii: "}"))
        }
        key("media")
        out.append(UInt8(ascii: "["))
        for (index, item) in post.media.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            func text(_ value: String?) {
                if let value { CompactJSONWriter.writeString(value, into: &out) } else { literal("null") }
            }
            out.append(UInt8(ascii: "{"))
            key("alt", first: true)
            text(item.alt)
            key("blurhash")
            text(item.blurhash)
            key("height")
            number(item.height)
            key("id")
            text(item.id)
            key("image")
            text(item.image.rawValue)
            key("variants")
            if let variants = item.variants {
                out.append(UInt8(ascii: "{"))
                key("feed", first: true)
                text(variants.feed.rawValue)
                key("full")
                text(variants.full.rawValue)
                key("thumb")
                text(variants.thumb.rawValue)
                out.append(UInt8(ascii: "}"))
            } else {
                literal("null")
            }
            if let video = item.video {
                // A video's state: rare, so written by the typed encoder.
                key("video")
                out += (try? JSONValueEncoder.bytes(ResultJSON.Video(video))) ?? Array("null".utf8)
            }
            key("width")
            number(item.width)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
        if let poll = post.poll {
            key("poll")
            CompactJSONWriter.writeString(poll.rawValue, into: &out)
        }
        key("sensitive")
        bool(f.sensitive)
        key("variants")
        if let feed = f.feed, let thumb = f.thumb {
            out.append(UInt8(ascii: "{"))
            key("feed", first: true)
            string(feed)
            key("full")
            string(f.image)
            key("thumb")
            string(thumb)
            out.append(UInt8(ascii: "}"))
        } else {
            literal("null")
        }
        key("visibility")
        CompactJSONWriter.writeString(f.visibility.rawValue, into: &out)
        if let warning = f.warning {
            key("warning")
            string(warning)
        }
        key("width")
        number(f.width)
        out.append(UInt8(ascii: "}"))
    }
}
