//! Unit tests of `search/static_index.rs` (kept beside it so the file itself reads as the code).
use super::*;
use crate::test_rng::XorShift;

fn terms_of(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_term(&normalize(text), &mut |t| out.push(t.to_string()));
    out
}

const TZ: chrono_tz::Tz = chrono_tz::Asia::Tokyo;

fn doc<'a>(title: &'a str, summary: &'a str, digest_url: &'a str) -> StaticDoc<'a> {
    StaticDoc {
        title,
        summary,
        link: Some("https://example.com/a"),
        site: "サイト",
        category: "IT",
        published: 1_626_736_800,
        digest_url,
        story: None,
    }
}

#[test]
fn normalize_folds_width_and_case() {
    assert_eq!(normalize("ＡＩ規制　ﾃﾞｰﾀ"), "ai規制 データ");
    assert_eq!(normalize("Regulations"), "regulations");
}

#[test]
fn cjk_runs_become_kanji_unigrams_bigrams_and_words_stems() {
    assert_eq!(
        terms_of("気候変動とAI規制"),
        [
            "気", "気候", "候", "候変", "変", "変動", "動", "動と", "ai", "規", "規制", "制"
        ]
    );
    assert_eq!(
        terms_of("New regulations, regulated: Regulation!"),
        ["new", "regul", "regul", "regul"]
    );
    // A lone CJK character between other characters is a term of its own.
    assert_eq!(terms_of("米Apple、2024年"), ["米", "appl", "2024", "年"]);
    // Kana unigrams are not kept: a lone kana is never a query.
    assert_eq!(
        terms_of("ﾃﾞｰﾀｾﾝﾀｰ"),
        ["デー", "ータ", "タセ", "セン", "ンタ", "ター"]
    );
    assert_eq!(terms_of(""), Vec::<String>::new());
    assert_eq!(terms_of("・「」 — "), Vec::<String>::new());
}

#[test]
fn varints_round_trip() {
    let values = [
        0u64,
        1,
        127,
        128,
        300,
        16_383,
        16_384,
        u32::MAX as u64,
        u64::MAX,
    ];
    let mut buf = Vec::new();
    for &v in &values {
        put_varint(&mut buf, v);
    }
    let mut pos = 0;
    for &v in &values {
        assert_eq!(get_varint(&buf, &mut pos), Some(v));
    }
    assert_eq!(pos, buf.len());
    assert_eq!(get_varint(&buf, &mut pos), None);
    assert_eq!(get_varint(&[0x80, 0x80], &mut 0), None);
}

#[test]
fn postings_round_trip_as_deltas_or_bitmap() {
    let sparse = vec![3, 1000, 70_000];
    let dense: Vec<u32> = (100..5000).filter(|d| d % 3 != 0).collect();
    let (k, p) = encode_postings(&sparse);
    assert_eq!(k, 0);
    assert_eq!(decode_postings(k, &p, 3).unwrap(), sparse);
    let (k, p) = encode_postings(&dense);
    assert_eq!(k, 1, "a dense list is a bitmap");
    assert!(p.len() <= 4900 / 8 + 3);
    assert_eq!(decode_postings(k, &p, dense.len()).unwrap(), dense);
    let mut rng = XorShift(7);
    for _ in 0..200 {
        let mut v: Vec<u32> = (0..rng.next() % 50)
            .map(|_| (rng.next() % 300) as u32)
            .collect();
        v.sort_unstable();
        v.dedup();
        let (k, p) = encode_postings(&v);
        assert_eq!(decode_postings(k, &p, v.len()).unwrap(), v);
    }
}

#[test]
fn bucket_hash_is_fnv1a_folded() {
    // The page's JavaScript pins the same values.
    assert_eq!(bucket_of("気候", 1 << 16), 0xcdb0);
    assert_eq!(bucket_of("regul", 1 << 16), 0x30f3);
    assert_eq!(bucket_of("regul", 256), bucket_of("regul", 1 << 16) & 255);
}

/// Every item that contains a query (as the page checks it) is a candidate of the index:
/// randomized over a small alphabet so bigrams collide and repeat.
#[test]
fn every_substring_match_is_a_candidate() {
    let pieces = [
        "気", "候", "変", "動", "日", "本", "銀", "行", "ー", "a", "b", " ", "、",
    ];
    let mut rng = XorShift(42);
    let texts: Vec<(String, String)> = (0..300)
        .map(|_| (rng.text(&pieces, 12), rng.text(&pieces, 30)))
        .collect();
    let docs: Vec<StaticDoc> = texts
        .iter()
        .map(|(t, s)| doc(t, s, "2021/07/20/0800/"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let shard = write_month(dir.path(), "2021-07", &docs, TZ).unwrap();
    let mut index: FxHashMap<String, Vec<u32>> = FxHashMap::default();
    for b in 0..shard.buckets {
        let path = |k: Option<usize>| {
            let k = k.map_or(String::new(), |k| format!("-{k}"));
            dir.path().join(format!("2021-07/b{b:03x}{k}.bin"))
        };
        let bytes = std::fs::read(path(None)).unwrap();
        let terms = read_bucket(&bytes, |k| Ok(std::fs::read(path(Some(k)))?)).unwrap();
        for t in terms {
            assert_eq!(bucket_of(&t.term, shard.buckets), b);
            index.insert(t.term, t.docs);
        }
    }
    for _ in 0..400 {
        let q: String = (0..2 + rng.next() % 3)
            .map(|_| rng.pick(&pieces[..9]))
            .collect();
        let clause = crate::search::terms::clause_terms(&q);
        let qterms: Vec<String> = clause
            .iter()
            .filter(|t| crate::search::terms::is_indexed(t))
            .map(|t| t.text.clone())
            .collect();
        for (n, (t, s)) in texts.iter().enumerate() {
            let (t, s) = (normalize(t), normalize(s));
            let found = crate::search::terms::matches_clause(&t, &clause)
                || crate::search::terms::matches_clause(&s, &clause);
            let pieces_only = !q.contains(['ー', 'a', 'b', ' ', '、']);
            if pieces_only && !clause.is_empty() {
                // For CJK text a clause's match is the substring as written.
                assert_eq!(found, t.contains(&q) || s.contains(&q), "{q} in item {n}");
            }
            if found {
                for term in &qterms {
                    let list = index.get(term).unwrap_or_else(|| panic!("{term} missing"));
                    assert!(list.contains(&(n as u32)), "{q}: item {n} lacks {term}");
                }
            }
        }
    }
}

#[test]
fn the_same_docs_give_the_same_bytes() {
    let docs = [
        doc(
            "日本銀行が金融政策",
            "長期金利の上昇を容認",
            "2021/07/20/0800/",
        ),
        StaticDoc {
            published: 1_626_736_800 + 86_400,
            ..doc("Regulators eye AI", "New regulation", "2021/07/21/0900/")
        },
    ];
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let sa = write_month(a.path(), "2021-07", &docs, TZ).unwrap();
    let sb = write_month(b.path(), "2021-07", &docs, TZ).unwrap();
    assert_eq!(sa, sb);
    assert_eq!(sa.days, vec![(20210720, 0), (20210721, 1)]);
    for f in &sa.files {
        assert_eq!(
            std::fs::read(a.path().join(f)).unwrap(),
            std::fs::read(b.path().join(f)).unwrap(),
            "{f}"
        );
    }
    write_manifest(a.path(), std::slice::from_ref(&sa), &["IT"]).unwrap();
    let again = write_month(a.path(), "2021-07", &docs, TZ).unwrap();
    assert_eq!((again.written, again.removed), (0, 0), "nothing rewritten");
}

#[test]
fn a_new_item_rewrites_only_its_month() {
    let dir = tempfile::tempdir().unwrap();
    let june = [doc("6月の記事", "気候変動", "2021/06/30/2300/")];
    let mut july = vec![doc("7月の記事", "日本銀行", "2021/07/01/0000/")];
    let s6 = write_month(dir.path(), "2021-06", &june, TZ).unwrap();
    write_month(dir.path(), "2021-07", &july, TZ).unwrap();
    let stamp = |f: &str| {
        let p = dir.path().join(f);
        (
            std::fs::read(&p).unwrap(),
            std::fs::metadata(&p).unwrap().modified().unwrap(),
        )
    };
    let before: Vec<_> = s6.files.iter().map(|f| stamp(f)).collect();
    std::thread::sleep(std::time::Duration::from_millis(20));
    july.push(doc("新しい記事", "半導体", "2021/07/01/0100/"));
    let s7 = write_month(dir.path(), "2021-07", &july, TZ).unwrap();
    assert!(s7.written > 0);
    let after: Vec<_> = s6.files.iter().map(|f| stamp(f)).collect();
    assert_eq!(before, after, "June's files untouched");
    write_manifest(dir.path(), &[s6, s7], &["IT"]).unwrap();
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(SEARCH_MANIFEST)).unwrap()).unwrap();
    assert_eq!(m["format"], FORMAT);
    assert!(m["stop"].as_array().unwrap().iter().any(|w| w == "the"));
    assert_eq!(m["months"][0]["month"], "2021-07", "newest first");
    assert_eq!(m["months"][0]["docs"], 2);
    assert_eq!(m["months"][1]["month"], "2021-06");
    assert_eq!(m["categories"][0], "IT");
}

#[test]
fn stale_files_are_removed_and_buckets_grow_with_the_month() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = XorShift(3);
    let texts: Vec<String> = (0..4000)
        .map(|i| {
            let cjk: String = (0..60)
                .map(|_| char::from_u32(0x4e00 + (rng.next() % 300) as u32).unwrap())
                .collect();
            format!("記事{i} {cjk} word{i}")
        })
        .collect();
    let docs: Vec<StaticDoc> = texts
        .iter()
        .map(|t| doc(t, t, "2021/07/02/0100/"))
        .collect();
    let big = write_month(dir.path(), "2021-07", &docs, TZ).unwrap();
    assert!(big.buckets > MIN_BUCKETS, "{}", big.buckets);
    // The buckets, the names and the chunks.
    assert_eq!(
        big.files.len(),
        big.buckets + 1 + 4000usize.div_ceil(CHUNK_DOCS)
    );
    std::fs::write(dir.path().join("2021-07/.matome.x.tmp"), "half").unwrap();
    std::fs::write(dir.path().join("2021-07/keep.txt"), "not ours").unwrap();
    let small = write_month(dir.path(), "2021-07", &docs[..3], TZ).unwrap();
    assert_eq!(small.buckets, MIN_BUCKETS);
    let mut on_disk: Vec<String> = std::fs::read_dir(dir.path().join("2021-07"))
        .unwrap()
        .map(|e| format!("2021-07/{}", e.unwrap().file_name().to_string_lossy()))
        .filter(|n| !n.ends_with("keep.txt"))
        .collect();
    on_disk.sort();
    let mut expected = small.files.clone();
    expected.sort();
    assert_eq!(on_disk, expected);
    assert_eq!(small.removed, big.files.len() - small.files.len() + 1);
    let gone = write_month(dir.path(), "2021-07", &[], TZ).unwrap();
    assert_eq!((gone.docs, gone.files.len()), (0, 0));
    assert!(dir.path().join("2021-07/keep.txt").exists());
}

#[test]
fn long_lists_get_files_of_their_own() {
    let dir = tempfile::tempdir().unwrap();
    let texts: Vec<String> = (0..10_000).map(|i| format!("共通 word{i}")).collect();
    let docs: Vec<StaticDoc> = texts
        .iter()
        .map(|t| doc(t, "", "2021/07/02/0100/"))
        .collect();
    let shard = write_month(dir.path(), "2021-07", &docs, TZ).unwrap();
    let b = bucket_of("共通", shard.buckets);
    let path = |k: Option<usize>| {
        let k = k.map_or(String::new(), |k| format!("-{k}"));
        dir.path().join(format!("2021-07/b{b:03x}{k}.bin"))
    };
    let bucket = std::fs::read(path(None)).unwrap();
    let terms = read_bucket(&bucket, |k| Ok(std::fs::read(path(Some(k)))?)).unwrap();
    let t = terms.iter().find(|t| t.term == "共通").unwrap();
    let k = t.external.expect("an external list");
    assert_eq!(t.docs, (0..10_000).collect::<Vec<u32>>());
    let list = std::fs::read(path(Some(k))).unwrap();
    assert_eq!(list.len(), 1 + 10_000 / 8, "a bitmap, in its own file");
    assert!(
        shard
            .files
            .iter()
            .any(|f| f == &format!("2021-07/b{b:03x}-{k}.bin"))
    );
    assert!(is_shard_file("b01f-12.bin") && !is_shard_file("b01f-.bin"));
}

#[test]
fn bad_months_and_days() {
    let dir = tempfile::tempdir().unwrap();
    for m in ["2021-7", "../x", "2021-13", "2021/07", ""] {
        assert!(write_month(dir.path(), m, &[], TZ).is_err(), "{m}");
    }
    // 2021-07-19T23:20:00Z is the 20th in Tokyo, the 19th in UTC.
    assert_eq!(day_key(1_626_736_800, TZ), 20210720);
    assert_eq!(day_key(1_626_736_800, chrono_tz::UTC), 20210719);
}

#[test]
fn a_month_numbers_its_items_by_published_time() {
    let dir = tempfile::tempdir().unwrap();
    let late = StaticDoc {
        published: 1_626_736_800 - 3_600,
        ..doc("遅れて届いた記事", "", "2021/07/20/0800/")
    };
    let docs = [doc("先に届いた記事", "", "2021/07/20/0800/"), late];
    let shard = write_month(dir.path(), "2021-07", &docs, TZ).unwrap();
    let rows: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("2021-07/c0.json")).unwrap())
            .unwrap();
    assert_eq!(rows[0][0], "遅れて届いた記事");
    assert_eq!(rows[1][0], "先に届いた記事");
    assert_eq!(shard.days, vec![(20210720, 0)]);
}

#[test]
fn rows_name_sites_categories_and_digests_by_number_in_the_months_names() {
    let dir = tempfile::tempdir().unwrap();
    let docs = [
        StaticDoc {
            site: "甲サイト",
            category: "経済",
            ..doc("一本目", "", "2021/07/20/0800/")
        },
        StaticDoc {
            published: 1_626_736_800 + 60,
            ..doc("二本目", "", "2021/07/20/0900/")
        },
        StaticDoc {
            site: "甲サイト",
            published: 1_626_736_800 + 120,
            link: Some("https://甲.example/a/1?x=1&y=2"),
            ..doc("三本目", "", "2021/07/20/0900/")
        },
        StaticDoc {
            published: 1_626_736_800 + 180,
            link: None,
            ..doc("四本目", "", "2021/07/20/0900/")
        },
    ];
    write_month(dir.path(), "2021-07", &docs, TZ).unwrap();
    let read = |f: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.path().join("2021-07").join(f)).unwrap()).unwrap()
    };
    let (names, rows) = (read(NAMES_FILE), read("c0.json"));
    assert_eq!(names["sites"], serde_json::json!(["甲サイト", "サイト"]));
    assert_eq!(names["categories"], serde_json::json!(["経済", "IT"]));
    assert_eq!(
        names["digests"],
        serde_json::json!(["2021/07/20/0800/", "2021/07/20/0900/"])
    );
    assert_eq!(
        names["origins"],
        serde_json::json!(["https://example.com", "https://甲.example"])
    );
    assert_eq!(names["base"], 1_626_736_800);
    // What the page makes of a row (search.js's `doc`).
    let shown: Vec<(String, String, String, String, i64)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = |v: &serde_json::Value, list: &str| {
                names[list][v.as_u64().unwrap() as usize]
                    .as_str()
                    .unwrap()
                    .to_string()
            };
            let link = match r[2].as_array() {
                Some(l) => name(&l[0], "origins") + l[1].as_str().unwrap(),
                None => r[2].as_str().unwrap().to_string(),
            };
            let published = names["base"].as_i64().unwrap() + r[5].as_i64().unwrap();
            let (site, category) = (name(&r[3], "sites"), name(&r[4], "categories"));
            (site, category, name(&r[6], "digests"), link, published)
        })
        .collect();
    let want: Vec<(String, String, String, String, i64)> = docs
        .iter()
        .map(|d| {
            let (s, c, u) = (d.site.into(), d.category.into(), d.digest_url.into());
            (s, c, u, d.link.unwrap_or("").into(), d.published)
        })
        .collect();
    assert_eq!(shown, want);
    assert_eq!(rows[3][2], "", "no link");
    assert_eq!(
        split_origin("https://a.example"),
        Some(("https://a.example", ""))
    );
    assert_eq!(
        split_origin("https://a.example?q=1"),
        Some(("https://a.example", "?q=1"))
    );
}

/// Issue 24: a month whose items did not change but some of whose stories grew rewrites just
/// the chunks holding them, from the names of the rest, and comes out byte for byte as the
/// whole month written again (files, sizes, version).
#[test]
fn rewriting_some_chunks_gives_the_whole_months_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let titles: Vec<String> = (0..300).map(|i| format!("記事 {i}")).collect();
    let sites = ["甲", "乙", "丙", "丁"];
    let urls: Vec<String> = (0..30).map(|h| format!("2021/07/02/{h:02}00/")).collect();
    let docs: Vec<StaticDoc> = titles
        .iter()
        .enumerate()
        .map(|(i, t)| StaticDoc {
            site: sites[i * 7 % 4],
            category: if i % 3 == 0 { "経済" } else { "IT" },
            // Archive order and published order disagree.
            published: 1_626_736_800 + ((i * 37) % 300) as i64 * 60,
            ..doc(t, t, &urls[i / 10])
        })
        .collect();
    let old = write_month(dir.path(), "2021-07", &docs, TZ).unwrap();
    // Two items (of two chunks) join a story.
    let story = serde_json::json!([2, 2, 5, 200]);
    let published: Vec<i64> = docs.iter().map(|d| d.published).collect();
    let order = shard_order(&published);
    let (a, b) = (order[5] as usize, order[200] as usize);
    let mut grown = docs.clone();
    for k in [a, b] {
        grown[k].story = Some(&story);
    }
    let only: BTreeSet<usize> = [5 / CHUNK_DOCS, 200 / CHUNK_DOCS].into();
    // Outside those chunks only the names are given.
    let partial: Vec<StaticDoc> = grown
        .iter()
        .enumerate()
        .map(|(k, d)| {
            let n = order.iter().position(|&o| o as usize == k).unwrap();
            if only.contains(&(n / CHUNK_DOCS)) {
                *d
            } else {
                StaticDoc {
                    title: "",
                    summary: "",
                    ..*d
                }
            }
        })
        .collect();
    let rewritten = write_chunks(dir.path(), "2021-07", &partial, &only, &old)
        .unwrap()
        .expect("the old month fits");
    assert_eq!(rewritten.written, 2);
    let files = |d: &Path, shard: &MonthShard| -> Vec<(String, Vec<u8>)> {
        shard
            .files
            .iter()
            .map(|f| (f.clone(), std::fs::read(d.join(f)).unwrap()))
            .collect()
    };
    let partly = files(dir.path(), &rewritten);
    let whole_dir = tempfile::tempdir().unwrap();
    let whole = write_month(whole_dir.path(), "2021-07", &grown, TZ).unwrap();
    assert_eq!(partly, files(whole_dir.path(), &whole));
    assert_ne!(whole.version, old.version);
    assert_eq!(
        (&rewritten.version, rewritten.bytes, &rewritten.sums),
        (&whole.version, whole.bytes, &whole.sums)
    );
    // A record that does not fit (another count of items) is refused.
    assert!(
        write_chunks(dir.path(), "2021-07", &partial[1..], &only, &old)
            .unwrap()
            .is_none()
    );
}
