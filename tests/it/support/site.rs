//! A temporary matome site and a runner for the real binary.
//!
//! ```ignore
//! let server = TestServer::new();
//! server.route("/feed.xml", Response::fixture("rss2.xml"));
//! let mut site = Site::new();
//! site.config.fetch.as_mut().unwrap().timeout = 2;
//! site.write_config(&[FeedSpec::new(&server.url("/feed.xml"), "IT").site("Example")]);
//! let out = site.matome(&["fetch", "--now", "2021-07-20T08:28:58+09:00"]);
//! out.assert_success();
//! assert_eq!(site.content_files(), vec![PathBuf::from("content/2021/07/20/0800.md")]);
//! ```

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// Default wall-clock limit for one `matome` run; the child is killed (and
/// the test fails) past it, so a hanging fetch can't hang the suite.
pub const DEFAULT_RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// One `[[feeds]]` entry.
#[derive(Clone, Debug)]
pub struct FeedSpec {
    pub url: String,
    pub category: String,
    pub site: Option<String>,
    /// Raw TOML lines appended inside this `[[feeds]]` table.
    pub extra: String,
}

impl FeedSpec {
    pub fn new(url: &str, category: &str) -> Self {
        FeedSpec {
            url: url.to_string(),
            category: category.to_string(),
            site: None,
            extra: String::new(),
        }
    }

    pub fn site(mut self, site: &str) -> Self {
        self.site = Some(site.to_string());
        self
    }

    /// Append raw TOML lines (e.g. `"name = \"x\""`) to this feed's table.
    pub fn extra(mut self, toml_lines: &str) -> Self {
        self.extra.push_str(toml_lines);
        if !self.extra.ends_with('\n') {
            self.extra.push('\n');
        }
        self
    }
}

/// The `[fetch]` table.
#[derive(Clone, Debug)]
pub struct FetchConfig {
    /// seconds, total per request
    pub timeout: u64,
    /// seconds
    pub connect_timeout: u64,
    pub max_body_bytes: u64,
    /// seconds: a Retry-After up to this long is waited for within the run
    pub retry_after_max_wait: u64,
}

impl Default for FetchConfig {
    fn default() -> Self {
        FetchConfig {
            timeout: 15,
            connect_timeout: 5,
            max_body_bytes: 1_048_576,
            retry_after_max_wait: 3,
        }
    }
}

/// Everything `write_config` renders besides the feeds.
#[derive(Clone, Debug)]
pub struct SiteConfig {
    pub title: String,
    pub base_url: String,
    pub language: String,
    pub timezone: String,
    /// `None` omits the `[fetch]` table's standard keys (the table is still
    /// written if `fetch_extra` is non-empty).
    pub fetch: Option<FetchConfig>,
    /// Raw TOML lines for the top level (written before any table).
    pub top_extra: String,
    /// Raw TOML lines inside `[fetch]`.
    pub fetch_extra: String,
    /// Raw TOML appended at the very end (after the feeds). Start it with a
    /// table header, or its keys land in the last `[[feeds]]` table.
    pub append: String,
}

impl Default for SiteConfig {
    fn default() -> Self {
        SiteConfig {
            title: "テストサイト".into(),
            base_url: "http://127.0.0.1/test/".into(),
            language: "ja".into(),
            timezone: "Asia/Tokyo".into(),
            fetch: Some(FetchConfig::default()),
            top_extra: String::new(),
            fetch_extra: String::new(),
            append: String::new(),
        }
    }
}

/// A TOML basic string literal (quoted and escaped).
pub fn toml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn push_lines(out: &mut String, raw: &str) {
    if !raw.is_empty() {
        out.push_str(raw);
        if !raw.ends_with('\n') {
            out.push('\n');
        }
    }
}

impl SiteConfig {
    /// Render `matome.toml` with these feeds.
    pub fn render(&self, feeds: &[FeedSpec]) -> String {
        let mut out = String::new();
        out.push_str(&format!("title = {}\n", toml_str(&self.title)));
        out.push_str(&format!("base_url = {}\n", toml_str(&self.base_url)));
        out.push_str(&format!("language = {}\n", toml_str(&self.language)));
        out.push_str(&format!("timezone = {}\n", toml_str(&self.timezone)));
        push_lines(&mut out, &self.top_extra);
        if self.fetch.is_some() || !self.fetch_extra.is_empty() {
            out.push_str("\n[fetch]\n");
            if let Some(f) = &self.fetch {
                out.push_str(&format!("timeout = {}\n", f.timeout));
                out.push_str(&format!("connect_timeout = {}\n", f.connect_timeout));
                out.push_str(&format!("max_body_bytes = {}\n", f.max_body_bytes));
                out.push_str(&format!(
                    "retry_after_max_wait = {}\n",
                    f.retry_after_max_wait
                ));
            }
            push_lines(&mut out, &self.fetch_extra);
        }
        for feed in feeds {
            out.push_str("\n[[feeds]]\n");
            out.push_str(&format!("url = {}\n", toml_str(&feed.url)));
            out.push_str(&format!("category = {}\n", toml_str(&feed.category)));
            if let Some(site) = &feed.site {
                out.push_str(&format!("site = {}\n", toml_str(site)));
            }
            push_lines(&mut out, &feed.extra);
        }
        if !self.append.is_empty() {
            out.push('\n');
            push_lines(&mut out, &self.append);
        }
        out
    }
}

/// Result of one `matome` run.
pub struct RunOutput {
    /// Exit code; `None` if killed by a signal (or by the run timeout).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    /// Wall-clock duration of the run.
    pub elapsed: Duration,
    /// True if the run hit its timeout and was killed.
    pub timed_out: bool,
    /// The command line, for messages.
    pub command: String,
}

impl RunOutput {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }

    /// Panic with both streams unless the exit code is 0.
    #[track_caller]
    pub fn assert_success(&self) -> &Self {
        assert!(self.success(), "expected success, got:\n{self:?}");
        self
    }

    /// Panic with both streams unless the exit code is `code`.
    #[track_caller]
    pub fn assert_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.code,
            Some(code),
            "unexpected exit code, got:\n{self:?}"
        );
        self
    }

    /// Panic with both streams if the exit code is 0 (or the run timed out).
    #[track_caller]
    pub fn assert_failure(&self) -> &Self {
        assert!(
            !self.success() && !self.timed_out,
            "expected a clean failure, got:\n{self:?}"
        );
        self
    }

    /// stdout followed by stderr.
    pub fn combined(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }
}

impl fmt::Debug for RunOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "$ {}", self.command)?;
        writeln!(
            f,
            "exit code: {:?}{} after {:.2?}",
            self.code,
            if self.timed_out {
                " (KILLED: run timeout)"
            } else {
                ""
            },
            self.elapsed
        )?;
        writeln!(f, "--- stdout ({} bytes) ---", self.stdout.len())?;
        writeln!(f, "{}", self.stdout.trim_end())?;
        writeln!(f, "--- stderr ({} bytes) ---", self.stderr.len())?;
        writeln!(f, "{}", self.stderr.trim_end())?;
        write!(f, "--- end ---")
    }
}

/// A temporary site root (deleted on drop).
pub struct Site {
    dir: tempfile::TempDir,
    /// Used by [`Site::write_config`]; tweak before writing.
    pub config: SiteConfig,
}

impl Default for Site {
    fn default() -> Self {
        Self::new()
    }
}

impl Site {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("matome-it-")
            .tempdir()
            .expect("create temp site dir");
        Site {
            dir,
            config: SiteConfig::default(),
        }
    }

    /// The site root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// `root/rel`.
    pub fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Override the `[fetch]` table (builder style).
    pub fn with_fetch(mut self, f: impl FnOnce(&mut FetchConfig)) -> Self {
        f(self.config.fetch.get_or_insert_with(FetchConfig::default));
        self
    }

    /// Write `matome.toml` from `self.config` and `feeds`. Returns the text.
    pub fn write_config(&self, feeds: &[FeedSpec]) -> String {
        let text = self.config.render(feeds);
        self.write("matome.toml", &text);
        text
    }

    /// Write `matome.toml` verbatim.
    pub fn write_config_raw(&self, toml: &str) {
        self.write("matome.toml", toml);
    }

    /// Write a file under the root (parent dirs created).
    pub fn write(&self, rel: impl AsRef<Path>, contents: impl AsRef<[u8]>) {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        std::fs::write(&p, contents).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
    }

    pub fn exists(&self, rel: impl AsRef<Path>) -> bool {
        self.path(rel).exists()
    }

    /// Read a UTF-8 file under the root (panics with the path if missing).
    pub fn read(&self, rel: impl AsRef<Path>) -> String {
        let p = self.path(rel);
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
    }

    pub fn read_bytes(&self, rel: impl AsRef<Path>) -> Vec<u8> {
        let p = self.path(rel);
        std::fs::read(&p).unwrap_or_else(|e| panic!("read {}: {e}", p.display()))
    }

    /// All regular files under `rel` (recursively), relative to the root,
    /// sorted. Empty if `rel` does not exist.
    pub fn files_under(&self, rel: impl AsRef<Path>) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            let Ok(rd) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in rd.flatten() {
                let p = entry.path();
                match entry.file_type() {
                    Ok(t) if t.is_dir() => walk(&p, out),
                    Ok(t) if t.is_file() => out.push(p),
                    _ => {}
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.path(rel), &mut out);
        let mut rels: Vec<PathBuf> = out
            .into_iter()
            .map(|p| p.strip_prefix(self.root()).unwrap().to_path_buf())
            .collect();
        rels.sort();
        rels
    }

    /// All `*.md` files under `content/`, sorted, relative to the root
    /// (e.g. `content/2021/07/20/0800.md`).
    pub fn content_files(&self) -> Vec<PathBuf> {
        self.files_under("content")
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "md"))
            .collect()
    }

    /// `fetch-state.json` at the root, parsed (panics if missing/invalid).
    pub fn state(&self) -> serde_json::Value {
        let text = self.read("fetch-state.json");
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("fetch-state.json is not JSON ({e}):\n{text}"))
    }

    /// `fetch-state.json` if it exists.
    pub fn state_opt(&self) -> Option<serde_json::Value> {
        self.exists("fetch-state.json").then(|| self.state())
    }

    /// Run `matome --root <root> <args...>` with `CI=true`, `NO_COLOR=1`,
    /// proxies disabled, killed after [`DEFAULT_RUN_TIMEOUT`].
    pub fn matome(&self, args: &[&str]) -> RunOutput {
        self.matome_with(args, &[], DEFAULT_RUN_TIMEOUT)
    }

    /// Like [`Site::matome`] with extra environment variables and a custom
    /// timeout.
    pub fn matome_with(
        &self,
        args: &[&str],
        envs: &[(&str, &str)],
        timeout: Duration,
    ) -> RunOutput {
        let bin = env!("CARGO_BIN_EXE_matome");
        let mut cmd = Command::new(bin);
        cmd.arg("--root").arg(self.root()).args(args);
        cmd.current_dir(self.root());
        cmd.env("CI", "true").env("NO_COLOR", "1");
        // Never route test traffic to 127.0.0.1 through a proxy.
        for var in [
            "http_proxy",
            "HTTP_PROXY",
            "https_proxy",
            "HTTPS_PROXY",
            "all_proxy",
            "ALL_PROXY",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("NO_PROXY", "127.0.0.1,localhost")
            .env("no_proxy", "127.0.0.1,localhost");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());

        let command = format!("matome --root {} {}", self.root().display(), args.join(" "));
        let stamps = super::toml_readers::stamps(self.root());
        let started = Instant::now();
        let mut child = cmd.spawn().unwrap_or_else(|e| panic!("spawn {bin}: {e}"));
        let mut so = child.stdout.take().unwrap();
        let mut se = child.stderr.take().unwrap();
        let t_out = thread::spawn(move || {
            let mut v = Vec::new();
            let _ = so.read_to_end(&mut v);
            v
        });
        let t_err = thread::spawn(move || {
            let mut v = Vec::new();
            let _ = se.read_to_end(&mut v);
            v
        });
        let mut timed_out = false;
        let status = loop {
            if let Some(st) = child.try_wait().expect("wait for matome") {
                break st;
            }
            if started.elapsed() >= timeout {
                timed_out = true;
                let _ = child.kill();
                break child.wait().expect("wait for killed matome");
            }
            thread::sleep(Duration::from_millis(5));
        };
        let elapsed = started.elapsed();
        let stdout = String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned();
        let stderr = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned();
        let out = RunOutput {
            code: status.code(),
            stdout,
            stderr,
            elapsed,
            timed_out,
            command,
        };
        assert!(
            !timed_out,
            "matome did not finish within {timeout:?} and was killed:\n{out:?}"
        );
        // Every snapshot file this command wrote reads with a strict TOML parser and tomllib.
        let written =
            super::toml_readers::changed(&stamps, &super::toml_readers::stamps(self.root()));
        super::toml_readers::check_written(&written);
        out
    }
}
