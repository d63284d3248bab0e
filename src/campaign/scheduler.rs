//! `[slurm]`: where and how a campaign's tasks run on a scheduler. The campaign's options, and
//! a machine's own under `[slurm.machines.<slug>]`; read with their places, validated, and
//! turned into `sbatch` options (and the Actions job's `timeout-minutes`).

use std::collections::BTreeMap;

use toml::Spanned;

use super::text::{Problems, SlurmText};

/// The scheduler options of a campaign's tasks (of all, or of one machine's).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SlurmOptions {
    /// `--partition`.
    pub partition: Option<String>,
    /// `--time`, in one of Slurm's forms (`90`, `4:00:00`, `1-12`).
    pub time: Option<String>,
    /// GPUs per task; 0 asks for none. Unset: the configuration's own count.
    pub gpus: Option<u32>,
    /// The GPU type of `--gpus=TYPE:N`.
    pub gpu_type: Option<String>,
    /// `--constraint`: the node features a task needs.
    pub constraint: Option<String>,
    /// `--cpus-per-task`.
    pub cpus_per_task: Option<u32>,
    /// Further `sbatch` options, each as an `#SBATCH` line would give it.
    pub extra: Vec<String>,
}

/// A campaign's `[slurm]`: the options of every task, and each machine's own on top.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Slurm {
    /// `[slurm]`'s own keys.
    pub all: SlurmOptions,
    /// `[slurm.machines.<slug>]`, by slug.
    pub machines: BTreeMap<String, SlurmOptions>,
}

impl Slurm {
    /// The options of `machine`'s tasks: its own keys over the campaign's, `extra` of both.
    pub fn of(&self, machine: &str) -> SlurmOptions {
        let Some(own) = self.machines.get(machine) else {
            return self.all.clone();
        };
        let all = &self.all;
        SlurmOptions {
            partition: own.partition.clone().or_else(|| all.partition.clone()),
            time: own.time.clone().or_else(|| all.time.clone()),
            gpus: own.gpus.or(all.gpus),
            gpu_type: own.gpu_type.clone().or_else(|| all.gpu_type.clone()),
            constraint: own.constraint.clone().or_else(|| all.constraint.clone()),
            cpus_per_task: own.cpus_per_task.or(all.cpus_per_task),
            extra: all.extra.iter().chain(&own.extra).cloned().collect(),
        }
    }
}

impl SlurmOptions {
    /// The GPUs a task of a configuration that uses `own` GPUs asks for.
    pub fn gpus_for(&self, own: u32) -> u32 {
        self.gpus.unwrap_or(own)
    }

    /// The `sbatch` options of a task that asks for `gpus` GPUs.
    pub fn sbatch(&self, gpus: u32) -> Vec<String> {
        let mut options = Vec::new();
        if let Some(partition) = &self.partition {
            options.push(format!("--partition={partition}"));
        }
        if let Some(time) = &self.time {
            options.push(format!("--time={time}"));
        }
        if gpus > 0 {
            options.push(match &self.gpu_type {
                Some(kind) => format!("--gpus={kind}:{gpus}"),
                None => format!("--gpus={gpus}"),
            });
        }
        if let Some(constraint) = &self.constraint {
            options.push(format!("--constraint={constraint}"));
        }
        if let Some(cpus) = self.cpus_per_task {
            options.push(format!("--cpus-per-task={cpus}"));
        }
        options.extend(self.extra.iter().cloned());
        options
    }

    /// `time` in whole minutes, rounded up: an Actions job's `timeout-minutes`.
    pub fn minutes(&self) -> Option<u64> {
        self.time.as_deref().and_then(|time| minutes(time).ok())
    }
}

/// Slurm's time forms, `M`, `M:S`, `H:M:S`, `D-H`, `D-H:M` and `D-H:M:S`, in whole minutes
/// rounded up; what is expected otherwise.
fn minutes(time: &str) -> Result<u64, String> {
    let expected = || {
        format!(
            "expected a time limit in one of Slurm's forms (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS), found {time:?}"
        )
    };
    let number = |part: &str| -> Result<u64, String> {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return Err(expected());
        }
        part.parse().map_err(|_| expected())
    };
    let (days, rest) = match time.split_once('-') {
        Some((days, rest)) => (Some(number(days)?), rest),
        None => (None, time),
    };
    let parts: Vec<u64> = rest.split(':').map(number).collect::<Result<_, _>>()?;
    let seconds = match (days, parts.as_slice()) {
        (None, [m]) => m * 60,
        (None, [m, s]) => m * 60 + s,
        (None, [h, m, s]) | (Some(_), [h, m, s]) => h * 3600 + m * 60 + s,
        (Some(_), [h]) => h * 3600,
        (Some(_), [h, m]) => h * 3600 + m * 60,
        _ => return Err(expected()),
    } + days.unwrap_or(0) * 86_400;
    if seconds == 0 {
        return Err(format!("expected a time limit above 0, found {time:?}"));
    }
    Ok(seconds.div_ceil(60))
}

/// Reads `[slurm]`, each problem at its place; `machines` are the project's.
pub(super) fn read(
    text: Option<&Spanned<SlurmText>>,
    machines: &[String],
    problems: &mut Problems,
) -> Slurm {
    let Some(text) = text else {
        return Slurm::default();
    };
    let all = options(text.get_ref(), "slurm", problems);
    let mut own = BTreeMap::new();
    for (slug, table) in &text.get_ref().machines {
        let name = slug.get_ref();
        if !machines.contains(name) || name.is_empty() {
            let known: Vec<&str> = machines
                .iter()
                .filter(|m| !m.is_empty())
                .map(String::as_str)
                .collect();
            problems.at(
                slug.span().start,
                if known.is_empty() {
                    format!(
                        "slurm.machines: this report declares no [machines] in benchsite.toml; put the options in [slurm] (found {name:?})"
                    )
                } else {
                    format!(
                        "slurm.machines: expected a machine of benchsite.toml (one of: {}), found {name:?}",
                        known.join(", ")
                    )
                },
            );
            continue;
        }
        if let Some((slug, _)) = table.get_ref().machines.first() {
            problems.at(
                slug.span().start,
                format!("slurm.machines.{name}: a machine's table holds no machines"),
            );
        }
        let table_name = format!("slurm.machines.{name}");
        own.insert(
            name.clone(),
            options(table.get_ref(), &table_name, problems),
        );
    }
    Slurm { all, machines: own }
}

/// One table's options, each checked.
fn options(text: &SlurmText, table: &str, problems: &mut Problems) -> SlurmOptions {
    let word = |value: &Option<Spanned<String>>, key: &str, problems: &mut Problems| {
        let value = value.as_ref()?;
        let written = value.get_ref();
        if written.is_empty() || written.chars().any(char::is_whitespace) {
            problems.at(
                value.span().start,
                format!("{table}.{key}: expected a word without spaces, found {written:?}"),
            );
            return None;
        }
        Some(written.clone())
    };
    let count = |value: &Option<Spanned<i64>>, key: &str, least: i64, problems: &mut Problems| {
        let value = value.as_ref()?;
        match u32::try_from(*value.get_ref()) {
            Ok(n) if i64::from(n) >= least => Some(n),
            _ => {
                problems.at(
                    value.span().start,
                    format!(
                        "{table}.{key}: expected a whole number of at least {least}, found {}",
                        value.get_ref()
                    ),
                );
                None
            }
        }
    };
    let time = text.time.as_ref().and_then(|time| {
        minutes(time.get_ref())
            .map_err(|message| problems.at(time.span().start, format!("{table}.time: {message}")))
            .ok()
            .map(|_| time.get_ref().clone())
    });
    let gpu_type = word(&text.gpu_type, "gpu_type", problems);
    if let Some(kind) = (gpu_type.as_ref()).zip(text.gpu_type.as_ref())
        && kind.0.contains(':')
    {
        problems.at(
            kind.1.span().start,
            format!(
                "{table}.gpu_type: expected the type alone (its count is gpus), found {:?}",
                kind.0
            ),
        );
    }
    let extra = match &text.extra {
        None => Vec::new(),
        Some(extra) => {
            for option in extra.get_ref() {
                if !option.starts_with('-') || option.contains('\n') {
                    problems.at(
                        extra.span().start,
                        format!(
                            "{table}.extra: expected sbatch options as an #SBATCH line gives them (\"--account=lab\"), found {option:?}"
                        ),
                    );
                }
            }
            extra.get_ref().clone()
        }
    };
    SlurmOptions {
        partition: word(&text.partition, "partition", problems),
        time,
        gpus: count(&text.gpus, "gpus", 0, problems),
        gpu_type,
        constraint: word(&text.constraint, "constraint", problems),
        cpus_per_task: count(&text.cpus_per_task, "cpus_per_task", 1, problems),
        extra,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slurm_time_forms_in_minutes() {
        // Worked by hand from sbatch(1)'s forms.
        for (time, expected) in [
            ("90", 90),
            ("1:30", 2),
            ("4:00:00", 240),
            ("1-12", 2160),
            ("1-0:30", 1470),
            ("2-01:02:03", 2943),
        ] {
            assert_eq!(minutes(time), Ok(expected), "{time}");
        }
        for bad in ["", "0", "1h", "1-2-3", "1:2:3:4", "-5", "1-"] {
            assert!(minutes(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_machines_options_go_over_the_campaigns() {
        let slurm = Slurm {
            all: SlurmOptions {
                partition: Some("gpu".into()),
                time: Some("4:00:00".into()),
                extra: vec!["--account=lab".into()],
                ..SlurmOptions::default()
            },
            machines: BTreeMap::from([(
                "a100".to_owned(),
                SlurmOptions {
                    constraint: Some("a100".into()),
                    gpu_type: Some("a100".into()),
                    extra: vec!["--qos=high".into()],
                    ..SlurmOptions::default()
                },
            )]),
        };
        let a100 = slurm.of("a100");
        assert_eq!(
            a100.sbatch(a100.gpus_for(2)),
            [
                "--partition=gpu",
                "--time=4:00:00",
                "--gpus=a100:2",
                "--constraint=a100",
                "--account=lab",
                "--qos=high"
            ]
        );
        let other = slurm.of("h100");
        assert_eq!(
            other.sbatch(0),
            ["--partition=gpu", "--time=4:00:00", "--account=lab"]
        );
        assert_eq!(other.minutes(), Some(240));
    }
}
