//! `benchsite profile show`.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use benchsite::profiles::{self, Launcher};
use benchsite::project::Layout;
use clap::{Args, Subcommand};

use super::Outcome;

#[derive(Debug, Args)]
pub struct ProfileArgs {
    #[command(subcommand)]
    command: ProfileCommand,
}

#[derive(Debug, Subcommand)]
enum ProfileCommand {
    /// Print a profile's effective settings and the command that starts the server.
    Show {
        /// The profile: a file profiles/NAME.env.
        name: String,
        /// Override a setting (repeatable); EXTRA_ARGS=... takes the whole value.
        #[arg(long = "set", value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// How the server is started; without it, every way the profile allows (podman
        /// where it names an IMAGE, and this machine).
        #[arg(long, value_enum)]
        launcher: Option<Launcher>,
    },
}

pub fn run(root: &Path, args: ProfileArgs) -> Outcome {
    match args.command {
        ProfileCommand::Show {
            name,
            set,
            launcher,
        } => {
            let layout = Layout::new(root);
            let profile = profiles::load(&layout.profiles(), &name)?;
            for warning in &profile.warnings {
                eprintln!("warning: {warning}");
            }
            let overrides = set
                .iter()
                .map(|text| profiles::parse_set(text))
                .collect::<Result<Vec<_>, _>>()
                .context("invalid --set")?;
            let effective = profile.effective(&overrides);
            let launchers = match launcher {
                Some(launcher) => vec![launcher],
                None if effective.get("IMAGE").is_some() => {
                    vec![Launcher::Podman, Launcher::Local]
                }
                None => vec![Launcher::Local],
            };
            let commands = launchers
                .iter()
                .map(|&launcher| Ok((launcher, effective.launch_command(launcher)?)))
                .collect::<Result<Vec<_>, profiles::ProfileError>>()?;
            println!("# effective settings");
            print!("{effective}");
            let engine = effective.engine();
            for (launcher, command) in commands {
                let how = match launcher {
                    Launcher::Podman => "from its container image (--launcher podman)",
                    Launcher::Local => "on this machine (--launcher local)",
                };
                println!("\n# {} {how}", engine.name());
                println!("{command}");
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
