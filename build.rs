//! Compiles Debian's `mecab-ipadic` source (EUC-JP CSV + .def files) into a
//! lindera 6.2 binary dictionary in OUT_DIR/lindera-ipadic, and exports
//! LINDERA_WORKDIR=OUT_DIR so `lindera_dictionary::embedded_dictionary!`
//! can `include_bytes!` it. No network access.

use std::env;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use lindera_dictionary::builder::DictionaryBuilder;
use lindera_dictionary::dictionary::metadata::Metadata;

/// Where Debian's `mecab-ipadic` package installs the dictionary source.
const DEFAULT_IPADIC_DIR: &str = "/usr/share/mecab/dic/ipadic";
/// Optional override of the source directory.
const IPADIC_DIR_ENV: &str = "MATOME_IPADIC_DIR";
/// Sub-directory of OUT_DIR; must match the first argument of
/// `embedded_dictionary!` in the crate.
const OUTPUT_SUBDIR: &str = "lindera-ipadic";

/// lindera-ipadic 6.2.0's metadata.json, except `"encoding": "EUC-JP"`
/// (Debian ships the original EUC-JP source; lindera's own tarball is UTF-8).
const IPADIC_METADATA: &str = r#"{
  "name": "ipadic",
  "encoding": "EUC-JP",
  "default_word_cost": -10000,
  "default_left_context_id": 0,
  "default_right_context_id": 0,
  "default_field_value": "*",
  "flexible_csv": true,
  "skip_invalid_cost_or_id": false,
  "normalize_details": true,
  "dictionary_schema": {
    "fields": [
      "surface",
      "left_context_id",
      "right_context_id",
      "cost",
      "part_of_speech",
      "part_of_speech_subcategory_1",
      "part_of_speech_subcategory_2",
      "part_of_speech_subcategory_3",
      "conjugation_form",
      "conjugation_type",
      "base_form",
      "reading",
      "pronunciation"
    ]
  },
  "user_dictionary_schema": {
    "fields": ["surface", "part_of_speech", "reading"]
  }
}"#;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed={IPADIC_DIR_ENV}");

    let input_dir =
        PathBuf::from(env::var_os(IPADIC_DIR_ENV).unwrap_or_else(|| DEFAULT_IPADIC_DIR.into()));
    check_source(&input_dir);
    // A directory path makes cargo rescan every file in it for changes.
    println!("cargo::rerun-if-changed={}", input_dir.display());

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR is not set"));
    let output_dir = out_dir.join(OUTPUT_SUBDIR);
    if output_dir.exists() {
        fs::remove_dir_all(&output_dir)
            .unwrap_or_else(|e| fail(&format!("cannot clear {}: {e}", output_dir.display())));
    }

    let metadata = Metadata::load(IPADIC_METADATA.as_bytes())
        .unwrap_or_else(|e| fail(&format!("invalid IPADIC metadata: {e}")));
    let started = Instant::now();
    DictionaryBuilder::new(metadata)
        .build_dictionary(&input_dir, &output_dir)
        .unwrap_or_else(|e| {
            fail(&format!(
                "failed to build IPADIC from {}: {e}",
                input_dir.display()
            ))
        });
    // Not a cargo directive: shows up in target/*/build/*/output (and with -vv).
    println!("ipadic dictionary built in {:.2?}", started.elapsed());

    // Read by `env!("LINDERA_WORKDIR")` inside `embedded_dictionary!`.
    println!("cargo::rustc-env=LINDERA_WORKDIR={}", out_dir.display());
}

/// Fails the build with an actionable message if the IPADIC source is absent.
fn check_source(dir: &Path) {
    let has_csv = fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .any(|e| e.path().extension().is_some_and(|x| x == "csv"))
        })
        .unwrap_or(false);
    let missing: Vec<&str> = ["matrix.def", "char.def", "unk.def"]
        .into_iter()
        .filter(|f| !dir.join(f).is_file())
        .collect();
    if !has_csv || !missing.is_empty() {
        let mut what = missing;
        if !has_csv {
            what.insert(0, "*.csv");
        }
        fail(&format!(
            "IPADIC source not found in {} (missing: {}).\n\
             install Debian's mecab-ipadic (apt-get install -y mecab-ipadic), \
             or point {IPADIC_DIR_ENV} at a directory holding the EUC-JP IPADIC \
             *.csv, matrix.def, char.def and unk.def.",
            dir.display(),
            what.join(", "),
        ));
    }
}

/// Aborts the build script with a readable message (no panic backtrace).
fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(1);
}
