//! `benchsite build`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use benchsite::project::Layout;
use benchsite::site;
use clap::Args;

use super::Outcome;

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// Where to write the site (default: site/ in the project).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The address the site is published at, e.g. https://user.github.io/report/ (overrides
    /// base_url of benchsite.toml).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Include pages marked draft = true.
    #[arg(long)]
    drafts: bool,
}

pub fn run(root: &Path, args: BuildArgs) -> Outcome {
    let layout = Layout::new(root);
    let out = args.out.unwrap_or_else(|| layout.root.join("site"));
    let started = Instant::now();
    let options = site::Options {
        base_url: args.base_url,
        drafts: args.drafts,
    };
    match site::build(&layout.root, &out, &options) {
        Ok(site) => {
            println!(
                "built {} pages ({} files) into {} in {} ms ({} unchanged since the last build, not rendered again)",
                site.pages,
                site.files,
                out.display(),
                started.elapsed().as_millis(),
                site.reused
            );
            if let Some(search) = site.search {
                println!(
                    "search: {} of {} pages indexed anew, the rest as the previous build had them",
                    search.anew, search.pages
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(error) => {
            eprintln!("error: {error}");
            eprintln!("build failed; {} was left as it was", out.display());
            Ok(ExitCode::FAILURE)
        }
    }
}
