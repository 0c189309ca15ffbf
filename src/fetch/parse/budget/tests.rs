use super::*;

fn rss(items: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>t</title>{items}</channel></rss>"
    )
}

#[test]
fn a_short_feed_is_given_as_it_is() {
    let text = rss("<item><title>a</title></item><item><title>b</title></item>");
    let b = bound(&text, &Budget::for_items(200)).unwrap();
    assert!(matches!(b.text, Cow::Borrowed(_)));
    assert_eq!(b.entries, 2);
}

#[test]
fn entries_past_the_budget_are_cut_and_what_is_open_is_closed() {
    let text = rss(&"<item><title>x</title></item>".repeat(10));
    let b = bound(&text, &Budget::for_items(3)).unwrap();
    assert_eq!(b.entries, 3);
    assert_eq!(
        b.text,
        rss(&"<item><title>x</title></item>".repeat(3)),
        "cut before the 4th item, channel and rss closed"
    );
    // Empty items, Atom entries, prefixed names and upper case count alike.
    let atom = format!(
        "<a:feed xmlns:a=\"http://www.w3.org/2005/Atom\">{}</a:feed>",
        "<a:entry/>".repeat(5)
    );
    let b = bound(&atom, &Budget::for_items(2)).unwrap();
    assert_eq!(
        b.text,
        "<a:feed xmlns:a=\"http://www.w3.org/2005/Atom\"><a:entry/><a:entry/></a:feed>"
    );
    let cdf = format!(
        "<CHANNEL>{}</CHANNEL>",
        "<ITEM HREF=\"x\"></ITEM>".repeat(3)
    );
    assert_eq!(bound(&cdf, &Budget::for_items(1)).unwrap().entries, 1);
}

#[test]
fn an_unclosed_item_is_ended_by_the_next_one() {
    let text = format!("<rss><channel>{}", "<item><title>t".repeat(5));
    let b = bound(&text, &Budget::for_items(2)).unwrap();
    assert_eq!(
        b.text,
        "<rss><channel><item><title>t<item><title>t</title></item></channel></rss>"
    );
}

#[test]
fn too_many_objects_too_deep_or_too_many_attributes_is_refused_naming_the_budget() {
    let budget = Budget::for_items(2);
    let many = rss(&format!(
        "<item>{}</item>",
        "<category>c</category>".repeat(budget.nodes)
    ));
    let e = bound(&many, &budget).unwrap_err();
    assert!(matches!(e, OverBudget::Nodes { .. }), "{e}");
    assert!(
        e.to_string().contains("fetch.max_items_per_feed = 2"),
        "{e}"
    );
    assert!(e.to_string().contains(&budget.nodes.to_string()), "{e}");

    let deep = rss(&format!(
        "{}{}",
        "<x>".repeat(DEPTH + 1),
        "</x>".repeat(DEPTH + 1)
    ));
    assert!(matches!(
        bound(&deep, &budget),
        Err(OverBudget::Depth { .. })
    ));

    let attrs: String = (0..=ATTRIBUTES).map(|i| format!(" a{i}=\"\"")).collect();
    let wide = rss(&format!("<item><link{attrs}/></item>"));
    assert!(matches!(
        bound(&wide, &budget),
        Err(OverBudget::Attributes { .. })
    ));

    let bases = rss(&format!(
        "{}{}",
        "<x xml:base=\"a/\">".repeat(XML_BASES + 1),
        "</x>".repeat(XML_BASES + 1)
    ));
    assert!(matches!(
        bound(&bases, &budget),
        Err(OverBudget::XmlBase { .. })
    ));
}

#[test]
fn markup_inside_item_texts_is_text_not_objects() {
    let budget = Budget::for_items(2);
    let p = "<p>para <a href=\"x\">link</a></p>".repeat(budget.nodes);
    let text = format!(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><entry><content type=\"xhtml\"><div>{p}</div></content></entry></feed>"
    );
    let b = bound(&text, &budget).unwrap();
    assert_eq!(b.entries, 1);
    assert!(b.nodes < 10, "{}", b.nodes);
    let encoded = rss(&format!(
        "<item><content:encoded>{p}</content:encoded></item>"
    ));
    assert!(bound(&encoded, &budget).is_ok());
    // media:content is an object with objects in it, not a text.
    let media = rss(&format!(
        "<item><media:content>{}</media:content></item>",
        "<media:thumbnail url=\"x\"/>".repeat(budget.nodes)
    ));
    assert!(matches!(
        bound(&media, &budget),
        Err(OverBudget::Nodes { .. })
    ));
}

#[test]
fn json_items_and_arrays_are_cut_and_everything_else_copied() {
    let items = (0..10)
        .map(|i| {
            format!(
                "{{\"id\":\"{i}\",\"tags\":[{}]}}",
                vec!["\"t\""; 100].join(",")
            )
        })
        .collect::<Vec<_>>()
        .join(",");
    let text = format!(
        "{{\"version\":\"https://jsonfeed.org/version/1.1\",\"items\":[{items}],\"title\":\"T \\\"q\\\" \\u00e9\",\"n\":1.5,\"big\":18446744073709551615,\"x\":null}}"
    );
    let b = bound(&text, &Budget::for_items(3)).unwrap();
    assert_eq!(b.entries, 3);
    let v: serde_json::Value = serde_json::from_str(&b.text).unwrap();
    assert_eq!(v["items"].as_array().unwrap().len(), 3);
    assert_eq!(v["items"][2]["id"], "2");
    assert_eq!(v["items"][0]["tags"].as_array().unwrap().len(), JSON_ARRAY);
    assert_eq!(v["title"], "T \"q\" é");
    assert_eq!(v["n"], 1.5);
    assert_eq!(v["big"], u64::MAX);
    assert!(v["x"].is_null());
    // A small feed reads the same.
    let small = "{\"version\":\"https://jsonfeed.org/version/1\",\"title\":\"t\",\"items\":[{\"id\":\"1\"},{\"id\":\"2\"}]}";
    let b = bound(small, &Budget::for_items(3)).unwrap();
    assert_eq!(b.text, small);
    assert_eq!(b.entries, 2);
}

#[test]
fn broken_json_is_not_a_feed() {
    let e = bound("{\"items\":[{}", &Budget::for_items(3)).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("not a feed: unable to parse JSON"),
        "{e}"
    );
    let deep = format!("{{\"items\":{}{}}}", "[".repeat(200), "]".repeat(200));
    assert!(bound(&deep, &Budget::for_items(3)).is_err());
}
