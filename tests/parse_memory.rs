//! The parse budget in bytes allocated (issue 21, finding 1): a test binary of its own, because
//! it counts every allocation through a global allocator. Whatever a hostile body repeats, and
//! however often, parsing it allocates at most a small multiple of its size (the decoded text's
//! copies and the entries kept) and of the node budget, not the ~1.6 KB per empty JSON item, 2 KB per `<item/>` and
//! 300 B per `<category>` that made an 8 MiB body cost 1–4 GB. Counted per thread, so the
//! parallel tests do not see each other's allocations.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use matome::fetch::parse::{Budget, parse_feed_within};
use proptest::prelude::*;

struct Counting;

thread_local! {
    static LIVE: Cell<isize> = const { Cell::new(0) };
    static PEAK: Cell<isize> = const { Cell::new(0) };
}

fn add(bytes: isize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get() + bytes;
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

// SAFETY: every call is passed to the system allocator unchanged; the counters are plain
// thread-local cells with constant initialisers (no allocation, no destructor).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            add(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        add(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            add(new_size as isize - layout.size() as isize);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The most bytes live at once on this thread while `f` runs, above what was live before.
fn peak_during<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let r = f();
    let peak = PEAK.with(Cell::get);
    (r, (peak - base).max(0) as usize)
}

const URL: &str = "http://example.com/feed.xml";

/// Units hostile bodies repeat (each the worst of its kind for some parser before the budget).
const UNITS: &[(&str, &str, &str)] = &[
    (
        "{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"t\",\"items\":[",
        "{},",
        "{}]}",
    ),
    (
        "{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"t\",\"items\":[{\"id\":\"1\",\"tags\":[",
        "\"a\",",
        "\"a\"]}]}",
    ),
    (
        "<rss version=\"2.0\"><channel><title>t</title>",
        "<item/>",
        "</channel></rss>",
    ),
    (
        "<rss version=\"2.0\"><channel><title>t</title>",
        "<item><title>a</title><guid>g</guid></item>",
        "</channel></rss>",
    ),
    (
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>t</title>",
        "<entry/>",
        "</feed>",
    ),
    (
        "<rss version=\"2.0\"><channel><title>t</title><item><title>t</title>",
        "<category>c</category>",
        "</item></channel></rss>",
    ),
    (
        "<rss version=\"2.0\"><channel><title>t</title>",
        "<item>",
        "",
    ),
    (
        "<rss version=\"2.0\" xmlns:ht=\"https://trends.google.com/trending/rss\"><channel><title>t</title><item><title>w</title><ht:approx_traffic>1+</ht:approx_traffic></item>",
        "<item/>",
        "</channel></rss>",
    ),
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Peak bytes allocated while parsing a hostile body of up to 1 MiB: at most four times its
    /// size, plus 2 MiB, plus 256 bytes per node of the budget (the objects a body just inside
    /// the node budget makes feed-rs hold: ~225 B per `<category>`), for any unit and
    /// repetition; the entries read stay within the budget.
    #[test]
    fn parsing_a_hostile_body_allocates_a_small_multiple_of_its_size(
        which in 0..UNITS.len(),
        n in 1usize..60_000,
        max_items in 1usize..300,
    ) {
        let (head, unit, tail) = UNITS[which];
        let text = format!("{head}{}{tail}", unit.repeat(n));
        let budget = Budget::for_items(max_items);
        let (parsed, peak) = peak_during(|| parse_feed_within(&text, URL, &budget));
        let limit = 4 * text.len() + (2 << 20) + 256 * budget.nodes;
        prop_assert!(
            peak <= limit,
            "{} bytes of {:?} × {}: {} bytes allocated at peak (limit {})",
            text.len(), unit, n, peak, limit
        );
        if let Ok(feed) = parsed {
            prop_assert!(feed.entries.len() <= max_items);
        }
    }
}

/// The worst body, at the real cap: 8 MiB of empty JSON items (2.8 M) took 4.45 GB.
#[test]
fn an_8_mib_json_feed_of_empty_items_allocates_under_64_mib() {
    let head = "{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"t\",\"items\":[";
    let n = (8 * 1024 * 1024 - head.len() - 4) / 3;
    let text = format!("{head}{}{{}}]}}", "{},".repeat(n));
    let budget = Budget::for_items(200);
    let (parsed, peak) = peak_during(|| parse_feed_within(&text, URL, &budget));
    assert!(parsed.is_ok());
    assert!(peak < 64 << 20, "{peak} bytes allocated at peak");
}
