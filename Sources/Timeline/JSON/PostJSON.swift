extension JSONOutput {
    /// A page of posts as JSON — the document `bytes(page(posts, post))` makes, keys in the
    /// same order — written straight from each post's record bytes: no dictionary and no
    /// string per field (the timeline's HTTP answer).
    package static func postPageBytes(_ page: Page<Post>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + page.items.count * 900)
        out += Array(#"{"items":["#.utf8)
        for (index, post) in page.items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            write(post, into: &out)
        }
        out += Array(#"],"next":"#.utf8)
        if let next = page.next { CompactJSONWriter.writeString(next, into: &out) } else { out += Array("null".utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `post(p)`'s object, keys in `CompactJSONWriter`'s (Foundation's sorted) order.
    static func write(_ post: Post, into out: inout [UInt8]) {
        let r = post.readings, f = r.fields, bytes = r.bytes
        func key(_ name: StaticString) {
            out.append(UInt8(ascii: "\""))
            name.withUTF8Buffer { out.append(contentsOf: $0) }
            out += [UInt8(ascii: "\""), UInt8(ascii: ":")]
        }
        func string(_ range: Range<Int>?) {
            if let range { CompactJSONWriter.writeString(bytes[range], into: &out) } else { out += Array("null".utf8) }
        }
        func number(_ value: (some BinaryInteger)?) { out += Array((value.map { String($0) } ?? "null").utf8) }
        func bool(_ value: Bool) { out += Array((value ? "true" : "false").utf8) }
        out.append(UInt8(ascii: "{"))
        key("author"); string(f.author)
        out.append(UInt8(ascii: ",")); key("authorUsername"); string(f.authorUsername)
        if let saved = post.bookmarkedByViewer { out.append(UInt8(ascii: ",")); key("bookmarkedByViewer"); bool(saved) }
        out.append(UInt8(ascii: ",")); key("caption"); string(f.caption)
        out.append(UInt8(ascii: ",")); key("commentCount"); number(f.commentCount)
        out.append(UInt8(ascii: ",")); key("createdAt"); CompactJSONWriter.writeString(timestamp(f.createdAt), into: &out)
        out.append(UInt8(ascii: ",")); key("hashtags"); out.append(UInt8(ascii: "["))
        var first = true
        r.forEachHashtag { range in
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            CompactJSONWriter.writeString(bytes[range], into: &out)
        }
        out.append(UInt8(ascii: "]"))
        out.append(UInt8(ascii: ",")); key("height"); number(f.height)
        out.append(UInt8(ascii: ",")); key("id"); string(f.id)
        out.append(UInt8(ascii: ",")); key("image"); string(f.image)
        out.append(UInt8(ascii: ",")); key("likeCount"); number(f.likeCount)
        if let liked = post.likedByViewer { out.append(UInt8(ascii: ",")); key("likedByViewer"); bool(liked) }
        if let latitude = f.latitude, let longitude = f.longitude {
            out.append(UInt8(ascii: ",")); key("location"); out.append(UInt8(ascii: "{"))
            key("latitude"); out += Array(latitude.description.utf8)
            out.append(UInt8(ascii: ",")); key("longitude"); out += Array(longitude.description.utf8)
            if let name = f.placeName { out.append(UInt8(ascii: ",")); key("name"); string(name) }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: ",")); key("variants")
        if let feed = f.feed, let thumb = f.thumb {
            out.append(UInt8(ascii: "{"))
            key("feed"); string(feed)
            out.append(UInt8(ascii: ",")); key("full"); string(f.image)
            out.append(UInt8(ascii: ",")); key("thumb"); string(thumb)
            out.append(UInt8(ascii: "}"))
        } else {
            out += Array("null".utf8)
        }
        out.append(UInt8(ascii: ",")); key("width"); number(f.width)
        out.append(UInt8(ascii: "}"))
    }
}
