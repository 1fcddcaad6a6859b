//! The model / effort / permission selection of a conversation, and the persistent
//! process's command line.

use agy_protocol::driver::AgyPermission;
use std::ffi::OsString;
use std::path::Path;

/// What the conversation runs with. A process is bound to the selection it started with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// `--model`.
    pub model: Option<String>,
    /// `--effort`.
    pub effort: Option<String>,
    /// `skip` means `--dangerously-skip-permissions`; none means agy's default review
    /// mode.
    pub permission: Option<AgyPermission>,
}

impl Selection {
    /// True when the permission selection asks for `--dangerously-skip-permissions`.
    pub fn skips_permissions(&self) -> bool {
        self.permission == Some(AgyPermission::Skip)
    }

    /// Applies a `select` op (absent fields stay as they are); true when the process
    /// flags this selection produces changed.
    pub fn apply(
        &mut self,
        model: Option<String>,
        effort: Option<String>,
        permission: Option<AgyPermission>,
    ) -> bool {
        let before = (
            self.model.clone(),
            self.effort.clone(),
            self.skips_permissions(),
        );
        if model.is_some() {
            self.model = model;
        }
        if effort.is_some() {
            self.effort = effort;
        }
        if permission.is_some() {
            self.permission = permission;
        }
        before
            != (
                self.model.clone(),
                self.effort.clone(),
                self.skips_permissions(),
            )
    }

    /// `--input-format stream-json --output-format stream-json [--model m] [--effort e]
    /// [--dangerously-skip-permissions] --add-dir <work> [--conversation <id>]`.
    ///
    /// `resume` is only set when a new process continues a conversation whose previous
    /// process was released; the kept-process path never passes `--conversation` (seed 000).
    pub fn argv(&self, work_dir: &Path, resume: Option<&str>) -> Vec<OsString> {
        let mut argv: Vec<OsString> = vec![
            "--input-format".into(),
            "stream-json".into(),
            "--output-format".into(),
            "stream-json".into(),
        ];
        if let Some(m) = self.model.as_deref().filter(|m| !m.is_empty()) {
            argv.push("--model".into());
            argv.push(m.into());
        }
        if let Some(e) = self.effort.as_deref().filter(|e| !e.is_empty()) {
            argv.push("--effort".into());
            argv.push(e.into());
        }
        if self.skips_permissions() {
            argv.push("--dangerously-skip-permissions".into());
        }
        argv.push("--add-dir".into());
        argv.push(work_dir.into());
        if let Some(id) = resume {
            argv.push("--conversation".into());
            argv.push(id.into());
        }
        argv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(argv: Vec<OsString>) -> Vec<String> {
        argv.into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn first_process_has_no_conversation_flag() {
        let argv = strings(Selection::default().argv(Path::new("/w"), None));
        assert_eq!(
            argv,
            [
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
                "--add-dir",
                "/w"
            ]
        );
    }

    #[test]
    fn selection_flags_and_resume_are_rendered() {
        let sel = Selection {
            model: Some("m".into()),
            effort: Some("low".into()),
            permission: Some(AgyPermission::Skip),
        };
        let argv = strings(sel.argv(Path::new("/w"), Some("c1")));
        assert_eq!(
            argv[4..],
            [
                "--model",
                "m",
                "--effort",
                "low",
                "--dangerously-skip-permissions",
                "--add-dir",
                "/w",
                "--conversation",
                "c1"
            ]
        );
    }

    #[test]
    fn only_a_real_change_counts() {
        let mut sel = Selection {
            model: Some("a".into()),
            ..Default::default()
        };
        assert!(!sel.apply(Some("a".into()), None, None));
        assert!(sel.apply(None, Some("high".into()), None));
        assert!(sel.apply(Some("b".into()), None, None));
        assert!(sel.apply(None, None, Some(AgyPermission::Skip)));
        assert!(
            !sel.apply(None, None, Some(AgyPermission::Skip)),
            "skip again"
        );
    }
}
