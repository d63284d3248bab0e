//! Progress of a long collection: a bar on a terminal, plain lines otherwise.

use std::io::IsTerminal;

use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

/// Where progress goes.
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// A bar of `total` steps on a terminal (standard error); plain lines elsewhere.
    pub fn new(total: u64) -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {pos}/{len} {elapsed} {msg}")
                    .expect("a valid template"),
            );
            bar
        });
        Self { bar }
    }

    /// A bar of `total` steps under the others of `group` (a campaign's current job); plain
    /// lines without a group.
    pub fn within(group: Option<&MultiProgress>, total: u64) -> Self {
        let Some(group) = group else {
            return Self { bar: None };
        };
        let bar = group.add(ProgressBar::new(total));
        bar.set_style(
            ProgressStyle::with_template("  {bar:30} {pos}/{len} {elapsed} {msg}")
                .expect("a valid template"),
        );
        Self { bar: Some(bar) }
    }

    /// No output at all (benchmarks, library use).
    pub fn hidden() -> Self {
        Self {
            bar: Some(ProgressBar::hidden()),
        }
    }

    /// What is being done now.
    pub fn step(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(message.to_owned()),
            None => eprintln!("{message}"),
        }
    }

    /// A line that stays (a result, a warning).
    pub fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => eprintln!("{text}"),
        }
    }

    /// `steps` more are done.
    pub fn advance(&self, steps: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(steps);
        }
    }

    /// The work grew by `steps`.
    pub fn more(&self, steps: u64) {
        if let Some(bar) = &self.bar {
            bar.inc_length(steps);
        }
    }

    /// The bar goes.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
