//! The scripts that run the binary (`scripts/demo`, `scripts/screenshot`,
//! `scripts/make-demo-archive`) find it where cargo builds it: `scripts/matome-bin` asks cargo
//! for its target directory, so `CARGO_TARGET_DIR` is honoured (a relative one from the folder
//! the script is started in, as cargo reads it), and none of them names `target/debug` itself.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `scripts/matome-bin` run in `cwd`, with `CARGO_TARGET_DIR` set to `target_dir` (or as the
/// tests were started, when `None`).
fn matome_bin(cwd: &Path, target_dir: Option<&str>) -> PathBuf {
    let mut cmd = Command::new(repo().join("scripts/matome-bin"));
    cmd.current_dir(cwd);
    if let Some(d) = target_dir {
        cmd.env("CARGO_TARGET_DIR", d);
    }
    let out = cmd.output().expect("run scripts/matome-bin");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim_end())
}

#[test]
fn matome_bin_names_the_binary_cargo_built_wherever_its_target_dir_is() {
    let built = Path::new(env!("CARGO_BIN_EXE_matome"));
    let target = built.parent().unwrap().parent().unwrap();
    // As these tests were built: the binary they run.
    assert_eq!(matome_bin(repo(), None), built);
    // The same folder given as CARGO_TARGET_DIR, absolute and relative to where it is started.
    assert_eq!(matome_bin(repo(), Some(target.to_str().unwrap())), built);
    let (parent, name) = (target.parent().unwrap(), target.file_name().unwrap());
    assert_eq!(matome_bin(parent, Some(name.to_str().unwrap())), built);
    // Another folder, relative to where the script is started, not to the repository.
    let elsewhere = tempfile::tempdir().unwrap();
    assert_eq!(
        matome_bin(elsewhere.path(), Some("out")),
        elsewhere.path().join("out/debug/matome")
    );
}

#[test]
fn the_scripts_that_run_matome_take_it_from_matome_bin() {
    for script in ["demo", "screenshot", "make-demo-archive"] {
        let text = std::fs::read_to_string(repo().join("scripts").join(script)).unwrap();
        let code: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with('#'))
            .collect();
        assert!(
            code.iter()
                .any(|l| l.trim() == "matome=$(scripts/matome-bin)"),
            "{script} takes its binary from scripts/matome-bin"
        );
        assert!(
            code.iter().all(|l| !l.contains("target/debug")),
            "{script} names no target folder itself"
        );
        // A relative CARGO_TARGET_DIR is made absolute before the script leaves its folder.
        let made_absolute = code
            .iter()
            .position(|l| l.contains("export CARGO_TARGET_DIR=$PWD/$CARGO_TARGET_DIR"));
        let cd = code.iter().position(|l| l.starts_with("cd "));
        assert!(
            made_absolute.is_some() && made_absolute < cd,
            "{script}: CARGO_TARGET_DIR is resolved where the script is started"
        );
    }
}
