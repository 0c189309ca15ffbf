//! What a fetch run reports: the summary at its end ([`RunReport`], also its exit status), the
//! feeds that failed or were deferred, and the per-feed lines while it runs ([`Reporter`]: above
//! a progress bar on a terminal, plain lines otherwise).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use chrono::{DateTime, FixedOffset};

/// A feed that failed this run.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub url: String,
    pub reason: String,
}

/// A feed skipped this run because it is backing off.
#[derive(Debug, Clone, PartialEq)]
pub struct Deferred {
    pub url: String,
    pub until: DateTime<FixedOffset>,
    pub failures: u32,
}

/// The end of a run, for the summary and the exit status.
#[derive(Debug, Default)]
pub struct RunReport {
    pub feeds: usize,
    pub ok: usize,
    pub not_modified: usize,
    pub failed: Vec<Failure>,
    pub deferred: Vec<Deferred>,
    pub new_items: usize,
    /// The snapshot written, relative to the site root.
    pub written: Option<PathBuf>,
    /// Feeds cut short by the run deadline (also counted in `failed`), and that deadline.
    pub deadline_cut: usize,
    pub run_timeout: Duration,
}

impl RunReport {
    /// Feeds that were asked for this run.
    pub fn attempted(&self) -> usize {
        self.ok + self.not_modified + self.failed.len()
    }

    /// The summary lines printed at the end of a run.
    pub fn summary(&self) -> String {
        let mut s = format!(
            "{} feeds: {} ok, {} not modified, {} failed, {} deferred",
            self.feeds,
            self.ok,
            self.not_modified,
            self.failed.len(),
            self.deferred.len()
        );
        match &self.written {
            Some(p) => s.push_str(&format!(
                "\n{} new items written to {}",
                self.new_items,
                p.display()
            )),
            None => s.push_str("\nno new items"),
        }
        if self.deadline_cut > 0 {
            s.push_str(&format!(
                "\nrun deadline reached (fetch.run_timeout = {}s): {} unfinished feed(s) recorded as failed",
                self.run_timeout.as_secs_f64(),
                self.deadline_cut
            ));
        }
        s
    }
}

/// Prints per-feed lines: above a progress bar on a terminal, as plain lines otherwise.
pub(super) struct Reporter {
    bar: Option<indicatif::ProgressBar>,
}

impl Reporter {
    pub(super) fn new(total: usize, progress: bool) -> Reporter {
        let bar = (progress && std::io::stderr().is_terminal()).then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{spinner} fetching [{bar:30}] {pos}/{len} feeds {msg}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar
        });
        Reporter { bar }
    }

    pub(super) fn line(&self, msg: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{msg}")),
            None => eprintln!("{msg}"),
        }
    }

    pub(super) fn tick(&self) {
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
    }

    pub(super) fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
