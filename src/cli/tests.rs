//! Unit tests of `cli.rs` (kept beside it so the file reads as the code).
use super::*;
use clap::CommandFactory;

#[test]
fn cli_is_well_formed() {
    Cli::command().debug_assert();
}

#[test]
fn exclusions_after_search_are_words_not_options() {
    let args = normalize_args(
        [
            "matome",
            "--root",
            "/x",
            "search",
            "日本銀行",
            "-円安",
            "--json",
            "-h",
            "-",
        ]
        .map(std::ffi::OsString::from),
    );
    assert_eq!(
        args,
        [
            "matome",
            "--root",
            "/x",
            "search",
            "日本銀行",
            "\u{2212}円安",
            "--json",
            "-h",
            "-"
        ]
        .map(std::ffi::OsString::from)
    );
    let cli = Cli::try_parse_from(args.into_iter().take(7)).unwrap();
    let Command::Search(s) = cli.command else {
        panic!("search")
    };
    assert_eq!(s.query, ["日本銀行", "\u{2212}円安"]);
    assert!(s.json);
}

#[test]
fn root_is_accepted_after_the_subcommand_too() {
    let cli = Cli::try_parse_from(["matome", "fetch", "--root", "/tmp/site", "--strict"]).unwrap();
    assert_eq!(cli.root, PathBuf::from("/tmp/site"));
}

#[test]
fn bad_now_is_explained() {
    let e = Cli::try_parse_from(["matome", "fetch", "--now", "yesterday"]).unwrap_err();
    assert!(e.to_string().contains("RFC 3339"), "{e}");
}
