use super::*;
use crate::config::Config;

const HEAD: &str = "title = \"t\"\nbase_url = \"https://u.github.io/r/\"\n";

fn parse(tail: &str) -> Result<Config> {
    Config::parse(&format!("{HEAD}{tail}"), "matome.toml")
}

#[test]
fn targets_get_their_defaults() {
    let c = parse(
        "[[publish]]\nkind = \"bluesky\"\nhandle = \"@me.bsky.social\"\n\n[[publish]]\nkind = \"mastodon\"\ninstance = \"https://mstdn.jp/\"\nmax_chars = 1000\n\n[[publish]]\nkind = \"slack\"\n\n[[publish]]\nkind = \"x\"\n\n[[publish]]\nkind = \"hatena\"\nname = \"hatebu\"\ncategories = [\"IT\"]\n",
    )
    .unwrap();
    let [b, m, s, x, h] = &c.publish[..] else {
        panic!("{:?}", c.publish)
    };
    let Service::Bluesky(bs) = &b.service else {
        panic!()
    };
    assert_eq!(
        (b.name.as_str(), bs.handle.as_str()),
        ("bluesky", "me.bsky.social")
    );
    assert_eq!(bs.service, "https://bsky.social");
    assert_eq!(bs.password_env, "MATOME_BLUESKY_APP_PASSWORD");
    let Service::Mastodon(ms) = &m.service else {
        panic!()
    };
    assert_eq!(
        (ms.instance.as_str(), ms.max_chars),
        ("https://mstdn.jp", Some(1000))
    );
    assert_eq!(ms.token_env, "MATOME_MASTODON_TOKEN");
    assert_eq!(
        s.service,
        Service::Slack(ChatWebhook {
            url_env: "MATOME_SLACK_WEBHOOK_URL".into()
        })
    );
    assert_eq!(
        (b.hashtags, b.max_posts_per_run, b.trends, b.max_age_hours),
        (3, 3, true, 24)
    );
    let Service::X(xs) = &x.service else { panic!() };
    assert_eq!(xs.api, "https://api.x.com");
    assert_eq!(xs.consumer_key_env, "MATOME_X_CONSUMER_KEY");
    assert_eq!(xs.access_token_secret_env, "MATOME_X_ACCESS_TOKEN_SECRET");
    let Service::Hatena(hs) = &h.service else {
        panic!()
    };
    assert_eq!(hs.oauth.api, "https://bookmark.hatenaapis.com");
    // Named per target: a second Hatena account needs no setting to keep its secrets apart.
    assert_eq!(hs.oauth.consumer_key_env, "MATOME_HATEBU_CONSUMER_KEY");
    assert_eq!(
        (hs.bookmarks_per_digest, hs.categories.as_slice()),
        (3, &["IT".to_string()][..])
    );
    assert!(c.alerts.is_none());
}

#[test]
fn unknown_and_misplaced_keys_name_the_line() {
    let e = parse("\n[[publish]]\nkind = \"slack\"\ncolour = \"red\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("matome.toml:") && e.contains("colour"), "{e}");
    // A key of another kind is as unknown as a misspelt one.
    let e = parse("[[publish]]\nkind = \"slack\"\nhandle = \"x\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("matome.toml:") && e.contains("handle"), "{e}");
    let e = parse("[[publish]]\nkind = \"myspace\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("matome.toml:") && e.contains("bluesky"),
        "{e}"
    );
    let e = parse("[[publish]]\nkind = \"bluesky\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("needs `handle`"), "{e}");
    let e = parse(
        "[[publish]]\nkind = \"mastodon\"\ninstance = \"https://m.example\"\n\nmax_chars = 5\n",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("matome.toml:7:") && e.contains("max_chars"),
        "{e}"
    );
}

#[test]
fn a_secret_in_the_config_is_refused() {
    // A Slack or Discord webhook URL carries its token: only its variable's name goes here.
    let e =
        parse("[[publish]]\nkind = \"slack\"\nurl = \"https://hooks.slack.com/services/T/B/X\"\n")
            .unwrap_err()
            .to_string();
    assert!(
        e.contains("url_env") && e.starts_with("matome.toml:5:"),
        "{e}"
    );
    let e = parse(
        "[[publish]]\nkind = \"bluesky\"\nhandle = \"h\"\npassword_env = \"abcd-efgh-ijkl-mnop\"\n",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("NAME of an environment variable"), "{e}");
    let e = parse("[[publish]]\nkind = \"x\"\nconsumer_secret_env = \"kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw=\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("NAME of an environment variable") && !e.contains("kAcSO"),
        "{e}"
    );
}

#[test]
fn two_targets_of_a_kind_need_names() {
    let t = "[[publish]]\nkind = \"discord\"\n\n[[publish]]\nkind = \"discord\"\n";
    let e = parse(t).unwrap_err().to_string();
    assert!(e.contains("distinct `name`"), "{e}");
    let ok = parse(&t.replacen(
        "kind = \"discord\"\n",
        "kind = \"discord\"\nname = \"d2\"\nurl_env = \"D2\"\n",
        1,
    ))
    .unwrap();
    assert_eq!(ok.publish[0].name, "d2");
}

#[test]
fn alerts_need_a_destination_and_valid_addresses() {
    let e = parse("[alerts]\nfeed_failing_hours = 12\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("webhook_env"), "{e}");
    let e = parse("[alerts.email]\nhost = \"smtp.example.jp\"\nfrom = \"not an address\"\nto = [\"a@example.jp\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("matome.toml:5:") && e.contains("alerts.email.from"),
        "{e}"
    );
    let c = parse("[alerts.email]\nhost = \"smtp.example.jp\"\nfrom = \"bot@example.jp\"\nto = [\"a@example.jp\"]\n").unwrap();
    let a = c.alerts.unwrap();
    assert_eq!(a.feed_failing_hours, 24);
    let m = a.email.unwrap();
    assert_eq!(
        (m.port, m.starttls, m.password_env.as_str()),
        (587, true, "MATOME_SMTP_PASSWORD")
    );
}
