//! What a bug report shows about agy, read out of a paste, a recorded trace or a kept
//! sandbox's journal: per invocation the argv, what went over stdin, stdout and stderr
//! in order, how it ended, what landed in the brain folder.

use agy_protocol::AgyVersion;

/// Everything a report says, in the order it said it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    /// Where it came from (`report.txt`, `-`, a folder).
    pub source: String,
    /// The agy version and where the report gives it (`line 3`).
    pub version: Option<(AgyVersion, String)>,
    /// The agy processes, in order.
    pub invocations: Vec<Invocation>,
}

/// One agy process as the report shows it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Invocation {
    /// The command line, `agy` first, when the report gives it.
    pub argv: Option<Vec<String>>,
    /// What crossed stdio, in order.
    pub items: Vec<Item>,
    /// The exit code, when known.
    pub exit: Option<i32>,
    /// Images in `brain/<conversation_id>/`: `None` when the report does not say.
    pub images: Option<ImageEvidence>,
    /// agy never finished (no result, no exit).
    pub hangs: bool,
    /// agy ignored SIGTERM.
    pub ignores_sigterm: bool,
}

/// What the report says landed in the brain folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageEvidence {
    /// How many images.
    pub count: usize,
    /// Their size, when recorded.
    pub size: Option<(u32, u32)>,
}

/// One line that crossed agy's stdio.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// Line of the report it was read from (1-based; 0 when it came from a file).
    pub line: usize,
    /// Milliseconds since the previous item, when the record has times.
    pub delay_ms: Option<u64>,
    /// What it is.
    pub kind: ItemKind,
}

/// The kinds of stdio line.
#[derive(Debug, Clone, PartialEq)]
pub enum ItemKind {
    /// A user line the client wrote to stdin: its text.
    Stdin(String),
    /// A stdout line agy wrote (compact JSON, or text), without its newline.
    Stdout(String),
    /// A stderr line agy wrote, without its newline.
    Stderr(String),
}

impl Invocation {
    /// True when nothing is known about it yet.
    pub fn is_empty(&self) -> bool {
        self.argv.is_none()
            && self.items.is_empty()
            && self.exit.is_none()
            && self.images.is_none()
            && !self.hangs
            && !self.ignores_sigterm
    }

    /// The value of `flag` in the argv (`--model X` or `--model=X`).
    pub fn flag(&self, flag: &str) -> Option<&str> {
        let argv = self.argv.as_ref()?;
        argv.iter().enumerate().find_map(|(i, a)| {
            if a == flag {
                argv.get(i + 1).map(String::as_str)
            } else {
                a.strip_prefix(flag)?.strip_prefix('=')
            }
        })
    }

    /// Lines of each kind: (stdin, stdout, stderr).
    pub fn counts(&self) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for i in &self.items {
            match i.kind {
                ItemKind::Stdin(_) => c.0 += 1,
                ItemKind::Stdout(_) => c.1 += 1,
                ItemKind::Stderr(_) => c.2 += 1,
            }
        }
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_is_read_in_both_spellings() {
        let inv = Invocation {
            argv: Some(
                ["agy", "--model", "m1", "--print-timeout=5s"]
                    .map(String::from)
                    .to_vec(),
            ),
            ..Invocation::default()
        };
        assert_eq!(inv.flag("--model"), Some("m1"));
        assert_eq!(inv.flag("--print-timeout"), Some("5s"));
        assert_eq!(inv.flag("--effort"), None);
    }
}
