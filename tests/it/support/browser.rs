//! A small Chrome DevTools Protocol client over Debian's headless Chromium, for tests that run a
//! page's JavaScript: launch, open a page, navigate, evaluate, wait for a condition.
//!
//! ```ignore
//! let mut b = Browser::launch();
//! b.navigate("http://127.0.0.1:8000/repo/search/?q=x");
//! b.wait_for("document.querySelectorAll('.hit').length > 0", Duration::from_secs(10));
//! let n = b.eval("document.querySelectorAll('.hit').length");
//! ```
//!
//! Nothing is downloaded: the browser is `/usr/bin/chromium` (or `$CHROMIUM`), with a fresh
//! profile in a temporary folder, killed when the [`Browser`] is dropped.

use std::io::ErrorKind;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

/// How long one protocol command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// The Chromium binary: `$CHROMIUM`, else Debian's.
pub fn chromium_path() -> PathBuf {
    std::env::var_os("CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"))
}

/// Whether the browser tests can run here.
pub fn available() -> bool {
    chromium_path().exists()
}

/// A headless Chromium with one page open.
pub struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    ws: WebSocket<TcpStream>,
    session: String,
    next_id: u64,
    /// Console messages and uncaught exceptions of the page, in order.
    pub console: Vec<String>,
}

impl Browser {
    /// Starts Chromium and opens a blank page. Panics (naming the binary) if it cannot.
    pub fn launch() -> Browser {
        let profile = tempfile::tempdir().expect("a profile folder");
        let bin = chromium_path();
        let mut child = Command::new(&bin)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--mute-audio",
                "--remote-debugging-port=0",
                "--window-size=1280,900",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", bin.display()));
        let (port, path) = match wait_for_port(profile.path(), &mut child) {
            Ok(p) => p,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{} did not start: {e}", bin.display());
            }
        };
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to DevTools");
        stream.set_read_timeout(Some(COMMAND_TIMEOUT)).unwrap();
        let (ws, _) = tungstenite::client(format!("ws://127.0.0.1:{port}{path}"), stream)
            .expect("DevTools websocket handshake");
        let mut b = Browser {
            child,
            _profile: profile,
            ws,
            session: String::new(),
            next_id: 0,
            console: Vec::new(),
        };
        let target = b.call("Target.createTarget", json!({"url": "about:blank"}));
        let target_id = target["targetId"].as_str().expect("targetId").to_string();
        let attached = b.call(
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
        );
        b.session = attached["sessionId"]
            .as_str()
            .expect("sessionId")
            .to_string();
        b.call("Page.enable", json!({}));
        b.call("Runtime.enable", json!({}));
        b
    }

    /// Sends one command (to the page once one is attached) and returns its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.try_call(method, params)
            .unwrap_or_else(|err| panic!("{method} failed: {err}"))
    }

    /// [`Browser::call`], with the protocol's error as `Err` instead of a panic.
    fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let mut msg = json!({"id": id, "method": method, "params": params});
        if !self.session.is_empty() {
            msg["sessionId"] = json!(self.session);
        }
        self.ws
            .send(Message::text(msg.to_string()))
            .unwrap_or_else(|e| panic!("{method}: {e}"));
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let v = self.read(deadline, method);
            if v["id"].as_u64() == Some(id) {
                if let Some(err) = v.get("error") {
                    return Err(err.clone());
                }
                return Ok(v["result"].clone());
            }
        }
    }

    /// The next protocol message (events are noted on the way).
    fn read(&mut self, deadline: Instant, what: &str) -> Value {
        loop {
            if Instant::now() > deadline {
                panic!("{what}: no answer from the browser in time");
            }
            match self.ws.read() {
                Ok(Message::Text(t)) => {
                    let v: Value = serde_json::from_str(t.as_str()).expect("DevTools sends JSON");
                    self.note(&v);
                    return v;
                }
                Ok(_) => {}
                Err(tungstenite::Error::Io(e))
                    if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(e) => panic!("{what}: {e}"),
            }
        }
    }

    fn note(&mut self, v: &Value) {
        match v["method"].as_str() {
            Some("Runtime.consoleAPICalled") => {
                let args: Vec<String> = v["params"]["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|a| {
                        a.get("value")
                            .map(|x| x.to_string())
                            .or_else(|| a["description"].as_str().map(str::to_string))
                            .unwrap_or_default()
                    })
                    .collect();
                let kind = v["params"]["type"].as_str().unwrap_or("log");
                self.console
                    .push(format!("console.{kind}: {}", args.join(" ")));
            }
            Some("Runtime.exceptionThrown") => {
                let d = &v["params"]["exceptionDetails"];
                self.console.push(format!(
                    "exception: {}",
                    d["exception"]["description"]
                        .as_str()
                        .or(d["text"].as_str())
                        .unwrap_or("?")
                ));
            }
            _ => {}
        }
    }

    /// Opens `url` in the page and waits for its load event.
    pub fn navigate(&mut self, url: &str) {
        let r = self.call("Page.navigate", json!({"url": url}));
        if let Some(e) = r.get("errorText") {
            panic!("navigating to {url}: {e}");
        }
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let v = self.read(deadline, &format!("loading {url}"));
            if v["method"] == "Page.loadEventFired" {
                return;
            }
        }
    }

    /// Sizes the page's window to `width` × `height` CSS pixels at scale 1, as a phone
    /// (touch, `mobile` viewport rules) below 800 px. Applies to the current page and the next.
    pub fn set_viewport(&mut self, width: u32, height: u32) {
        let mobile = width < 800;
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        );
        self.call(
            "Emulation.setTouchEmulationEnabled",
            json!({"enabled": mobile}),
        );
    }

    /// Evaluates `js` in the page (awaiting a promise) and returns its value as JSON
    /// (`undefined` is null). Panics with the exception if it throws.
    pub fn eval(&mut self, js: &str) -> Value {
        self.eval_unless_navigating(js)
            .unwrap_or_else(|err| panic!("Runtime.evaluate failed: {err}"))
    }

    /// [`Browser::eval`], or `Err` when the page navigated away while `js` ran (a reload, as
    /// live reload does): the evaluation is then lost, not failed.
    fn eval_unless_navigating(&mut self, js: &str) -> Result<Value, Value> {
        let r = self.try_call(
            "Runtime.evaluate",
            json!({"expression": js, "awaitPromise": true, "returnByValue": true}),
        )?;
        if let Some(d) = r.get("exceptionDetails") {
            let thrown = d["exception"]["description"]
                .as_str()
                .or(d["text"].as_str())
                .unwrap_or("?");
            // A promise cut off by a reload rejects with this: not the script's fault.
            let lost = json!({ "message": thrown });
            if is_navigation(&lost) {
                return Err(lost);
            }
            panic!("{js}\nthrew: {thrown}\nconsole: {:#?}", self.console);
        }
        Ok(r["result"].get("value").cloned().unwrap_or(Value::Null))
    }

    /// Evaluates `js` until it is truthy and returns that value; panics after `timeout` with the
    /// page's console. An evaluation cut off by the page navigating (live reload reloads it
    /// while the test waits: "Inspected target navigated or closed") counts as not yet, and is
    /// tried again in the new page.
    pub fn wait_for(&mut self, js: &str, timeout: Duration) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let v = match self.eval_unless_navigating(js) {
                Ok(v) => v,
                Err(err) if is_navigation(&err) => Value::Null,
                Err(err) => panic!("Runtime.evaluate failed: {err}"),
            };
            let truthy = match &v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return v;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out after {timeout:?} waiting for: {js}\nconsole: {:#?}",
                    self.console
                );
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The port and browser path Chromium writes to `DevToolsActivePort` once it listens.
fn wait_for_port(profile: &Path, child: &mut Child) -> Result<(u16, String), String> {
    let file = profile.join("DevToolsActivePort");
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("it exited with {status}"));
        }
        if let Ok(text) = std::fs::read_to_string(&file) {
            let mut lines = text.lines();
            if let (Some(port), Some(path)) = (lines.next(), lines.next())
                && let Ok(port) = port.trim().parse()
            {
                return Ok((port, path.trim().to_string()));
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("no {} after 30 s", file.display()))
}

/// Whether a protocol error means only that the page went away under the command (a
/// navigation or reload), not that the command was wrong.
fn is_navigation(err: &Value) -> bool {
    let message = err["message"].as_str().unwrap_or("");
    [
        "Inspected target navigated or closed",
        "Execution context was destroyed",
        "Cannot find context with specified id",
    ]
    .iter()
    .any(|m| message.contains(m))
}
