import Testing

@testable import TimelineHTTP

/// Another server's HTML as the plain text Timeline keeps: no markup survives, entities are
/// decoded, paragraphs and line breaks stay, and hostile input ends without harm.
@Suite struct RemoteHTMLTests {
    @Test func markupGoesAndTextStays() {
        #expect(
            RemoteHTML.text("<p>Hello <a href=\"x\">@<span>bob</span></a></p><p>bye<br>now</p>")
                == "Hello @bob\n\nbye\nnow")
        #expect(
            RemoteHTML.text("<p>&lt;b&gt; &amp; &quot;q&quot; &#233;&#x1F600; &bogus; & x</p>")
                == "<b> & \"q\" é😀 &bogus; & x")
        #expect(RemoteHTML.text("<script>alert(1)</script><img src=x onerror=alert(2)>") == "alert(1)")
    }

    @Test func hostileInputEndsWithoutHarm() {
        #expect(RemoteHTML.text("<p unclosed") == "")
        #expect(RemoteHTML.text("&#xFFFFFFFFFF; &#55296;") == "&#xFFFFFFFFFF; &#55296;")
        let huge = String(repeating: "<b>a</b>", count: 100_000)
        #expect(RemoteHTML.text(huge).count == RemoteHTML.maxBytes / 8)
    }
}
