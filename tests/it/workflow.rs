//! The GitHub Actions workflows `matome init` writes (issue 21, finding 9), as an attacker and
//! a linter read them: zizmor (installed by scripts/setup into target/tools/) finds nothing of
//! medium or high severity; every action is pinned to a commit; each job holds only the
//! permissions it uses and no checkout leaves the token behind; the binary's cache follows the
//! commit MATOME_REF names; and the commit job's script, run here with bash and git against
//! local repositories, commits the snapshot and refuses a patch that reaches anywhere else.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use yaml_rust2::{Yaml, YamlLoader};

/// Both workflows, as written and with their commented-out publish jobs turned on.
fn variants() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, wf) in [
        ("matome.yml", matome::init::WORKFLOW),
        ("matome-s3.yml", matome::init::WORKFLOW_S3),
    ] {
        out.push((name.to_string(), wf.to_string()));
        if wf.contains("  # publish:\n") {
            out.push((format!("publish-{name}"), with_publish_jobs(wf)));
        }
    }
    out
}

/// `wf` with its commented-out `publish` and `publish-commit` jobs uncommented.
pub(crate) fn with_publish_jobs(wf: &str) -> String {
    let start = wf
        .find("  # publish:\n")
        .expect("the publish job, commented out");
    wf[..start].to_string()
        + &wf[start..]
            .lines()
            .map(|l| match l.strip_prefix("  # ") {
                Some(rest) => format!("  {rest}\n"),
                None if l.trim() == "#" => "\n".to_string(),
                None => format!("{l}\n"),
            })
            .collect::<String>()
}

fn parse(text: &str) -> Yaml {
    YamlLoader::load_from_str(text)
        .expect("the workflow parses")
        .remove(0)
}

fn jobs(wf: &Yaml) -> Vec<(&str, &Yaml)> {
    wf["jobs"]
        .as_hash()
        .expect("jobs")
        .iter()
        .map(|(k, v)| (k.as_str().unwrap(), v))
        .collect()
}

fn steps(job: &Yaml) -> &[Yaml] {
    job["steps"].as_vec().expect("steps")
}

/// The `run:` script of the step named `name` in job `job`.
fn script<'a>(wf: &'a Yaml, job: &str, name: &str) -> &'a str {
    steps(&wf["jobs"][job])
        .iter()
        .find(|s| s["name"].as_str() == Some(name))
        .and_then(|s| s["run"].as_str())
        .unwrap_or_else(|| panic!("no step {name:?} in job {job}"))
}

fn zizmor() -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/tools/zizmor/bin/zizmor");
    assert!(
        p.is_file(),
        "{} is missing: run scripts/setup (it installs zizmor 1.32.0 for these tests)",
        p.display()
    );
    p
}

#[test]
fn zizmor_finds_nothing_of_medium_or_high_severity_in_either_workflow() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, text) in variants() {
        let path = dir.path().join(&name);
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    let out = Command::new(zizmor())
        .args([
            "--offline",
            "--no-config",
            "--no-progress",
            "--format",
            "json",
        ])
        .args(["--min-severity", "medium"])
        .args(&files)
        .output()
        .expect("run zizmor");
    let findings: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "zizmor printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let findings = findings.as_array().expect("a list of findings");
    let summary: Vec<String> = findings
        .iter()
        .map(|f| {
            let at = &f["locations"][0]["symbolic"];
            format!(
                "{} ({}) in {}: {}",
                f["ident"],
                f["determinations"]["severity"],
                at["key"]["Local"]["verbatim_path"],
                at["annotation"]
            )
        })
        .collect();
    assert!(findings.is_empty(), "zizmor: {summary:#?}");
    assert!(out.status.success(), "{out:?}");
}

/// `owner/repo[/path]@<40 hex> # vMAJOR.MINOR.PATCH`, or why not.
fn check_pin(uses: &str) -> Result<(&str, &str), String> {
    let (action, rest) = uses
        .split_once('@')
        .ok_or_else(|| format!("{uses}: no @"))?;
    let (sha, comment) = rest
        .split_once(" # ")
        .ok_or_else(|| format!("{uses}: no # version"))?;
    if sha.len() != 40 || !sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return Err(format!("{uses}: not pinned to a full commit SHA"));
    }
    let version = comment.trim();
    let numbers: Vec<&str> = version.strip_prefix('v').unwrap_or("").split('.').collect();
    if numbers.len() != 3 || numbers.iter().any(|n| n.parse::<u32>().is_err()) {
        return Err(format!("{uses}: the comment is not a release (vX.Y.Z)"));
    }
    Ok((action, sha))
}

#[test]
fn every_action_is_pinned_to_a_full_commit_sha_with_its_release_in_a_comment() {
    let mut seen: std::collections::BTreeMap<String, String> = Default::default();
    let mut count = 0;
    for (name, text) in variants() {
        // Every `uses:` line, commented out or not.
        for line in text.lines() {
            let line = line.trim_start_matches([' ', '#', '-']).trim_start();
            let Some(uses) = line.strip_prefix("uses: ") else {
                continue;
            };
            count += 1;
            let (action, sha) = check_pin(uses).unwrap_or_else(|e| panic!("{name}: {e}"));
            // One release of each action (actions/cache/restore is actions/cache).
            let repo: String = action.split('/').take(2).collect::<Vec<_>>().join("/");
            let first = seen.entry(repo.clone()).or_insert_with(|| sha.to_string());
            assert_eq!(first, sha, "{name}: {repo} pinned to two commits");
        }
    }
    assert!(count >= 20, "{count} uses lines");
    assert!(check_pin("actions/checkout@v4").is_err());
    assert!(check_pin("actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683").is_err());
}

/// True when a step runs matome or builds it (code from MATOME_GIT and its dependencies).
fn runs_matome(step: &Yaml) -> bool {
    step["run"]
        .as_str()
        .is_some_and(|r| r.contains("matome ") || r.contains("cargo "))
}

#[test]
fn each_job_holds_only_the_permissions_it_uses() {
    for (name, text) in variants() {
        let wf = parse(&text);
        // Nothing at the workflow level: each job says what it needs.
        assert!(
            wf["permissions"].as_hash().is_some_and(|h| h.is_empty()),
            "{name}: workflow-level permissions {:?}",
            wf["permissions"]
        );
        for (job, def) in jobs(&wf) {
            let perms = def["permissions"]
                .as_hash()
                .unwrap_or_else(|| panic!("{name}: job {job} names no permissions"));
            let writes: Vec<&str> = perms
                .iter()
                .filter(|(_, v)| v.as_str() == Some("write"))
                .map(|(k, _)| k.as_str().unwrap())
                .collect();
            let matome = steps(def).iter().any(runs_matome);
            let pushes = steps(def)
                .iter()
                .any(|s| s["run"].as_str().is_some_and(|r| r.contains(" push ")));
            if matome {
                assert!(
                    writes.is_empty(),
                    "{name}: job {job} runs matome with write permissions {writes:?}"
                );
            }
            match writes.as_slice() {
                [] => {}
                ["contents"] => assert!(pushes, "{name}: {job} may write but pushes nothing"),
                ["pages", "id-token"] | ["id-token", "pages"] => {
                    assert_eq!(job, "deploy", "{name}");
                    assert!(!name.contains("s3"), "{name}: no Pages on a bucket");
                }
                other => panic!("{name}: job {job} writes {other:?}"),
            }
            // A job that sees the bucket's keys runs only the cached binary: no install.
            if text.contains("secrets.AWS_") && def["steps"].as_vec().is_some() {
                let keys = steps(def)
                    .iter()
                    .any(|s| !s["env"]["AWS_ACCESS_KEY_ID"].is_badvalue());
                let installs = steps(def)
                    .iter()
                    .any(|s| s["run"].as_str().is_some_and(|r| r.contains("cargo ")));
                assert!(!(keys && installs), "{name}: {job} installs with the keys");
            }
        }
    }
}

#[test]
fn no_checkout_leaves_the_token_behind_and_only_pushing_steps_get_it() {
    for (name, text) in variants() {
        let wf = parse(&text);
        for (job, def) in jobs(&wf) {
            for step in steps(def) {
                if step["uses"]
                    .as_str()
                    .is_some_and(|u| u.starts_with("actions/checkout@"))
                {
                    assert_eq!(
                        step["with"]["persist-credentials"].as_bool(),
                        Some(false),
                        "{name}: a checkout in {job} persists the token"
                    );
                }
                if !step["env"]["GITHUB_TOKEN"].is_badvalue() {
                    let run = step["run"].as_str().unwrap_or("");
                    assert!(
                        run.contains("git_auth push") && !runs_matome(step),
                        "{name}: {job} hands the token to a step that does not push"
                    );
                }
            }
        }
    }
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.jp"])
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "protocol.file.allow=always",
        ])
        .args(args)
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// Runs `script` with bash (`-e`, as Actions does) in `dir` with `env`.
fn bash(dir: &Path, script: &str, env: &[(&str, &str)]) -> Output {
    Command::new("bash")
        .args(["-e", "-c", script])
        .current_dir(dir)
        .env("GIT_CONFIG_COUNT", "1")
        .env("GIT_CONFIG_KEY_0", "protocol.file.allow")
        .env("GIT_CONFIG_VALUE_0", "always")
        .envs(env.iter().copied())
        .output()
        .expect("run bash")
}

#[test]
fn the_binary_cache_follows_the_commit_matome_ref_resolves_to() {
    for (name, text) in variants() {
        let wf = parse(&text);
        // Every cache of the binary is keyed by the resolved commit, and the install builds it.
        for (job, def) in jobs(&wf) {
            for step in steps(def) {
                if step["with"]["path"].as_str() == Some("~/.cargo/bin/matome") {
                    let key = step["with"]["key"].as_str().unwrap();
                    assert!(
                        key == "matome-bin-${{ steps.ref.outputs.sha }}"
                            || key == "matome-bin-${{ needs.update.outputs.matome_sha }}",
                        "{name}: {job}: {key}"
                    );
                }
            }
        }
        assert_eq!(
            wf["jobs"]["update"]["outputs"]["matome_sha"].as_str(),
            Some("${{ steps.ref.outputs.sha }}")
        );
        let install = script(&wf, "update", "Install matome");
        assert!(
            install.contains("--rev \"$MATOME_SHA\""),
            "{name}: {install}"
        );
    }

    // The resolving step itself, against a local repository standing in for MATOME_GIT.
    let wf = parse(matome::init::WORKFLOW);
    let resolve = script(&wf, "update", "Resolve MATOME_REF");
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("matome.git");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "one"]);
    let first = git(&repo, &["rev-parse", "HEAD"]);
    git(&repo, &["tag", "v1.0.0"]);
    git(&repo, &["tag", "-a", "-m", "annotated", "v1.0.1"]);
    let resolved = |r: &str| -> Result<String, String> {
        let output = dir.path().join("output");
        let _ = std::fs::remove_file(&output);
        let out = bash(
            dir.path(),
            resolve,
            &[
                ("MATOME_GIT", repo.to_str().unwrap()),
                ("MATOME_REF", r),
                ("GITHUB_OUTPUT", output.to_str().unwrap()),
            ],
        );
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stdout).into_owned());
        }
        let text = std::fs::read_to_string(&output).unwrap();
        Ok(text.trim().strip_prefix("sha=").unwrap().to_string())
    };
    assert_eq!(resolved("main").unwrap(), first);
    assert_eq!(resolved("v1.0.0").unwrap(), first);
    assert_eq!(
        resolved("v1.0.1").unwrap(),
        first,
        "an annotated tag's commit"
    );
    assert_eq!(resolved(&first).unwrap(), first);
    // A new commit on the branch: a new key, so the site gets the new binary.
    git(&repo, &["commit", "-q", "--allow-empty", "-m", "two"]);
    let second = git(&repo, &["rev-parse", "HEAD"]);
    assert_ne!(first, second);
    assert_eq!(resolved("main").unwrap(), second);
    let err = resolved("no-such-branch").unwrap_err();
    assert!(err.contains("::error::"), "{err}");
}

/// A site repository with a bare `origin`, cloned twice: `update` (where fetch ran) and
/// `commit` (a fresh checkout, as the commit job has).
struct Repos {
    dir: tempfile::TempDir,
}

impl Repos {
    fn new() -> Repos {
        let dir = tempfile::tempdir().unwrap();
        let origin = dir.path().join("origin.git");
        std::fs::create_dir(&origin).unwrap();
        git(&origin, &["init", "-q", "--bare"]);
        let seed = dir.path().join("seed");
        std::fs::create_dir_all(seed.join("content/2021/07/20")).unwrap();
        std::fs::create_dir_all(seed.join(".github/workflows")).unwrap();
        std::fs::write(seed.join("content/2021/07/20/0800.md"), "+++\n+++\n").unwrap();
        std::fs::write(seed.join("fetch-state.json"), "{}\n").unwrap();
        std::fs::write(seed.join("matome.toml"), "title = \"t\"\n").unwrap();
        std::fs::write(seed.join(".github/workflows/matome.yml"), "name: x\n").unwrap();
        git(&seed, &["init", "-q"]);
        git(&seed, &["add", "-A"]);
        git(&seed, &["commit", "-q", "-m", "seed"]);
        git(
            &seed,
            &["push", "-q", origin.to_str().unwrap(), "HEAD:main"],
        );
        for clone in ["update", "commit"] {
            git(
                dir.path(),
                &["clone", "-q", origin.to_str().unwrap(), clone],
            );
        }
        Repos { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs the commit job's script in the `commit` clone with `patch` as the artifact.
    fn commit(&self, wf: &Yaml, patch: &[u8]) -> Output {
        let temp = self.path("runner-temp");
        std::fs::create_dir_all(temp.join("snapshot")).unwrap();
        std::fs::write(temp.join("snapshot/snapshot.patch"), patch).unwrap();
        bash(
            &self.path("commit"),
            script(wf, "commit", "Commit the new snapshot"),
            &[
                ("RUNNER_TEMP", temp.to_str().unwrap()),
                ("GITHUB_TOKEN", "not-a-real-token"),
                ("GITHUB_SERVER_URL", "https://github.com"),
                ("GITHUB_REF_NAME", "main"),
            ],
        )
    }

    /// Files changed by the newest commit on origin's main.
    fn pushed(&self) -> Vec<String> {
        let origin = self.path("origin.git");
        let files = git(
            &origin,
            &["diff-tree", "--no-commit-id", "--name-only", "-r", "main"],
        );
        files.lines().map(str::to_string).collect()
    }
}

#[test]
fn the_commit_job_pushes_only_the_snapshot_and_refuses_a_patch_reaching_elsewhere() {
    for text in [matome::init::WORKFLOW, matome::init::WORKFLOW_S3] {
        let wf = parse(text);
        let repos = Repos::new();
        // What fetch changes, plus a file it never writes (the update job's patch leaves it out).
        let update = repos.path("update");
        std::fs::write(
            update.join("content/2021/07/20/0900.md"),
            "+++\nhour = 1\n+++\n",
        )
        .unwrap();
        std::fs::write(update.join("fetch-state.json"), "{\"feeds\": {}}\n").unwrap();
        std::fs::write(update.join("matome.toml"), "title = \"changed\"\n").unwrap();
        let temp = repos.path("update-temp");
        std::fs::create_dir_all(&temp).unwrap();
        let out = bash(
            &update,
            script(&wf, "update", "Save the new snapshot"),
            &[("RUNNER_TEMP", temp.to_str().unwrap())],
        );
        assert!(out.status.success(), "{out:?}");
        let patch = std::fs::read(temp.join("snapshot.patch")).unwrap();
        let out = repos.commit(&wf, &patch);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            repos.pushed(),
            ["content/2021/07/20/0900.md", "fetch-state.json"]
        );

        // A patch that also touches the workflow is refused, and nothing is pushed.
        let hostile = String::from_utf8(patch)
            .unwrap()
            .replace("content/2021/07/20/0900.md", ".github/workflows/evil.yml");
        let repos = Repos::new();
        let before = git(&repos.path("origin.git"), &["rev-parse", "main"]);
        let out = repos.commit(&wf, hostile.as_bytes());
        assert!(!out.status.success(), "a hostile patch was committed");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(".github/workflows/evil.yml: refused"),
            "{out:?}"
        );
        assert_eq!(
            git(&repos.path("origin.git"), &["rev-parse", "main"]),
            before
        );

        // An empty patch (no new item this hour) commits nothing.
        let out = repos.commit(&wf, b"");
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            git(&repos.path("origin.git"), &["rev-parse", "main"]),
            before
        );
    }
}
