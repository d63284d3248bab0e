//! The GPU's power draw through a measurement, sampled with `nvidia-smi` on a thread of its
//! own: the mean watts over the window and, with the window's output tokens, the joules per
//! token. Where `nvidia-smi` is missing or answers nothing readable there is no figure.

use std::process::Command;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the power is read.
pub const INTERVAL: Duration = Duration::from_millis(200);

/// Power being sampled; [`Sampler::stop`] gives what was drawn.
pub struct Sampler {
    stop: Sender<()>,
    thread: JoinHandle<Vec<f64>>,
    started: Instant,
}

/// What the GPUs drew over a window.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drawn {
    /// Mean power over the samples, watts (summed over the GPUs read).
    pub watts: f64,
    /// The window's length.
    pub seconds: f64,
    /// How many readings the mean is of.
    pub samples: usize,
}

impl Drawn {
    /// Joules per token when the window produced `tokens` tokens.
    pub fn joules_per(&self, tokens: f64) -> Option<f64> {
        (tokens > 0.0).then(|| self.watts * self.seconds / tokens)
    }
}

impl Sampler {
    /// Starts sampling every `interval`, when `nvidia-smi` reads a power now; `None` where it
    /// does not (no NVIDIA GPU, no driver, a GPU that reports no power).
    pub fn start(interval: Duration) -> Option<Self> {
        let first = read()?;
        let started = Instant::now();
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::spawn(move || {
            let mut samples = vec![first];
            loop {
                match stopped.recv_timeout(interval) {
                    Err(RecvTimeoutError::Timeout) => samples.extend(read()),
                    _ => return samples,
                }
            }
        });
        Some(Self {
            stop,
            thread,
            started,
        })
    }

    /// Stops sampling (one last reading closes the window); what was drawn.
    pub fn stop(self) -> Option<Drawn> {
        let seconds = self.started.elapsed().as_secs_f64();
        let _ = self.stop.send(());
        let mut samples = self.thread.join().ok()?;
        samples.extend(read());
        let watts = crate::stats::mean(&samples)?;
        Some(Drawn {
            watts,
            seconds,
            samples: samples.len(),
        })
    }
}

/// One reading: the power draw of the GPUs this process may use, summed, in watts.
fn read() -> Option<f64> {
    let mut command = Command::new("nvidia-smi");
    command.args(["--query-gpu=power.draw", "--format=csv,noheader,nounits"]);
    if let Some(ids) = visible_devices() {
        command.arg(format!("--id={ids}"));
    }
    let output = command.output().ok()?;
    if !output.status.success() {
        return None;
    }
    parse(&String::from_utf8_lossy(&output.stdout))
}

/// `CUDA_VISIBLE_DEVICES` when it lists GPU indices (`0,1`): the GPUs to read.
fn visible_devices() -> Option<String> {
    let ids = std::env::var("CUDA_VISIBLE_DEVICES").ok()?;
    let valid = !ids.is_empty()
        && ids
            .split(',')
            .all(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()));
    valid.then_some(ids)
}

/// The sum of nvidia-smi's `power.draw` lines (`245.31`, one per GPU); `None` when no line is
/// a number (`[N/A]`, `[Not Supported]`).
fn parse(text: &str) -> Option<f64> {
    let watts: Vec<f64> = text
        .lines()
        .filter_map(|line| line.trim().parse::<f64>().ok())
        .filter(|w| w.is_finite() && *w >= 0.0)
        .collect();
    (!watts.is_empty()).then(|| watts.iter().sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_are_summed_over_gpus_and_unsupported_ones_skipped() {
        assert_eq!(parse("245.31\n"), Some(245.31));
        assert_eq!(parse("100.5\n 99.5 \n"), Some(200.0));
        assert_eq!(parse("[N/A]\n120.0\n"), Some(120.0));
        assert_eq!(parse("[Not Supported]\n"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn joules_per_token_are_power_times_time_over_tokens() {
        let drawn = Drawn {
            watts: 300.0,
            seconds: 2.0,
            samples: 10,
        };
        assert_eq!(drawn.joules_per(1200.0), Some(0.5));
        assert_eq!(drawn.joules_per(0.0), None);
    }
}
