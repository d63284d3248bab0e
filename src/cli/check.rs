//! `benchsite check`.

use std::path::Path;
use std::process::ExitCode;

use benchsite::project;

use super::Outcome;

pub fn run(root: &Path) -> Outcome {
    let report = project::check(root);
    for warning in &report.warnings {
        eprintln!("warning: {warning}");
    }
    for warning in benchsite::site::theme_warnings(root) {
        eprintln!("warning: {warning}");
    }
    let campaigns = report
        .config
        .as_ref()
        .map(|config| benchsite::campaign::check(root, &project::machines(config)))
        .unwrap_or_default();
    if !report.is_ok() || !campaigns.is_empty() {
        for error in &report.errors {
            eprintln!("error: {error}");
        }
        for error in &campaigns {
            eprintln!("error: {error}");
        }
        // A campaign file reports each of its problems; it counts once.
        let mut campaign_files: Vec<String> = campaigns
            .iter()
            .map(|error| match error {
                benchsite::campaign::CampaignError::Invalid { path, .. } => {
                    path.display().to_string()
                }
                other => other.to_string(),
            })
            .collect();
        campaign_files.dedup();
        let count = report.errors.len() + campaign_files.len();
        eprintln!(
            "check failed: {count} file{} with problems",
            if count == 1 { "" } else { "s" }
        );
        return Ok(ExitCode::FAILURE);
    }
    // Content, shortcodes, links and templates are checked by rendering in memory.
    let names: Vec<String> = report.profiles.iter().map(|p| p.name.clone()).collect();
    let prompts = report.prompts.as_ref().map(|set| {
        let mut categories: Vec<&str> = set.prompts.iter().map(|p| p.category.as_str()).collect();
        categories.sort_unstable();
        categories.dedup();
        format!(
            "{}: {} prompts in {} categories",
            set.path,
            set.prompts.len(),
            categories.len()
        )
    });
    let counts: Vec<String> =
        report
            .documents
            .iter()
            .flat_map(|documents| {
                documents.machines.iter().zip(&documents.documents).map(|(machine, doc)| format!(
            "{}: {} runs, {} failures, {} sweeps ({} levels), {} jitter, {} divergence",
            machine.data,
            doc.runs.len(),
            doc.failures.len(),
            doc.sweeps.len(),
            doc.sweeps.iter().map(|s| s.levels.len()).sum::<usize>(),
            doc.jitter.len(),
            doc.divergence.len(),
        ))
            })
            .collect();
    let site = match benchsite::site::check(root, report) {
        Ok(site) => site,
        Err(error) => {
            eprintln!("error: {error}");
            eprintln!("check failed: content or templates have problems");
            return Ok(ExitCode::FAILURE);
        }
    };
    println!(
        "profiles: {} ({})",
        names.len(),
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    );
    for counts in counts {
        println!("{counts}");
    }
    if let Some(prompts) = prompts {
        println!("{prompts}");
    }
    println!(
        "site: {} pages, every template renders, every content link resolves",
        site.pages().count()
    );
    println!("ok: no problems");
    Ok(ExitCode::SUCCESS)
}
