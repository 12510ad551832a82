/// A first-in, first-out queue whose elements leave from the front in O(1) amortised time (the
/// storage is compacted once more than half of it is spent): for the in-memory tables whose
/// entries end in the order they came (tickets, request windows), so that dropping the ended
/// ones never scans the table.
struct ArrivalQueue<Element> {
    private var items: [Element] = []
    private var head = 0

    /// The oldest element still queued.
    var first: Element? { head < items.count ? items[head] : nil }

    /// Queues `element` behind the others.
    mutating func append(_ element: Element) { items.append(element) }

    /// Takes the oldest element out.
    @discardableResult
    mutating func removeFirst() -> Element? {
        guard head < items.count else { return nil }
        let element = items[head]
        head += 1
        if head > 1024, head * 2 > items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }
}
