//! `matome init` (a site that builds at once, and its GitHub Actions workflow) and `matome check`.

use std::path::Path;
use std::process::Command;

use yaml_rust2::{Yaml, YamlLoader};

use crate::support::Site;

fn matome(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_matome"))
        .args(args)
        .current_dir(cwd)
        .env("CI", "true")
        .output()
        .expect("run matome")
}

#[test]
fn an_initialised_site_builds_checks_and_refuses_a_second_init() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("news");
    let out = matome(&["init", root.to_str().unwrap()], dir.path());
    assert!(out.status.success(), "{out:?}");
    for f in [
        "matome.toml",
        ".gitignore",
        "content",
        ".github/workflows/matome.yml",
    ] {
        assert!(root.join(f).exists(), "init wrote no {f}");
    }
    // The theme stays built into matome, so an upgrade reaches the site.
    for f in ["themes", "templates", "static"] {
        assert!(!root.join(f).exists(), "init wrote {f}/");
    }
    // It builds at once (no content yet) and its links hold.
    let out = matome(&["--root", root.to_str().unwrap(), "build"], dir.path());
    assert!(out.status.success(), "{out:?}");
    assert!(root.join("public/index.html").exists());
    let out = matome(&["--root", root.to_str().unwrap(), "check"], dir.path());
    assert!(out.status.success(), "{out:?}");
    // Never over an existing site.
    let out = matome(&["init", root.to_str().unwrap()], dir.path());
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already"));
}

fn steps(job: &Yaml) -> &Vec<Yaml> {
    job["steps"].as_vec().expect("steps")
}

fn step_with(steps: &[Yaml], pred: impl Fn(&Yaml) -> bool) -> Option<&Yaml> {
    steps.iter().find(|s| pred(s))
}

#[test]
fn the_workflow_fetches_hourly_commits_builds_and_deploys() {
    let docs = YamlLoader::load_from_str(matome::init::WORKFLOW).expect("workflow YAML parses");
    let wf = &docs[0];
    // Hourly cron and a manual trigger.
    let on = &wf["on"];
    let cron = on["schedule"][0]["cron"].as_str().expect("a cron schedule");
    let fields: Vec<&str> = cron.split_whitespace().collect();
    assert_eq!(fields.len(), 5, "{cron}");
    assert!(fields[0].parse::<u32>().is_ok_and(|m| m < 60), "{cron}");
    assert_eq!(&fields[1..], ["*", "*", "*", "*"], "every hour: {cron}");
    assert!(!on["workflow_dispatch"].is_badvalue(), "manual dispatch");
    // Never two runs at once.
    assert!(wf["concurrency"]["group"].as_str().is_some());
    assert_eq!(
        wf["concurrency"]["cancel-in-progress"].as_bool(),
        Some(false)
    );

    let update = steps(&wf["jobs"]["update"]);
    let uses = |name: &str| {
        step_with(update, |s| {
            s["uses"].as_str().is_some_and(|u| u.starts_with(name))
        })
    };
    let run_index = |needle: &str| {
        update
            .iter()
            .position(|s| s["run"].as_str().is_some_and(|r| r.contains(needle)))
            .unwrap_or_else(|| panic!("no step runs {needle:?}"))
    };
    assert!(uses("actions/checkout@").is_some());
    assert_caches(update);
    assert!(update.iter().any(|s| {
        s["run"]
            .as_str()
            .is_some_and(|r| r.contains("mecab-ipadic") && r.contains("cargo install"))
    }));
    let fetch = run_index("matome fetch");
    let save = run_index("git diff --cached");
    let build = run_index("matome build --base-url");
    assert!(
        fetch < save && save < build,
        "fetch, save the snapshot, then build"
    );
    assert!(
        update[save]["run"]
            .as_str()
            .unwrap()
            .contains("-- content fetch-state.json")
    );
    // The snapshot is committed by the `commit` job, from the update job's patch.
    let commit_job = &wf["jobs"]["commit"];
    assert_eq!(commit_job["needs"].as_str(), Some("update"));
    let commit_run = steps(commit_job)
        .iter()
        .filter_map(|s| s["run"].as_str())
        .find(|r| r.contains("git commit"))
        .expect("the commit job commits");
    assert!(commit_run.contains("git apply --index"), "{commit_run}");
    assert!(commit_run.contains("push"), "{commit_run}");
    // Built with the Pages URL (passed through the environment, never into the script's text),
    // uploaded, deployed.
    assert_eq!(
        update[build]["env"]["PAGES_URL"].as_str(),
        Some("${{ steps.pages.outputs.base_url }}")
    );
    assert!(uses("actions/configure-pages@").is_some());
    let upload = uses("actions/upload-pages-artifact@").expect("upload step");
    assert_eq!(upload["with"]["path"].as_str(), Some("public"));
    let deploy = &wf["jobs"]["deploy"];
    let needs: Vec<&str> = deploy["needs"]
        .as_vec()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert_eq!(needs, ["update", "commit"], "deployed once committed");
    assert_eq!(deploy["permissions"]["pages"].as_str(), Some("write"));
    assert_eq!(deploy["permissions"]["id-token"].as_str(), Some("write"));
    assert_eq!(deploy["environment"]["name"].as_str(), Some("github-pages"));
    assert!(
        step_with(steps(deploy), |s| s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("actions/deploy-pages@")))
        .is_some()
    );
}

/// Issue 13: both workflows cache the binary on its own, saved once per matome commit (a key
/// without the run id: issue 21, the commit MATOME_REF resolves to), so the hourly save holds
/// only the site's caches (`.matome/` and public/), which are saved every run and restored by
/// prefix.
pub(crate) fn assert_caches(update: &[Yaml]) {
    let caches: Vec<&Yaml> = update
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/cache@"))
        })
        .collect();
    let paths: Vec<&str> = caches
        .iter()
        .map(|c| c["with"]["path"].as_str().unwrap())
        .collect();
    for p in [".matome", "public", "matome"] {
        assert!(
            paths.iter().any(|c| c.contains(p)),
            "cache keeps {p}: {paths:?}"
        );
    }
    let bin = caches
        .iter()
        .find(|c| c["with"]["path"].as_str() == Some("~/.cargo/bin/matome"))
        .expect("the binary has a cache of its own");
    let bin_key = bin["with"]["key"].as_str().unwrap();
    assert!(!bin_key.contains("run_id"), "{bin_key}");
    assert_eq!(bin_key, "matome-bin-${{ steps.ref.outputs.sha }}");
    let site_cache = caches
        .iter()
        .find(|c| {
            c["with"]["path"]
                .as_str()
                .is_some_and(|p| p.contains(".matome"))
        })
        .unwrap();
    let site_paths = site_cache["with"]["path"].as_str().unwrap();
    assert!(
        site_paths.contains("public") && !site_paths.contains("cargo"),
        "{site_paths}"
    );
    assert!(
        site_cache["with"]["key"]
            .as_str()
            .unwrap()
            .contains("github.run_id")
    );
    assert!(site_cache["with"]["restore-keys"].as_str().is_some());
}

fn demo_site() -> Site {
    crate::support::demo_site("http://127.0.0.1/test/")
}

#[test]
fn check_passes_a_good_site_and_names_each_problem() {
    let site = demo_site();
    site.matome(&["build"]).assert_success();
    let ok = site.matome(&["check"]);
    ok.assert_success();
    assert!(ok.stdout.contains("0 problem(s)"), "{}", ok.stdout);

    // A page gone: every page that links to it is named.
    std::fs::remove_dir_all(site.path("public/categories/IT")).unwrap();
    // An item archived twice, and a file named for another hour.
    let files: Vec<_> = walkdir::WalkDir::new(site.path("content"))
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    let first = std::fs::read_to_string(&files[0]).unwrap();
    site.write("content/2030/01/01/0000.md", &first);
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains("broken link \"/test/categories/IT/\""),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("public/2021/07/20/0800/index.html"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("is also in content/2021"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("content/2030/01/01/0000.md: its hour is"),
        "{}",
        out.stderr
    );

    // A broken content file is reported with its line.
    site.write("content/2030/01/01/0000.md", "+++\nhour = 1\n+++\n");
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains("content/2030/01/01/0000.md:2"),
        "{}",
        out.stderr
    );
}

#[test]
fn check_without_a_built_site_says_to_build() {
    let site = demo_site();
    let out = site.matome(&["check"]);
    out.assert_code(1);
    assert!(
        out.stderr.contains("run `matome build` first"),
        "{}",
        out.stderr
    );
}
