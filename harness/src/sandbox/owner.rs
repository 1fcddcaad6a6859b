//! The owner file of a sandbox: which harness process made it (its pid and its start
//! time, so a pid the kernel gave again is not taken for the owner) and the marker its
//! processes carry. A later harness removes a sandbox only when this file parses and
//! names a process that is gone; a kept sandbox loses the file, so it is never removed.

use std::io::{self, Read};
use std::path::Path;

/// The file's name in the sandbox root.
pub const OWNER_FILE: &str = ".agy-harness-owner";

/// The first line of every owner file: what wrote it, and in which format.
const HEADER: &str = "agy-harness sandbox owner v1";

/// The most of an owner file read: a longer one is not ours.
const MAX_BYTES: u64 = 8192;

/// The harness process that made a sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Owner {
    /// Its pid.
    pub pid: u32,
    /// Its start time in clock ticks after boot (`/proc/<pid>/stat` field 22).
    pub start: u64,
    /// The marker the sandbox's processes carry (`AGY_HARNESS_SANDBOX`).
    pub marker: String,
}

impl Owner {
    /// This process as the owner of a sandbox whose processes carry `marker`; `None`
    /// where procfs does not give a start time (then no owner file is written, and no
    /// later run removes the sandbox).
    pub fn this_process(marker: &str) -> Option<Owner> {
        let pid = std::process::id();
        Some(Owner {
            pid,
            start: agy_process::start_time(pid)?,
            marker: marker.to_string(),
        })
    }

    /// True while the owner runs: its pid is a live process that started when it did.
    pub fn is_alive(&self) -> bool {
        agy_process::start_time(self.pid) == Some(self.start)
    }

    /// The file's text.
    pub fn render(&self) -> String {
        format!(
            "{HEADER}\npid {}\nstart {}\nmarker {}\n",
            self.pid, self.start, self.marker
        )
    }

    /// Reads the text [`Owner::render`] writes; `None` for anything else (another
    /// version's file, a cut one, one with a line more or less).
    pub fn parse(text: &str) -> Option<Owner> {
        let body = text.strip_suffix('\n')?;
        let mut lines = body.split('\n');
        if lines.next()? != HEADER {
            return None;
        }
        let pid = lines.next()?.strip_prefix("pid ")?.parse().ok()?;
        let start = lines.next()?.strip_prefix("start ")?.parse().ok()?;
        let marker = lines.next()?.strip_prefix("marker ")?;
        if marker.is_empty() || lines.next().is_some() {
            return None;
        }
        Some(Owner {
            pid,
            start,
            marker: marker.to_string(),
        })
    }

    /// Writes the file into `root` whole or not at all (a part file renamed over it),
    /// so a sweep never reads half of it.
    pub fn write(&self, root: &Path) -> io::Result<()> {
        let part = root.join(format!("{OWNER_FILE}.part"));
        std::fs::write(&part, self.render())?;
        std::fs::rename(&part, root.join(OWNER_FILE))
    }

    /// The owner file in `root`, when it is a regular file that parses.
    pub fn read(root: &Path) -> Option<Owner> {
        let path = root.join(OWNER_FILE);
        if !std::fs::symlink_metadata(&path).ok()?.is_file() {
            return None;
        }
        let mut text = String::new();
        std::fs::File::open(&path)
            .ok()?
            .take(MAX_BYTES)
            .read_to_string(&mut text)
            .ok()?;
        Owner::parse(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn this_process_is_alive_and_a_changed_start_is_not() {
        let me = Owner::this_process("/s/agy-harness-x").expect("procfs");
        assert!(me.is_alive());
        let reused = Owner {
            start: me.start + 1,
            ..me.clone()
        };
        assert!(
            !reused.is_alive(),
            "a pid with another start is another process"
        );
    }

    #[test]
    fn a_cut_or_foreign_file_does_not_parse() {
        let whole = "agy-harness sandbox owner v1\npid 12345\nstart 678\nmarker /t/agy-harness-a\n";
        assert_eq!(
            Owner::parse(whole),
            Some(Owner {
                pid: 12345,
                start: 678,
                marker: "/t/agy-harness-a".into()
            })
        );
        for bad in [
            &whole[..whole.len() - 1],
            "agy-harness sandbox owner v1\npid 12345\nstart 6",
            "agy-harness sandbox owner v2\npid 12345\nstart 678\nmarker /t/a\n",
            "pid 12345\nstart 678\nmarker /t/a\n",
            "agy-harness sandbox owner v1\npid 12345\nstart 678\nmarker \n",
            "agy-harness sandbox owner v1\npid -1\nstart 678\nmarker /t/a\n",
            "",
        ] {
            assert_eq!(Owner::parse(bad), None, "{bad:?}");
        }
    }

    proptest! {
        #[test]
        fn render_and_parse_round_trip(pid: u32, start: u64, marker in "/[^\n]{0,40}") {
            let owner = Owner { pid, start, marker };
            prop_assert_eq!(Owner::parse(&owner.render()), Some(owner));
        }

        #[test]
        fn parse_never_panics_and_no_cut_file_parses(text in "[ -~\n]{0,120}", cut in 0usize..120) {
            let _ = Owner::parse(&text);
            let owner = Owner { pid: 7, start: 9, marker: "/m".into() };
            let full = owner.render();
            let cut = cut.min(full.len() - 1);
            prop_assert_eq!(Owner::parse(&full[..cut]), None);
        }
    }
}
