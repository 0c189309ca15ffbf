//! The import graph between matome's top-level modules (`src/<name>.rs` or `src/<name>/`) has no
//! cycles: a module's code (tests and comments left out) may name `crate::other` only where
//! `other` does not, directly or through others, name it back. Read from the source as text:
//! every `crate::NAME` path outside comments and `#[cfg(test)]` items is an edge (so code placed
//! after a file's test module counts too).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The top-level module of each non-test `crate::NAME` reference in `src/`, per module.
fn edges(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let test_files = test_module_paths(src);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs")
            || test_files.iter().any(|t| path.starts_with(t))
        {
            continue;
        }
        let rel = path.strip_prefix(src).unwrap();
        let first = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let module = first.trim_end_matches(".rs").to_string();
        if module == "main" || module == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        for line in without_test_modules(&text).lines() {
            let line = line.split("//").next().unwrap();
            for (i, _) in line.match_indices("crate::") {
                let name: String = line[i + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != module {
                    edges.entry(module.clone()).or_default().insert(name);
                }
            }
        }
    }
    edges
}

/// The files (`NAME.rs`) and folders (`NAME/`) of the test modules that live in files of their
/// own: `#[cfg(test)] mod NAME;` in `foo.rs` or `foo/mod.rs` is `foo/NAME.rs` (or
/// `foo/NAME/mod.rs`), with everything below `foo/NAME/`.
fn test_module_paths(src: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(src) {
        let entry = entry.unwrap();
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let stem = path.file_stem().unwrap().to_string_lossy();
        let dir = if ["mod", "lib", "main"].contains(&stem.as_ref()) {
            path.parent().unwrap().to_path_buf()
        } else {
            path.with_extension("")
        };
        let text = std::fs::read_to_string(path).unwrap();
        for (i, _) in text.match_indices("#[cfg(test)]") {
            let after = text[i + "#[cfg(test)]".len()..].trim_start();
            let after = after.strip_prefix("pub(crate) ").unwrap_or(after);
            let Some(decl) = after.strip_prefix("mod ") else {
                continue;
            };
            let name: String = decl
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if decl[name.len()..].trim_start().starts_with(';') {
                out.push(dir.join(format!("{name}.rs")));
                out.push(dir.join(&name));
            }
        }
    }
    out
}

/// `text` without its `#[cfg(test)]` items (each up to its matching closing brace; braces in
/// strings are rare enough in this code base to be balanced), code after them kept.
fn without_test_modules(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(open) = rest.find('{') else {
            return out;
        };
        // An item without a body (`mod tests;`, a `use`): up to its `;`.
        if let Some(semi) = rest.find(';').filter(|&semi| semi < open) {
            rest = &rest[semi + 1..];
            continue;
        }
        let mut depth = 0usize;
        let mut end = rest.len();
        for (j, c) in rest[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + j + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A cycle through `start`, as the path of modules, if there is one.
fn cycle_from(edges: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    // Depth-first search that remembers how each module was reached.
    let mut parent: BTreeMap<&str, &str> = BTreeMap::new();
    let mut stack = vec![start];
    while let Some(m) = stack.pop() {
        for next in edges.get(m).into_iter().flatten() {
            if next == start {
                // m, the module that reached m, …, back to start's first step; then in order.
                let mut back = Vec::new();
                let mut at = m;
                while at != start {
                    back.push(at.to_string());
                    at = parent[at];
                }
                back.reverse();
                let mut path = vec![start.to_string()];
                path.extend(back);
                path.push(start.to_string());
                return Some(path);
            }
            if !parent.contains_key(next.as_str()) && next != start {
                parent.insert(next, m);
                stack.push(next);
            }
        }
    }
    None
}

#[test]
fn top_level_modules_import_each_other_without_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let edges = edges(&src);
    assert!(
        edges.contains_key("config") && edges.contains_key("render"),
        "{edges:?}"
    );
    let cycles: Vec<String> = edges
        .keys()
        .filter_map(|m| cycle_from(&edges, m))
        .map(|c| c.join(" → "))
        .collect();
    assert!(
        cycles.is_empty(),
        "import cycles between modules: {cycles:#?}"
    );
}

#[test]
fn code_after_a_test_module_still_counts() {
    let text = "use crate::a;\n#[cfg(test)]\nmod tests {\n    fn f() { let _ = crate::b; }\n}\npub fn g() { crate::c::h() }\n";
    let code = without_test_modules(text);
    assert!(
        code.contains("crate::a") && code.contains("crate::c"),
        "{code}"
    );
    assert!(!code.contains("crate::b"), "{code}");
}

/// `#[cfg(test)] mod tests;` once hid the item after it (its braces were taken for the test
/// module's), and the test file it names was read as the module's own code.
#[test]
fn a_test_module_in_a_file_of_its_own_is_left_out_and_hides_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    let write = |rel: &str, text: &str| {
        let p = src.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "a.rs",
        "use crate::b;\n#[cfg(test)]\nmod tests;\npub fn f() { crate::c::g() }\n",
    );
    write("a/tests.rs", "use crate::d;\n");
    write(
        "e/mod.rs",
        "#[cfg(test)]\nmod proptests;\npub fn h() { crate::c::g() }\n",
    );
    write("e/proptests.rs", "use crate::d;\n");
    let edges = edges(src);
    let names = |m: &str| edges[m].iter().cloned().collect::<Vec<_>>();
    assert_eq!(names("a"), ["b", "c"], "{edges:?}");
    assert_eq!(names("e"), ["c"], "{edges:?}");
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (a, b) in [
        ("config", "analyze"),
        ("analyze", "content"),
        ("content", "config"),
        ("cli", "config"),
    ] {
        edges.entry(a.into()).or_default().insert(b.into());
    }
    assert_eq!(
        cycle_from(&edges, "config").unwrap(),
        ["config", "analyze", "content", "config"]
    );
    assert_eq!(cycle_from(&edges, "cli"), None);
}
