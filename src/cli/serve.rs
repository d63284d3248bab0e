//! `benchsite serve`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use benchsite::serve::{self, Event};
use clap::Args;

use super::Outcome;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The port to serve on; the next free one is used when it is taken (0: any free port).
    #[arg(long, default_value_t = 1111)]
    port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1", value_name = "IP")]
    bind: IpAddr,
    /// Open the site in the default browser (or the program $BROWSER names).
    #[arg(long)]
    open: bool,
    /// Include pages marked draft = true.
    #[arg(long)]
    drafts: bool,
    /// How long files must be quiet before a rebuild, in milliseconds.
    #[arg(long, default_value_t = 50, value_name = "MS")]
    debounce: u64,
}

pub fn run(root: &Path, args: ServeArgs) -> Outcome {
    let options = serve::Options {
        root: root.to_owned(),
        bind: args.bind,
        port: args.port,
        debounce: Duration::from_millis(args.debounce.max(1)),
        drafts: args.drafts,
    };
    let server = serve::start(&options, Box::new(report))?;
    if args.port != 0 && server.addr().port() != args.port {
        println!(
            "port {} is taken; using {}",
            args.port,
            server.addr().port()
        );
    }
    println!("serving {}", server.url());
    println!("watching content/, templates/, data/, profiles/ and benchsite.toml; Ctrl-C stops");
    if args.open
        && let Err(error) = opener::open_browser(server.url())
    {
        eprintln!("warning: cannot open a browser: {error}");
    }
    server.wait_for_signal();
    println!("stopping");
    server.stop();
    Ok(ExitCode::SUCCESS)
}

fn report(event: &Event) {
    match event {
        Event::Built {
            rebuild,
            elapsed,
            changed,
        } => {
            let what = if rebuild.incremental {
                "rendered"
            } else {
                "built"
            };
            let pages = if rebuild.pages == 1 { "page" } else { "pages" };
            println!(
                "{what} {} {pages} in {} ms{}",
                rebuild.pages,
                elapsed.as_millis(),
                because(changed)
            );
        }
        Event::Failed { error, changed } => {
            eprintln!("error{}:\n{error}", because(changed));
            eprintln!("the last good site is still served; fix the file and it rebuilds");
        }
        Event::Watch(message) => eprintln!("warning: file watcher: {message}"),
    }
}

/// ` (content/a.md, data/results.json changed)`, or nothing for the first build.
fn because(changed: &[PathBuf]) -> String {
    if changed.is_empty() {
        return String::new();
    }
    let mut names: Vec<String> = changed
        .iter()
        .take(3)
        .map(|path| path.display().to_string())
        .collect();
    if changed.len() > 3 {
        names.push(format!("{} more", changed.len() - 3));
    }
    format!(" ({} changed)", names.join(", "))
}
