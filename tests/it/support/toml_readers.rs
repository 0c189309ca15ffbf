//! Every snapshot file a `matome` command writes, read by two other TOML implementations: the
//! `toml` crate as a strict TOML parser (integers in i64, dates TOML can hold) and Python's
//! `tomllib`. [`Site::matome`](super::Site::matome) runs [`check_written`] on the content files
//! each command created or changed, so every integration test checks what it made matome
//! write; files a test writes itself (broken on purpose) are not matome's and are not checked.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// What a content file was before a command: its size and modification time.
pub type Stamps = HashMap<PathBuf, (u64, SystemTime)>;

/// The `*.md` files under `root/content`, stamped.
pub fn stamps(root: &Path) -> Stamps {
    let mut out = Stamps::new();
    for e in walkdir::WalkDir::new(root.join("content"))
        .into_iter()
        .flatten()
    {
        if e.file_type().is_file()
            && e.path().extension().is_some_and(|x| x == "md")
            && let Ok(m) = e.metadata()
        {
            out.insert(
                e.path().to_path_buf(),
                (m.len(), m.modified().unwrap_or(SystemTime::UNIX_EPOCH)),
            );
        }
    }
    out
}

/// The files in `after` that are new or changed since `before`.
pub fn changed(before: &Stamps, after: &Stamps) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = after
        .iter()
        .filter(|(p, s)| before.get(*p) != Some(s))
        .map(|(p, _)| p.clone())
        .collect();
    out.sort();
    out
}

/// A snapshot file's front matter (between the `+++` fences).
fn front_matter(path: &Path) -> String {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: not UTF-8 ({e})", path.display()));
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let rest = text
        .strip_prefix("+++\n")
        .unwrap_or_else(|| panic!("{}: no opening +++", path.display()));
    rest.split_once("\n+++\n")
        .map(|(fm, _)| format!("{fm}\n"))
        .unwrap_or_else(|| panic!("{}: no closing +++", path.display()))
}

/// Each file's front matter as Python's `tomllib` reads it, as JSON (dates and times in
/// `isoformat()`).
pub fn tomllib(files: &[PathBuf]) -> Vec<serde_json::Value> {
    let script = r#"
import sys, tomllib, json, datetime
def plain(v):
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v
out = []
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    if text.startswith("\ufeff"):
        text = text[1:]
    assert text.startswith("+++\n"), path
    fm = text[4:].split("\n+++\n", 1)[0] + "\n"
    try:
        out.append(plain(tomllib.loads(fm)))
    except Exception as e:
        sys.exit(f"{path}: {e}")
print(json.dumps(out))
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(files)
        .output()
        .expect("python3 (3.11 or later, for tomllib) is needed: run scripts/setup");
    assert!(
        out.status.success(),
        "tomllib could not read a snapshot file matome wrote:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Both readers read every file in `files`, and agree on what each holds (the same items, ids
/// and trend volumes).
pub fn check_written(files: &[PathBuf]) {
    if files.is_empty() {
        return;
    }
    let python = tomllib(files);
    for (path, py) in files.iter().zip(&python) {
        let fm = front_matter(path);
        let strict: toml::Table = toml::from_str(&fm).unwrap_or_else(|e| {
            panic!(
                "{}: a strict TOML parser refuses a file matome wrote: {e}",
                path.display()
            )
        });
        let items = |t: Option<&toml::Value>| -> Vec<(String, Option<i64>)> {
            t.and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .map(|i| {
                            let id = i["id"].as_str().unwrap_or_default().to_string();
                            let volume = i
                                .get("trend")
                                .and_then(|t| t.get("volume"))
                                .and_then(|v| v.as_integer());
                            (id, volume)
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        let ours = items(strict.get("items"));
        let theirs: Vec<(String, Option<i64>)> = py["items"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|i| {
                        (
                            i["id"].as_str().unwrap_or_default().to_string(),
                            i["trend"]["volume"].as_i64(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(
            ours,
            theirs,
            "{}: the toml crate and tomllib disagree",
            path.display()
        );
    }
}
