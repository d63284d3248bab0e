//! `benchsite theme`: the default templates and the project's overrides of them.

use std::path::Path;
use std::process::ExitCode;

use benchsite::site::{self, Override};
use clap::{Args, Subcommand};

use super::Outcome;

#[derive(Debug, Args)]
pub struct ThemeArgs {
    #[command(subcommand)]
    command: ThemeCommand,
}

#[derive(Debug, Subcommand)]
enum ThemeCommand {
    /// Every default template and static file, whether the project overrides it, and the
    /// blocks an override that extends it (`{% extends "benchsite/NAME" %}`) can replace.
    List,
    /// Copy defaults into templates/ to change them, each marked with where it came from so
    /// `check` can say when the default moves on.
    Eject {
        /// The templates (run.html, static/style.css; default: every one).
        names: Vec<String>,
        /// Replace the project's copy.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(root: &Path, args: ThemeArgs) -> Outcome {
    match args.command {
        ThemeCommand::List => {
            for file in site::theme_files(root) {
                let state = match &file.state {
                    Override::Default => "default".to_owned(),
                    Override::Current => "overridden (ejected from this version)".to_owned(),
                    Override::Older(version) => {
                        format!(
                            "overridden (ejected from benchsite {version}; the default has changed)"
                        )
                    }
                    Override::Unchanged => "overridden by an unchanged copy".to_owned(),
                    Override::EarlierCopy => {
                        "overridden by a copy of an earlier default".to_owned()
                    }
                    Override::Own => "overridden".to_owned(),
                };
                println!("{:<18} {state}", file.name);
                if !file.blocks.is_empty() {
                    println!("{:<18} blocks: {}", "", file.blocks.join(", "));
                }
                if !file.lacks.is_empty() {
                    println!("{:<18} lacks the default's {}", "", file.lacks.join(", "));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ThemeCommand::Eject { names, force } => {
            let written = site::eject_theme(root, &names, force)?;
            for path in &written {
                println!("wrote {}", super::shown(root, path));
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
