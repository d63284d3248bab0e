//! A campaign configuration's id (from its template, or derived from its profile and matrix
//! values, with the machine's slug in a report of several machines) and the reference of its
//! quality comparison.

use std::collections::BTreeSet;

use super::spec::Configuration;
use super::text::{ConfigText, Problems};
use crate::data::{self, Id};
use crate::profiles::Setting;

/// A configuration's id and its stem (the id before the machine's suffix): from its `id`
/// template, or the profile's slug with each matrix key and value, and the machine's slug
/// when the project has several machines. The error is an offset and a message.
pub(super) fn identify(
    config: &ConfigText,
    profile: &str,
    combination: &[Setting],
    machine: &str,
    several: bool,
) -> Result<(Id, String), (usize, String)> {
    let (stem, id) = match &config.id {
        Some(template) => {
            let filled = fill(template.get_ref(), profile, combination, machine)
                .map_err(|message| (template.span().start, message))?;
            if several && !template.get_ref().contains("{machine}") {
                return Err((
                    template.span().start,
                    "id: a template with {machine} in it, as the campaign runs on several machines and ids are unique across them".to_owned(),
                ));
            }
            let stem = fill(template.get_ref(), profile, combination, "")
                .map_err(|message| (template.span().start, message))?;
            (stem, filled)
        }
        None => {
            let mut words = vec![profile.to_owned()];
            for setting in combination {
                words.push(setting.key.clone());
                words.push(setting.value.clone());
            }
            let stem = data::slugify(&words.join("-"));
            let id = if several && !machine.is_empty() {
                format!("{stem}-{machine}")
            } else {
                stem.clone()
            };
            (stem, id)
        }
    };
    let offset = config
        .id
        .as_ref()
        .map_or(config.profile.span().start, |t| t.span().start);
    let id = Id::new(&id).map_err(|message| (offset, format!("id: {message}")))?;
    Ok((id, data::slugify(&stem)))
}

/// `template` with `{profile}`, `{machine}` and each `{KEY}` of the combination replaced by
/// the slug of its value.
fn fill(
    template: &str,
    profile: &str,
    combination: &[Setting],
    machine: &str,
) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            return Err(format!("id: an unclosed {{ in {template:?}"));
        };
        let name = &rest[open + 1..open + close];
        let value = match name {
            "profile" => data::slugify(profile),
            "machine" => machine.to_owned(),
            key => match combination.iter().find(|s| s.key == key) {
                Some(setting) => data::slugify(&setting.value),
                None => {
                    let mut names = vec!["profile".to_owned(), "machine".to_owned()];
                    names.extend(combination.iter().map(|s| s.key.clone()));
                    return Err(format!(
                        "id: {{{name}}} is not a matrix key; the template can use {}",
                        names
                            .iter()
                            .map(|n| format!("{{{n}}}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            },
        };
        out.push_str(&value);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    // An empty machine leaves a hyphen behind.
    Ok(out
        .split('-')
        .filter(|word| !word.is_empty())
        .collect::<Vec<_>>()
        .join("-"))
}

/// Resolves `[quality] reference` on each machine (by id, with `{machine}` filled, or by
/// stem) and puts each machine's reference first.
pub(super) fn references(
    configurations: &mut Vec<(String, Configuration)>,
    wanted: &str,
    at: usize,
    problems: &mut Problems,
) {
    let machines: Vec<String> = configurations
        .iter()
        .map(|(_, c)| c.machine.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    for machine in machines {
        let on_machine = |c: &Configuration| c.machine == machine;
        let reference = configurations
            .iter()
            .find(|(stem, c)| {
                on_machine(c)
                    && (c.id.as_str() == wanted.replace("{machine}", &machine) || stem == wanted)
            })
            .map(|(_, c)| c.id.clone());
        let Some(reference) = reference else {
            let ids: Vec<&str> = configurations
                .iter()
                .filter(|(_, c)| on_machine(c))
                .map(|(stem, _)| stem.as_str())
                .collect();
            problems.at(
                at,
                format!(
                    "quality.reference: expected a configuration of this campaign (one of: {}), found {wanted:?}",
                    ids.join(", ")
                ),
            );
            return;
        };
        for (_, c) in configurations.iter_mut().filter(|(_, c)| on_machine(c)) {
            c.reference = (c.id != reference).then(|| reference.clone());
        }
        // The reference's capture is what the others are scored against: it goes first.
        let at = configurations
            .iter()
            .position(|(_, c)| c.id == reference)
            .expect("found above");
        let first = configurations
            .iter()
            .position(|(_, c)| on_machine(c))
            .expect("the reference is on the machine");
        let moved = configurations.remove(at);
        configurations.insert(first, moved);
    }
}
