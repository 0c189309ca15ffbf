//! `matome alert`: its arguments, the run (`alert::run`), what was sent and what could not be;
//! exit 1 on an undelivered alert only with `--strict`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

#[derive(Debug, Args)]
pub struct AlertArgs {
    /// How a workflow step or job ended: STEP=success or STEP=failure (GitHub's
    /// `needs.JOB.result`); repeatable. A failure is alerted at once, a success closes it.
    #[arg(long = "step", value_name = "STEP=RESULT")]
    pub steps: Vec<crate::alert::StepOutcome>,
    /// The time the run is taken to happen (RFC 3339). Default: the clock.
    #[arg(long, value_name = "RFC3339", value_parser = super::parse_rfc3339)]
    pub now: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// Exit 1 if an alert could not be delivered (it is retried at the next run either way).
    #[arg(long)]
    pub strict: bool,
}

/// Alerts and reports it.
pub fn run(root: &Path, args: AlertArgs) -> Result<ExitCode> {
    let r = crate::alert::run(
        root,
        &crate::alert::AlertOptions {
            now: args.now,
            steps: args.steps,
        },
    )?;
    for l in &r.lines {
        println!("{l}");
    }
    for f in &r.failed {
        eprintln!("error: {f} (tried again at the next run)");
    }
    Ok(if args.strict && !r.failed.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
