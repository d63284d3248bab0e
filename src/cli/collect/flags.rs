//! The flag groups `collect`'s subcommands share, and what they become for the library.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use benchsite::collect::{self, LaunchOptions, ServerOptions};
use benchsite::data::Id;
use benchsite::profiles::{self, Setting};
use benchsite::project::Layout;
use clap::Args;

/// How to reach the server.
#[derive(Debug, Args)]
pub struct ServerArgs {
    /// The server (default: [collect] base_url of benchsite.toml; with --launch, the
    /// profile's port on 127.0.0.1).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The model to ask for (default: the first the server lists).
    #[arg(long)]
    model: Option<String>,
    /// Seconds one request may take (default: [collect] request_timeout_s, 600).
    #[arg(long, value_name = "SECONDS")]
    timeout: Option<f64>,
    /// A PEM file of the certificate authorities an https:// server's certificate may be
    /// signed by (a private CA), beside the system's.
    #[arg(long, value_name = "FILE")]
    ca_cert: Option<PathBuf>,
}

impl ServerArgs {
    /// The server to measure; `launch_port` is a launched server's port.
    pub fn options(
        &self,
        layout: &Layout,
        launch_port: Option<u16>,
    ) -> anyhow::Result<ServerOptions> {
        let config = benchsite::config::load(&layout.root)?;
        let base_url = match (&self.base_url, launch_port) {
            (Some(url), _) => url.clone(),
            (None, Some(port)) => format!("http://127.0.0.1:{port}"),
            (None, None) => config.collect.base_url.clone(),
        };
        let seconds = self.timeout.unwrap_or(config.collect.request_timeout_s);
        anyhow::ensure!(
            collect::is_timeout(seconds),
            "--timeout: expected seconds above 0 and at most a week ({}), found {seconds}",
            collect::MOST_SECONDS
        );
        Ok(ServerOptions {
            base_url,
            model: self.model.clone(),
            api_key: collect::Client::api_key_from_env(),
            timeout: Duration::from_secs_f64(seconds),
            ca_cert: self.ca_cert.clone(),
        })
    }
}

/// Starting the server from its profile.
#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// Start the server from the profile, wait until it is ready, stop it afterwards; a
    /// server that does not come up is recorded as a failure.
    #[arg(long)]
    pub launch: bool,
    #[command(flatten)]
    params: collect::LaunchParams,
    /// A program to run in place of podman or the engine's program, with the same arguments.
    #[arg(long, value_name = "PATH", env = "BENCHSITE_LAUNCH_PROGRAM")]
    launch_program: Option<String>,
}

impl LaunchArgs {
    /// How to launch on `port` ([`LaunchArgs::port`]), when `--launch` is given; an error
    /// naming the flag of a timeout no launch can wait.
    pub fn options(&self, port: Option<u16>) -> anyhow::Result<Option<LaunchOptions>> {
        if let Err(unusable) = self.params.usable() {
            anyhow::bail!(unusable.for_flags_of::<collect::LaunchParams>());
        }
        Ok(self.launch.then(|| LaunchOptions {
            launcher: self.params.launcher,
            program: self.launch_program.clone(),
            ready_timeout: Duration::from_secs_f64(self.params.ready_timeout_s),
            stop_timeout: Duration::from_secs_f64(self.params.stop_timeout_s),
            port,
        }))
    }

    /// The port a launched server of `profile` listens on, when `--launch` is given: the
    /// profile's, or a free one where it names none.
    pub fn port(
        &self,
        layout: &Layout,
        profile: &str,
        set: &[Setting],
    ) -> anyhow::Result<Option<u16>> {
        if !self.launch {
            return Ok(None);
        }
        let effective = profiles::load(&layout.profiles(), profile)?.effective(set);
        Ok(Some(collect::launch_port(&effective)))
    }
}

/// How a record is written.
#[derive(Debug, Args)]
pub struct Writing {
    /// Replace a record with the same id or label.
    #[arg(long)]
    pub replace: bool,
    /// Print the record instead of writing it.
    #[arg(long)]
    pub dry_run: bool,
}

/// What names and describes a labelled record made from files, not a server.
#[derive(Debug, Args)]
pub struct Labelled {
    /// The record's label; its slug is the permanent page unless --id is given.
    #[arg(long)]
    pub label: String,
    /// The permanent page's slug, when not the label's.
    #[arg(long)]
    pub id: Option<String>,
    /// A dimension (repeatable), e.g. --dim kv=fp8.
    #[arg(long = "dim", value_name = "KEY=VALUE")]
    pub dims: Vec<String>,
    #[command(flatten)]
    pub notes: Notes,
}

/// Free text for the record.
#[derive(Debug, Args)]
pub struct Notes {
    /// Free text for the record.
    #[arg(long)]
    pub notes: Option<String>,
}

/// A profile and the settings on top of it.
#[derive(Debug, Args)]
pub struct Settings {
    /// A setting on top of the profile (repeatable); EXTRA_ARGS=... takes the whole value.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
}

impl Settings {
    /// The `--set` settings, parsed.
    pub fn parsed(&self) -> anyhow::Result<Vec<Setting>> {
        self.set
            .iter()
            .map(|text| profiles::parse_set(text))
            .collect::<Result<Vec<_>, _>>()
            .context("invalid --set")
    }
}

/// `text` as a record id given with `--id`.
pub fn id(text: &str) -> anyhow::Result<Id> {
    Id::new(text).map_err(|message| anyhow::anyhow!("--id: {message}"))
}

/// The `--dim KEY=VALUE` pairs.
pub fn dimensions(dims: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    dims.iter()
        .map(|text| {
            text.split_once('=')
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .with_context(|| format!("--dim {text}: expected KEY=VALUE"))
        })
        .collect()
}
