//! `collect hardware`: the machine's facts from nvidia-smi, /proc/meminfo, the CPU count,
//! /etc/os-release, the container runtime and the host name. A missing tool leaves its fields as they were,
//! with a warning.

use std::process::Command;

use crate::data::Hardware;
use crate::stats;

/// What was found, and what could not be.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Detected {
    /// The fields found; the others are `None`.
    pub hardware: Hardware,
    /// One line per source that failed.
    pub warnings: Vec<String>,
}

/// Reads the machine.
pub fn hardware() -> Detected {
    let mut found = Detected::default();
    match run(
        "nvidia-smi",
        &[
            "--query-gpu=name,memory.total,memory.used,driver_version,compute_cap",
            "--format=csv,noheader,nounits",
        ],
    ) {
        Ok(text) => gpu(&text, &mut found),
        Err(error) => found.warnings.push(format!(
            "nvidia-smi: {error}; gpu, arch, vram and driver are left as they were"
        )),
    }
    match std::fs::read_to_string("/proc/meminfo") {
        Ok(text) => found.hardware.host_ram_gib = mem_total_gib(&text),
        Err(error) => found.warnings.push(format!("/proc/meminfo: {error}")),
    }
    found.hardware.cpu_threads = std::thread::available_parallelism()
        .ok()
        .map(|n| n.get() as u64);
    match std::fs::read_to_string("/etc/os-release") {
        Ok(text) => found.hardware.os = os_name(&text),
        Err(error) => found.warnings.push(format!("/etc/os-release: {error}")),
    }
    found.hardware.host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty());
    found.hardware.runtime = ["podman", "docker"].iter().find_map(|tool| {
        let text = run(tool, &["--version"]).ok()?;
        // "podman version 6.1.0", "Docker version 28.2.2, build e6534b4"
        let version = text.split_whitespace().nth(2)?.trim_end_matches(',');
        Some(format!("{tool} {version}"))
    });
    if found.hardware.runtime.is_none() {
        found
            .warnings
            .push("neither podman nor docker answers --version; runtime is left as it was".into());
    }
    found
}

fn run(program: &str, args: &[&str]) -> Result<String, String> {
    let output = Command::new(program)
        .args(args)
        .output()
        .map_err(|error| format!("cannot run: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "{}: {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// The first GPU of `nvidia-smi --query-gpu=name,memory.total,memory.used,driver_version,
/// compute_cap --format=csv,noheader,nounits`.
fn gpu(text: &str, found: &mut Detected) {
    let Some(line) = text.lines().find(|line| !line.trim().is_empty()) else {
        found.warnings.push("nvidia-smi lists no GPU".into());
        return;
    };
    let fields: Vec<&str> = line.split(',').map(str::trim).collect();
    let [name, total, used, driver, capability] = fields[..] else {
        found
            .warnings
            .push(format!("nvidia-smi: unexpected line {line:?}"));
        return;
    };
    let hardware = &mut found.hardware;
    hardware.gpu = Some(name.to_owned());
    hardware.driver = Some(driver.to_owned());
    hardware.arch = arch(capability);
    let total: Option<u64> = total.parse().ok();
    let used: Option<u64> = used.parse().ok();
    hardware.vram_total_mib = total;
    hardware.vram_baseline_mib = used;
    if let (Some(total), Some(used)) = (total, used) {
        let usable = stats::round(total.saturating_sub(used) as f64 / 1024.0, 1);
        hardware.vram_usable_gib = serde_json::Number::from_f64(usable);
    }
    if text.lines().filter(|l| !l.trim().is_empty()).count() > 1 {
        found
            .warnings
            .push("several GPUs; the first is recorded".into());
    }
}

/// `Blackwell sm120` from compute capability `12.0`.
fn arch(capability: &str) -> Option<String> {
    let (major, minor) = capability.split_once('.')?;
    let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
    let family = match (major, minor) {
        (10..=12, _) => "Blackwell",
        (9, _) => "Hopper",
        (8, 9) => "Ada Lovelace",
        (8, _) => "Ampere",
        (7, 5) => "Turing",
        (7, _) => "Volta",
        _ => return Some(format!("sm{major}{minor}")),
    };
    Some(format!("{family} sm{major}{minor}"))
}

/// MemTotal in GiB, to one decimal.
fn mem_total_gib(meminfo: &str) -> Option<serde_json::Number> {
    let line = meminfo.lines().find(|line| line.starts_with("MemTotal:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    serde_json::Number::from_f64(stats::round(kib / 1024.0 / 1024.0, 1))
}

/// PRETTY_NAME of os-release.
fn os_name(text: &str) -> Option<String> {
    text.lines()
        .find_map(|line| line.strip_prefix("PRETTY_NAME="))
        .map(|value| value.trim().trim_matches('"').to_owned())
}

/// `into` with every field `found` has.
pub fn merge(into: &mut Hardware, found: Hardware) {
    macro_rules! take {
        ($($field:ident),*) => {$(
            if found.$field.is_some() {
                into.$field = found.$field;
            }
        )*};
    }
    take!(
        gpu,
        arch,
        vram_total_mib,
        vram_usable_gib,
        vram_baseline_mib,
        driver,
        host_ram_gib,
        cpu_threads,
        os,
        runtime,
        host
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gpu_line() {
        let mut found = Detected::default();
        gpu(
            "NVIDIA GeForce RTX 5090, 32607, 950, 610.57.04, 12.0\n",
            &mut found,
        );
        let hw = &found.hardware;
        assert_eq!(hw.gpu.as_deref(), Some("NVIDIA GeForce RTX 5090"));
        assert_eq!(hw.arch.as_deref(), Some("Blackwell sm120"));
        assert_eq!(hw.vram_total_mib, Some(32607));
        assert_eq!(hw.vram_baseline_mib, Some(950));
        assert_eq!(hw.vram_usable_gib.as_ref().unwrap().to_string(), "30.9");
        assert_eq!(hw.driver.as_deref(), Some("610.57.04"));
        assert!(found.warnings.is_empty());
    }

    #[test]
    fn memory_and_os() {
        let meminfo = "MemTotal:       31457280 kB\nMemFree: 1 kB\n";
        assert_eq!(mem_total_gib(meminfo).unwrap().to_string(), "30.0");
        assert_eq!(
            os_name("NAME=\"Arch Linux\"\nPRETTY_NAME=\"Arch Linux\"\n").as_deref(),
            Some("Arch Linux")
        );
        assert_eq!(arch("8.9").as_deref(), Some("Ada Lovelace sm89"));
    }
}
