//! The clap definitions, one file per command group; each calls into the library.

mod build;
mod campaign;
mod check;
mod collect;
mod diff;
mod profile;
mod serve;
mod theme;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Measure LLM serving on your own GPU and publish the results as a static site.
#[derive(Debug, Parser)]
#[command(name = "benchsite", version = env!("BENCHSITE_VERSION"), about, propagate_version = true)]
struct Cli {
    /// The report project (default: the current directory).
    #[arg(long, global = true, default_value = ".", value_name = "DIR")]
    root: PathBuf,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Build the static site from data/, content/ and templates/ into site/.
    Build(build::BuildArgs),
    /// Measure a running OpenAI-compatible server and record the results.
    Collect(collect::CollectArgs),
    /// Measure a matrix of configurations unattended, resumably, on one machine or many.
    ///
    /// A campaign is campaigns/NAME.toml: plan it, run it (again to resume), merge what
    /// other machines measured, and spread it over machines with a GitHub Actions workflow
    /// or a Slurm script.
    Campaign(campaign::CampaignArgs),
    /// Preview the site with live reload: rebuilt in memory on every edit.
    Serve(serve::ServeArgs),
    /// Validate settings, profiles, data, content and templates, reporting every problem.
    Check,
    /// What changed between two results documents, with regressions flagged.
    Diff(diff::DiffArgs),
    /// Print the JSON Schema of the results document.
    Schema,
    /// Write a new report project into DIR, ready to build and publish.
    Init {
        /// The new project's folder (created if absent; must be empty).
        dir: PathBuf,
        /// The git repository its Pages workflow installs benchsite from.
        #[arg(long, value_name = "URL", default_value = env!("CARGO_PKG_REPOSITORY"))]
        benchsite_git: String,
        /// The tag of that repository it installs (default: this version's, v<version>).
        #[arg(long, value_name = "TAG")]
        benchsite_tag: Option<String>,
        /// The engine of the example profile and campaign.
        #[arg(long, value_enum, default_value_t = benchsite::profiles::Engine::Vllm)]
        engine: benchsite::profiles::Engine,
        /// What the example profile serves: a checkpoint, or llama-server's GGUF file.
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
    },
    /// List the built-in templates and the project's overrides, or eject copies to change.
    Theme(theme::ThemeArgs),
    /// Show launch profiles.
    Profile(profile::ProfileArgs),
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Failures a command reports: work that failed (exit 1).
pub type Outcome = anyhow::Result<ExitCode>;

/// Parses the arguments, runs the command and turns its outcome into an exit status:
/// 0 success, 1 invalid input or failed work, 2 usage error (from clap).
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Build(args) => build::run(&cli.root, args),
        Command::Serve(args) => serve::run(&cli.root, args),
        Command::Collect(args) => collect::run(&cli.root, args),
        Command::Campaign(args) => campaign::run(&cli.root, args),
        Command::Check => check::run(&cli.root),
        Command::Diff(args) => diff::run(&cli.root, args),
        Command::Schema => print_schema(),
        Command::Init {
            dir,
            benchsite_git,
            benchsite_tag,
            engine,
            model,
        } => {
            let pinned = benchsite::scaffold::Pinned {
                git: benchsite_git,
                tag: benchsite_tag.unwrap_or_else(|| benchsite::scaffold::Pinned::default().tag),
            };
            init(
                &dir,
                &pinned,
                &benchsite::scaffold::Starter { engine, model },
            )
        }
        Command::Profile(args) => profile::run(&cli.root, args),
        Command::Theme(args) => theme::run(&cli.root, args),
        Command::Completions { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "benchsite",
                &mut std::io::stdout(),
            );
            Ok(ExitCode::SUCCESS)
        }
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {}", relative(&cli.root, &chain(&error)));
            ExitCode::FAILURE
        }
    }
}

/// An error and its causes, `outer: cause: …`, leaving out a cause its outer message already
/// says (the library's messages name their I/O cause).
fn chain(error: &anyhow::Error) -> String {
    let mut text = error.to_string();
    for cause in error.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}

/// `text` with the project's paths relative to it, as the README writes them
/// (`data/results.json`, not `/abs/project/data/results.json`).
pub(crate) fn relative(root: &std::path::Path, text: &str) -> String {
    let root = root.to_string_lossy();
    let root = root.trim_end_matches('/');
    if root.is_empty() || root == "." {
        return text.to_owned();
    }
    text.replace(&format!("{root}/"), "")
}

/// A path of the project as the user reads it: relative to the project.
pub(crate) fn shown(root: &std::path::Path, path: &std::path::Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn init(
    dir: &std::path::Path,
    pinned: &benchsite::scaffold::Pinned,
    starter: &benchsite::scaffold::Starter,
) -> Outcome {
    let written = benchsite::scaffold::init(dir, benchsite::data::Date::today(), pinned, starter)?;
    println!("wrote {} files into {}", written.len(), dir.display());
    println!(
        "its Pages workflow installs benchsite {} from {}",
        pinned.tag, pinned.git
    );
    println!("next: benchsite serve --open --root {0}", dir.display());
    Ok(ExitCode::SUCCESS)
}

fn print_schema() -> Outcome {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, benchsite::data::schema())?;
    writeln!(out)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cause_is_said_once() {
        let io = std::io::Error::other("no such file");
        let error = anyhow::Error::from(benchsite::data::DataError::Read {
            path: "data/results.json".into(),
            source: io,
        })
        .context("collect failure");
        assert_eq!(
            chain(&error),
            "collect failure: cannot read data/results.json: no such file"
        );
    }
}
