//! `campaigns/<name>.toml` read: the configurations (a profile, fixed settings and a matrix
//! expanded to its Cartesian product), the measurements every configuration gets, and the
//! machines; parsed with positions, validated, and expanded into a [`Campaign`].

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use indexmap::IndexMap;
use toml::Spanned;

use super::error::CampaignError;
use super::ids::{identify, references};
use super::scheduler;
use super::spec::{Campaign, Configuration, SweepSpec};
use super::text::{FileText, Problems, Scalar, value_at};
use crate::collect::CaptureParams;
use crate::config::position;
use crate::data;
use crate::profiles::{self, Origin, Setting};
use crate::project::Machine;

/// What the parser needs of the project: its machines and profiles.
pub(super) struct Context<'a> {
    /// The project's machines (one with an empty slug in a single-machine project).
    pub machines: &'a [Machine],
    /// The profiles folder.
    pub profiles: &'a Path,
}

/// Parses and expands the campaign `name` at `path`; every problem found, each with its
/// line and column.
pub(super) fn parse(
    name: &str,
    path: &Path,
    text: &str,
    context: &Context,
) -> Result<Campaign, Vec<CampaignError>> {
    let mut problems = Problems {
        path,
        text,
        found: Vec::new(),
    };
    let file: FileText = match toml::from_str(text) {
        Ok(file) => file,
        Err(error) => {
            problems.at(
                error.span().map_or(0, |span| span.start),
                error.message().trim().to_owned(),
            );
            return Err(problems.found);
        }
    };
    let machines = machines(&file, context, &mut problems);
    if file.configs.get_ref().is_empty() {
        problems.at(
            file.configs.span().start,
            "at least one [[config]] with a profile",
        );
    }
    if file.run.is_none()
        && file.sweep.is_empty()
        && file.quality.is_none()
        && file.jitter.is_none()
    {
        problems.at(0, "a measurement: [run], [[sweep]], [quality] or [jitter]");
    }
    let sweeps = sweeps(&file, &mut problems);
    let several =
        machines.len() > 1 || context.machines.first().is_some_and(|m| !m.slug.is_empty());
    let mut configurations = configurations(&file, context, &machines, several, &mut problems);
    let quality = file.quality.as_ref().map(|q| CaptureParams {
        concurrency: q.get_ref().concurrency.max(1),
        ..q.get_ref().clone()
    });
    if let Some(q) = &file.quality {
        match &q.get_ref().reference {
            Some(reference) => {
                let at = value_at(problems.text, q.span().start, "reference");
                references(&mut configurations, reference, at, &mut problems);
            }
            None => problems.at(
                q.span().start,
                "quality.reference: expected the configuration every other is compared with, found none",
            ),
        }
    }
    if let Some(launch) = &file.launch
        && let Err(unusable) = launch.get_ref().usable()
    {
        let at = value_at(problems.text, launch.span().start, unusable.key);
        problems.at(at, unusable.in_table("launch"));
    }
    let declared: Vec<String> = context.machines.iter().map(|m| m.slug.clone()).collect();
    let slurm = scheduler::read(file.slurm.as_ref(), &declared, &mut problems);
    if !problems.found.is_empty() {
        return Err(problems.found);
    }
    Ok(Campaign {
        name: name.to_owned(),
        path: path.to_owned(),
        description: file.description,
        configurations: configurations.into_iter().map(|(_, c)| c).collect(),
        run: file.run,
        sweeps,
        quality,
        jitter: file.jitter,
        launch: file.launch.map(Spanned::into_inner).unwrap_or_default(),
        slurm,
    })
}

/// Every configuration of the file on each of `machines`, with the stem of its id: each
/// `[[config]]`'s profile with its `set`, once per combination of its matrix.
fn configurations(
    file: &FileText,
    context: &Context,
    machines: &[String],
    several: bool,
    problems: &mut Problems,
) -> Vec<(String, Configuration)> {
    let profile_names = profiles::names(context.profiles);
    let mut configurations = Vec::new();
    let mut ids: HashMap<String, usize> = HashMap::new();
    let mut loaded: HashMap<String, Option<profiles::Profile>> = HashMap::new();
    for config in file.configs.get_ref() {
        let profile = config.profile.get_ref();
        let parsed = loaded
            .entry(profile.clone())
            .or_insert_with(|| profiles::load(context.profiles, profile).ok())
            .clone();
        if !profile_names.contains(profile) {
            problems.at(
                config.profile.span().start,
                format!(
                    "profile: expected the name of a profile in {} (one of: {}), found {profile:?}",
                    context.profiles.display(),
                    profile_names.join(", ")
                ),
            );
        }
        let Some(fixed) = settings(&config.set, problems) else {
            continue;
        };
        // A key another engine takes but this profile's does not, at its place in the file.
        if let Some(profile) = &parsed {
            let spec = profile.effective(&fixed).engine().spec();
            let keys = config.set.keys().map(|k| ("set", k));
            for (table, key) in keys.chain(config.matrix.keys().map(|k| ("matrix", k))) {
                let name = key.get_ref();
                if profiles::KEYS.iter().any(|k| k.name == name) && !spec.takes(name) {
                    problems.at(
                        key.span().start,
                        format!("{table}.{name}: {}", spec.refusal(name)),
                    );
                }
            }
        }
        for (key, _) in &config.matrix {
            if config.set.keys().any(|k| k.get_ref() == key.get_ref()) {
                problems.at(
                    key.span().start,
                    format!("matrix.{}: a key not also in set", key.get_ref()),
                );
            }
        }
        for combination in product(&config.matrix, problems) {
            let mut all = fixed.clone();
            all.extend(combination.iter().cloned());
            for machine in machines {
                let (id, stem) = match identify(config, profile, &combination, machine, several) {
                    Ok(found) => found,
                    Err((offset, message)) => {
                        problems.at(offset, message);
                        continue;
                    }
                };
                let offset = config
                    .id
                    .as_ref()
                    .map_or(config.profile.span().start, |id| id.span().start);
                if let Some(first) = ids.insert(id.as_str().to_owned(), offset) {
                    let (line, _) = position(problems.text, first);
                    problems.at(
                        offset,
                        format!(
                            "configuration ids unique in the campaign: {id} is also the id of a configuration on line {line}; give each [[config]] an id template over its matrix keys, such as id = \"{}-{{{}}}\"",
                            data::slugify(profile),
                            config.matrix.keys().next().map_or("KEY", |k| k.get_ref())
                        ),
                    );
                }
                configurations.push((
                    stem,
                    Configuration {
                        id,
                        machine: machine.clone(),
                        profile: profile.clone(),
                        settings: all.clone(),
                        shape: config.shape.clone(),
                        precision: config.precision.clone(),
                        reference: None,
                        port: parsed.as_ref().map(|p| p.effective(&all).port()),
                        gpus: parsed.as_ref().map_or(1, |p| p.effective(&all).gpus()),
                    },
                ));
            }
        }
    }
    configurations
}

/// The machines the campaign runs on: `machines`, each declared by the project; by default
/// every machine of the project.
fn machines(file: &FileText, context: &Context, problems: &mut Problems) -> Vec<String> {
    let declared: Vec<&str> = context.machines.iter().map(|m| m.slug.as_str()).collect();
    let Some(listed) = &file.machines else {
        return declared.iter().map(|s| (*s).to_owned()).collect();
    };
    if listed.get_ref().is_empty() {
        problems.at(listed.span().start, "machines: at least one machine");
    }
    let mut found = Vec::new();
    for slug in listed.get_ref() {
        if declared.contains(&slug.get_ref().as_str()) && !slug.get_ref().is_empty() {
            found.push(slug.get_ref().clone());
        } else {
            let known = declared
                .iter()
                .filter(|s| !s.is_empty())
                .copied()
                .collect::<Vec<_>>();
            problems.at(
                slug.span().start,
                if known.is_empty() {
                    format!(
                        "machines: this report declares no [machines] in benchsite.toml; leave machines out (found {:?})",
                        slug.get_ref()
                    )
                } else {
                    format!(
                        "machines: expected a machine of benchsite.toml (one of: {}), found {:?}",
                        known.join(", "),
                        slug.get_ref()
                    )
                },
            );
        }
    }
    found
}

/// The sweeps with their names: given, or `sweep` for the one sweep without a name. A job's
/// id comes from its sweep's name, never its place, so adding a sweep renames none.
fn sweeps(file: &FileText, problems: &mut Problems) -> Vec<SweepSpec> {
    let mut names = BTreeSet::new();
    let mut unnamed = false;
    let mut sweeps = Vec::new();
    for spanned in &file.sweep {
        let sweep = spanned.get_ref();
        let table = spanned.span();
        let value = |key: &str| value_at(problems.text, table.start, key);
        let name = match &sweep.name {
            Some(name) => {
                if data::slugify(name) != *name {
                    problems.at(
                        value("name"),
                        format!(
                            "sweep.name: expected a slug of lowercase letters, digits and hyphens, found {name:?}"
                        ),
                    );
                }
                name.clone()
            }
            None if !unnamed => {
                unnamed = true;
                "sweep".to_owned()
            }
            None => {
                problems.at(
                    table.start,
                    "sweep.name: a name for each [[sweep]] but one (the one without is `sweep`), so that adding a sweep never renames another's jobs",
                );
                continue;
            }
        };
        if !names.insert(name.clone()) {
            problems.at(
                table.start,
                format!("sweep names unique in the campaign: {name:?} is given twice"),
            );
        }
        if let Err(unusable) = sweep.usable() {
            problems.at(value(unusable.key), unusable.for_campaign());
        }
        if sweep.output_tokens == 0 || sweep.rounds == 0 || sweep.prompt_words == 0 {
            problems.at(
                table.start,
                "sweep: prompt_words, output_tokens and rounds of at least 1",
            );
        }
        sweeps.push(SweepSpec {
            name,
            params: sweep.clone(),
        });
    }
    sweeps
}

/// `set` as settings, each checked as a `--set` would be.
fn settings(
    set: &IndexMap<Spanned<String>, Spanned<Scalar>>,
    problems: &mut Problems,
) -> Option<Vec<Setting>> {
    let mut settings = Vec::new();
    let mut ok = true;
    for (key, value) in set {
        match setting(key.get_ref(), &value.get_ref().text()) {
            Ok(setting) => settings.push(setting),
            Err(message) => {
                ok = false;
                problems.at(
                    key.span().start,
                    format!("set.{}: {message}", key.get_ref()),
                );
            }
        }
    }
    ok.then_some(settings)
}

fn setting(key: &str, value: &str) -> Result<Setting, String> {
    profiles::parse_set(&format!("{key}={value}"))
        .map(|setting| Setting {
            origin: Origin::Override,
            ..setting
        })
        .map_err(|error| error.to_string())
}

/// Every combination of the matrix's values, in the file's order (the last key varying
/// fastest); one empty combination without a matrix.
fn product(
    matrix: &IndexMap<Spanned<String>, Spanned<Vec<Scalar>>>,
    problems: &mut Problems,
) -> Vec<Vec<Setting>> {
    let mut combinations = vec![Vec::new()];
    for (key, values) in matrix {
        if values.get_ref().is_empty() {
            problems.at(
                values.span().start,
                format!("matrix.{}: at least one value", key.get_ref()),
            );
            return Vec::new();
        }
        let mut settings = Vec::new();
        for value in values.get_ref() {
            match setting(key.get_ref(), &value.text()) {
                Ok(setting) => settings.push(setting),
                Err(message) => {
                    problems.at(
                        key.span().start,
                        format!("matrix.{}: {message}", key.get_ref()),
                    );
                    return Vec::new();
                }
            }
        }
        combinations = combinations
            .into_iter()
            .flat_map(|combination| {
                settings.iter().map(move |setting| {
                    let mut next = combination.clone();
                    next.push(setting.clone());
                    next
                })
            })
            .collect();
    }
    combinations
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("profiles")).unwrap();
        for name in ["big", "small"] {
            std::fs::write(
                dir.path().join(format!("profiles/{name}.env")),
                "MODEL=org/model\nMAX_MODEL_LEN=8192\n",
            )
            .unwrap();
        }
        dir
    }

    fn single() -> Vec<Machine> {
        vec![Machine {
            slug: String::new(),
            title: None,
            data: "data/results.json".into(),
            baseline: None,
            runner: None,
        }]
    }

    /// Machines `a` and `b`.
    fn two_machines() -> Vec<Machine> {
        ["a", "b"]
            .iter()
            .map(|slug| Machine {
                slug: (*slug).to_owned(),
                title: None,
                data: format!("data/{slug}.json"),
                baseline: None,
                runner: None,
            })
            .collect()
    }

    fn parsed(text: &str, machines: &[Machine]) -> Result<Campaign, Vec<CampaignError>> {
        let dir = context_dir();
        let profiles = dir.path().join("profiles");
        parse(
            "night",
            Path::new("campaigns/night.toml"),
            text,
            &Context {
                machines,
                profiles: &profiles,
            },
        )
    }

    fn messages(errors: Vec<CampaignError>) -> Vec<String> {
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn a_matrix_expands_to_its_product_with_derived_ids() {
        let campaign = parsed(
            r#"
[[config]]
profile = "big"
set = { MAX_NUM_SEQS = 8 }
matrix = { SPEC_DECODE = [0, 1], KV_CACHE_DTYPE = ["fp8", "auto"] }

[[config]]
profile = "small"
id = "small-{profile}"

[run]
"#,
            &single(),
        )
        .unwrap();
        let ids: Vec<&str> = campaign
            .configurations
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(
            ids,
            [
                "big-spec-decode-0-kv-cache-dtype-fp8",
                "big-spec-decode-0-kv-cache-dtype-auto",
                "big-spec-decode-1-kv-cache-dtype-fp8",
                "big-spec-decode-1-kv-cache-dtype-auto",
                "small-small",
            ]
        );
        let settings: Vec<String> = campaign.configurations[2]
            .settings
            .iter()
            .map(|s| format!("{}={}", s.key, s.value))
            .collect();
        assert_eq!(
            settings,
            ["MAX_NUM_SEQS=8", "SPEC_DECODE=1", "KV_CACHE_DTYPE=fp8"]
        );
        assert_eq!(campaign.run.as_ref().unwrap().samples, 3);
    }

    #[test]
    fn several_machines_suffix_ids_and_templates_must_name_the_machine() {
        let machines = two_machines();
        let campaign = parsed(
            "[[config]]\nprofile = \"big\"\nmatrix = { SPEC_DECODE = [0, 1] }\n[[sweep]]\nlevels = [1, 2]\n[quality]\nreference = \"big-spec-decode-0\"\n",
            &machines,
        )
        .unwrap();
        let ids: Vec<(&str, &str, Option<&str>)> = campaign
            .configurations
            .iter()
            .map(|c| {
                (
                    c.id.as_str(),
                    c.machine.as_str(),
                    c.reference.as_ref().map(crate::data::Id::as_str),
                )
            })
            .collect();
        assert_eq!(
            ids,
            [
                ("big-spec-decode-0-a", "a", None),
                ("big-spec-decode-0-b", "b", None),
                ("big-spec-decode-1-a", "a", Some("big-spec-decode-0-a")),
                ("big-spec-decode-1-b", "b", Some("big-spec-decode-0-b")),
            ]
        );
        assert_eq!(campaign.sweeps[0].name, "sweep");
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\nid = \"x\"\n[run]\n",
                &machines,
            )
            .unwrap_err(),
        );
        assert!(errors[0].contains("{machine}"), "{errors:?}");
    }

    #[test]
    fn the_reference_goes_first() {
        let campaign = parsed(
            "[[config]]\nprofile = \"big\"\nmatrix = { KV_CACHE_DTYPE = [\"fp8\", \"auto\"] }\n[quality]\nreference = \"big-kv-cache-dtype-auto\"\n",
            &single(),
        )
        .unwrap();
        let ids: Vec<&str> = campaign
            .configurations
            .iter()
            .map(|c| c.id.as_str())
            .collect();
        assert_eq!(ids, ["big-kv-cache-dtype-auto", "big-kv-cache-dtype-fp8"]);
    }

    #[test]
    fn slurm_options_are_read_and_checked_at_their_place() {
        let machines = two_machines();
        let campaign = parsed(
            "[[config]]\nprofile = \"big\"\n[run]\n[slurm]\npartition = \"gpu\"\ntime = \"1-12\"\nextra = [\"--account=lab\"]\n[slurm.machines.b]\nconstraint = \"h100\"\ngpus = 0\n",
            &machines,
        )
        .unwrap();
        let b = campaign.slurm.of("b");
        assert_eq!(
            b.sbatch(b.gpus_for(1)),
            [
                "--partition=gpu",
                "--time=1-12",
                "--constraint=h100",
                "--account=lab"
            ]
        );
        assert_eq!(campaign.slurm.of("b").gpus_for(2), 0);
        assert_eq!(campaign.slurm.of("a").gpus_for(2), 2);
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\n[run]\n[slurm]\ntime = \"4h\"\ngpus = -1\ngpu_type = \"a100:2\"\npartition = \"two words\"\nextra = [\"account=lab\"]\n[slurm.machines.c]\ncpus_per_task = 0\n[slurm.machines.a]\ncpus_per_task = 0\n",
                &machines,
            )
            .unwrap_err(),
        );
        let joined = errors.join("\n");
        for expected in [
            "campaigns/night.toml:5:8: slurm.time: expected a time limit in one of Slurm's forms",
            "campaigns/night.toml:6:8: slurm.gpus: expected a whole number of at least 0, found -1",
            "campaigns/night.toml:7:12: slurm.gpu_type: expected the type alone (its count is gpus), found \"a100:2\"",
            "campaigns/night.toml:8:13: slurm.partition: expected a word without spaces, found \"two words\"",
            "campaigns/night.toml:9:9: slurm.extra: expected sbatch options as an #SBATCH line gives them",
            "campaigns/night.toml:10:17: slurm.machines: expected a machine of benchsite.toml (one of: a, b), found \"c\"",
            "campaigns/night.toml:13:17: slurm.machines.a.cpus_per_task: expected a whole number of at least 1, found 0",
        ] {
            assert!(joined.contains(expected), "{expected}\n{joined}");
        }
    }

    /// A job's id comes from its sweep's name: the one sweep without a name is `sweep`
    /// whatever its place, and a second without one is refused rather than renaming it.
    #[test]
    fn adding_a_sweep_renames_none() {
        let one = parsed(
            "[[config]]\nprofile = \"big\"\n[[sweep]]\nlevels = [1, 2]\n",
            &single(),
        )
        .unwrap();
        let two = parsed(
            "[[config]]\nprofile = \"big\"\n[[sweep]]\nname = \"long\"\nlevels = [1]\n[[sweep]]\nlevels = [1, 2]\n",
            &single(),
        )
        .unwrap();
        let names = |c: &Campaign| c.sweeps.iter().map(|s| s.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&one), ["sweep"]);
        assert_eq!(names(&two), ["long", "sweep"]);
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\n[[sweep]]\nlevels = [1, 2]\n[[sweep]]\nlevels = [4]\n",
                &single(),
            )
            .unwrap_err(),
        );
        assert_eq!(
            errors,
            [
                "campaigns/night.toml:5:1: sweep.name: a name for each [[sweep]] but one (the one without is `sweep`), so that adding a sweep never renames another's jobs"
            ]
        );
    }

    #[test]
    fn problems_are_named_with_their_line_and_column() {
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"huge\"\n\n[[config]]\nprofile = \"big\"\nid = \"{QUANT}\"\n\n[[sweep]]\nlevels = [4, 2]\n\n[quality]\nreference = \"nope\"\n",
                &single(),
            )
            .unwrap_err(),
        );
        let joined = errors.join("\n");
        assert!(
            joined
                .contains("campaigns/night.toml:2:11: profile: expected the name of a profile in")
                && joined.contains("(one of: big, small), found \"huge\""),
            "{joined}"
        );
        assert!(
            joined.contains("campaigns/night.toml:9:10: sweep.levels: expected increasing"),
            "{joined}"
        );
        // An open loop's parameter out of range, at its value.
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\n\n[[sweep]]\nrates = [1.0, 4.0]\nduration_s = -2.0\n",
                &single(),
            )
            .unwrap_err(),
        );
        assert!(
            errors.iter().any(|e| e
                .contains("campaigns/night.toml:6:14: sweep.duration_s: expected seconds above 0")),
            "{errors:?}"
        );
        assert!(
            joined.contains("campaigns/night.toml:6:6: id: {QUANT} is not a matrix key"),
            "{joined}"
        );
        assert!(
            joined.contains("campaigns/night.toml:12:13: quality.reference"),
            "{joined}"
        );

        // A key of another engine's, where the file sets it.
        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\nset = { THREADS = 4 }\nmatrix = { N_GPU_LAYERS = [10, 20] }\n[run]\n",
                &single(),
            )
            .unwrap_err(),
        );
        assert_eq!(
            errors[..2],
            [
                "campaigns/night.toml:3:9: set.THREADS: THREADS is not a setting of vllm (ENGINE=vllm takes ENGINE, PROGRAM, ENV, IMAGE, MODEL, PORT, EXTRA_ARGS, SERVED_MODEL_NAME, MAX_MODEL_LEN, MAX_NUM_SEQS, GPU_MEMORY_UTILIZATION, KV_CACHE_DTYPE, TENSOR_PARALLEL_SIZE, PIPELINE_PARALLEL_SIZE, DATA_PARALLEL_SIZE, ENFORCE_EAGER, LANGUAGE_MODEL_ONLY, SPEC_DECODE, SPEC_METHOD, NUM_SPECULATIVE_TOKENS)",
                "campaigns/night.toml:4:12: matrix.N_GPU_LAYERS: N_GPU_LAYERS is not a setting of vllm (ENGINE=vllm takes ENGINE, PROGRAM, ENV, IMAGE, MODEL, PORT, EXTRA_ARGS, SERVED_MODEL_NAME, MAX_MODEL_LEN, MAX_NUM_SEQS, GPU_MEMORY_UTILIZATION, KV_CACHE_DTYPE, TENSOR_PARALLEL_SIZE, PIPELINE_PARALLEL_SIZE, DATA_PARALLEL_SIZE, ENFORCE_EAGER, LANGUAGE_MODEL_ONLY, SPEC_DECODE, SPEC_METHOD, NUM_SPECULATIVE_TOKENS)",
            ],
            "{errors:?}"
        );

        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\nsamples = 3\n[run]\n",
                &single(),
            )
            .unwrap_err(),
        );
        assert!(
            errors[0].starts_with("campaigns/night.toml:3:1: unknown field `samples`"),
            "{errors:?}"
        );

        let errors = messages(
            parsed(
                "[[config]]\nprofile = \"big\"\n[[config]]\nprofile = \"big\"\n[run]\n",
                &single(),
            )
            .unwrap_err(),
        );
        assert!(
            errors[0].contains("big is also the id of a configuration on line 2"),
            "{errors:?}"
        );
    }
}
