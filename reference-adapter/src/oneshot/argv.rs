//! The agy command line of one generation (ADR 0013 decision 2).

use super::settings::OneshotSettings;
use crate::faults::{Fault, FaultSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `--print-timeout` in Go duration syntax: whole seconds as `600s`, else `1.5s`.
pub(crate) fn print_timeout(timeout_s: f64) -> String {
    if timeout_s.fract() == 0.0 && timeout_s < 1e15 {
        format!("{}s", timeout_s as u64)
    } else {
        format!("{timeout_s}s")
    }
}

/// `agy -p <prompt> --output-format json --add-dir <work> (--add-dir <ref dir>)…
/// --print-timeout <t>s [--dangerously-skip-permissions] [--model m] [--effort e]`.
///
/// Never `--conversation` or `--continue`: every image is a fresh conversation (decision 6).
/// `--print-timeout` carries the unscaled timeout: it is agy's own clock (a fake applies
/// the harness time scale itself).
pub fn build_argv(
    prompt: &str,
    work_dir: &Path,
    reference_dirs: &[PathBuf],
    timeout_s: f64,
    settings: &OneshotSettings,
    faults: &FaultSet,
) -> Vec<OsString> {
    let mut argv: Vec<OsString> = vec![
        "-p".into(),
        prompt.into(),
        "--output-format".into(),
        "json".into(),
        "--add-dir".into(),
        work_dir.into(),
    ];
    for dir in reference_dirs {
        argv.push("--add-dir".into());
        argv.push(dir.into());
    }
    argv.push("--print-timeout".into());
    argv.push(print_timeout(timeout_s).into());
    let skip = settings
        .skip_permissions
        .unwrap_or(faults.has(Fault::SkipPermissionsByDefault));
    if skip {
        argv.push("--dangerously-skip-permissions".into());
    }
    if let Some(model) = settings.model.as_deref().filter(|m| !m.is_empty()) {
        argv.push("--model".into());
        argv.push(model.into());
    }
    if let Some(effort) = settings.effort.as_deref().filter(|e| !e.is_empty()) {
        argv.push("--effort".into());
        argv.push(effort.into());
    }
    argv
}

/// The directories holding the reference images, absolute, in first-seen order, once each.
pub(crate) fn reference_dirs(
    work_dir: &Path,
    references: &[String],
) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files = Vec::new();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for r in references {
        let path = work_dir.join(r);
        if let Some(dir) = path.parent() {
            if !dirs.iter().any(|d| d == dir) {
                dirs.push(dir.to_path_buf());
            }
        }
        files.push(path);
    }
    (files, dirs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(argv: &[OsString]) -> Vec<String> {
        argv.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn default_argv_is_exactly_the_adr_command() {
        let argv = build_argv(
            "P",
            Path::new("/w"),
            &[PathBuf::from("/refs")],
            600.0,
            &OneshotSettings::default(),
            &FaultSet::none(),
        );
        assert_eq!(
            strings(&argv),
            [
                "-p",
                "P",
                "--output-format",
                "json",
                "--add-dir",
                "/w",
                "--add-dir",
                "/refs",
                "--print-timeout",
                "600s"
            ]
        );
    }

    #[test]
    fn settings_add_skip_model_and_effort_in_adr_order() {
        let settings = OneshotSettings {
            model: Some("gemini-3.8-flash".into()),
            effort: Some("low".into()),
            skip_permissions: Some(true),
            timeout_s: None,
        };
        let argv = strings(&build_argv(
            "P",
            Path::new("/w"),
            &[],
            1.5,
            &settings,
            &FaultSet::none(),
        ));
        assert_eq!(
            argv[6..],
            [
                "--print-timeout",
                "1.5s",
                "--dangerously-skip-permissions",
                "--model",
                "gemini-3.8-flash",
                "--effort",
                "low"
            ]
        );
    }

    #[test]
    fn never_continues_a_conversation() {
        let argv = strings(&build_argv(
            "P",
            Path::new("/w"),
            &[],
            1.0,
            &OneshotSettings::default(),
            &FaultSet::none(),
        ));
        assert!(!argv
            .iter()
            .any(|a| a == "--conversation" || a == "--continue" || a == "-c"));
        assert!(!argv.iter().any(|a| a == "--dangerously-skip-permissions"));
    }

    #[test]
    fn skip_permissions_fault_adds_the_flag_unless_settings_say_no() {
        let faults = FaultSet::of([Fault::SkipPermissionsByDefault]);
        let with = strings(&build_argv(
            "P",
            Path::new("/w"),
            &[],
            1.0,
            &OneshotSettings::default(),
            &faults,
        ));
        assert!(with.iter().any(|a| a == "--dangerously-skip-permissions"));
        let no = OneshotSettings {
            skip_permissions: Some(false),
            ..Default::default()
        };
        let without = strings(&build_argv("P", Path::new("/w"), &[], 1.0, &no, &faults));
        assert!(!without
            .iter()
            .any(|a| a == "--dangerously-skip-permissions"));
    }

    #[test]
    fn reference_dirs_are_deduplicated_and_absolute() {
        let (files, dirs) = reference_dirs(
            Path::new("/w"),
            &["/r/a.png".into(), "/r/b.png".into(), "rel/c.png".into()],
        );
        assert_eq!(dirs, [PathBuf::from("/r"), PathBuf::from("/w/rel")]);
        assert_eq!(files[2], PathBuf::from("/w/rel/c.png"));
    }
}
