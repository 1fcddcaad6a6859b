//! [`Invocation`]: one journal record with the questions a test asks of it.

use agy_protocol::journal::JournalRecord;
use agy_protocol::stream::parse_input_line;

/// What one `agy` process saw and did.
#[derive(Debug, Clone, PartialEq)]
pub struct Invocation {
    record: JournalRecord,
}

impl From<JournalRecord> for Invocation {
    fn from(record: JournalRecord) -> Invocation {
        Invocation { record }
    }
}

impl Invocation {
    /// The whole journal record (docs/fake-agy.md, "Journal").
    pub fn record(&self) -> &JournalRecord {
        &self.record
    }

    /// Its argv without `argv[0]`.
    pub fn args(&self) -> &[String] {
        self.record.argv.get(1..).unwrap_or_default()
    }

    /// True when argv holds `token` (`--input-format`), or `flag value` as two adjacent
    /// tokens or as `flag=value` (`"--model gemini-3.8-flash"`).
    pub fn has_arg(&self, token: &str) -> bool {
        let args = self.args();
        match token.split_once(' ') {
            None => args.iter().any(|a| a == token),
            Some((flag, value)) => {
                args.windows(2).any(|w| w[0] == flag && w[1] == value)
                    || args.iter().any(|a| *a == format!("{flag}={value}"))
            }
        }
    }

    /// The value of `flag` (`--model X` or `--model=X`), the first if repeated.
    pub fn flag_value(&self, flag: &str) -> Option<&str> {
        let args = self.args();
        args.iter().enumerate().find_map(|(i, a)| {
            if a == flag {
                args.get(i + 1).map(String::as_str)
            } else {
                a.strip_prefix(flag)?.strip_prefix('=')
            }
        })
    }

    /// The `-p` prompt of a print run.
    pub fn prompt(&self) -> Option<&str> {
        self.flag_value("-p").or_else(|| self.flag_value("--print"))
    }

    /// Every stdin line as it arrived (persistent mode).
    pub fn stdin_lines(&self) -> Vec<&str> {
        self.record
            .stdin
            .lines
            .iter()
            .map(|l| l.text.as_str())
            .collect()
    }

    /// The text of each stdin line that is a stream-json user message.
    pub fn user_messages(&self) -> Vec<String> {
        self.record
            .stdin
            .lines
            .iter()
            .filter_map(|l| parse_input_line(&l.text).ok())
            .map(|u| u.message.content.text())
            .collect()
    }

    /// True once stdin reached EOF (the client closed it).
    pub fn stdin_closed(&self) -> bool {
        self.record.stdin.closed_us.is_some()
    }

    /// The signals it received, in order (`SIGTERM`, `SIGINT`, …).
    pub fn signals(&self) -> Vec<&str> {
        self.record
            .signals
            .iter()
            .map(|s| s.signal.as_str())
            .collect()
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.record.pid
    }

    /// Its exit code, when it exited by itself.
    pub fn exit_code(&self) -> Option<i32> {
        self.record.exit.as_ref().and_then(|e| e.code)
    }

    /// False while it runs, and for a process killed by SIGKILL (it could not write its
    /// final record; what it saw until then is still here).
    pub fn complete(&self) -> bool {
        self.record.complete
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::journal::{StdinLine, StdinLog};

    fn invocation(argv: &[&str], lines: &[&str]) -> Invocation {
        let record = serde_json::json!({
            "v": 1, "complete": true, "invocation": 1, "pid": 7, "ppid": 1,
            "argv": argv, "cwd": "/", "env": {}, "started_us": 1,
            "stdin": { "bytes": 0 }, "stdout_bytes": 0, "stderr_bytes": 0,
        });
        let mut record: JournalRecord = serde_json::from_value(record).expect("record");
        record.stdin = StdinLog {
            bytes: 0,
            lines: lines
                .iter()
                .map(|t| StdinLine {
                    at_us: 1,
                    text: t.to_string(),
                    rule: None,
                })
                .collect(),
            closed_us: None,
        };
        Invocation::from(record)
    }

    #[test]
    fn flags_are_read_in_both_spellings() {
        let i = invocation(
            &[
                "agy",
                "-p",
                "hi",
                "--model=gemini-3.8-flash",
                "--effort",
                "low",
            ],
            &[],
        );
        assert_eq!(i.prompt(), Some("hi"));
        assert_eq!(i.flag_value("--model"), Some("gemini-3.8-flash"));
        assert!(i.has_arg("--effort low"));
        assert!(i.has_arg("--model gemini-3.8-flash"));
        assert!(!i.has_arg("--effort high"));
        assert!(!i.has_arg("agy"), "argv[0] is not an argument");
    }

    #[test]
    fn user_messages_are_the_texts_of_user_lines_only() {
        let i = invocation(
            &["agy", "--input-format", "stream-json"],
            &[
                r#"{"event":"user","message":{"role":"user","content":"one"}}"#,
                "not json",
                r#"{"event":"user","message":{"content":[{"type":"text","text":"two"}]}}"#,
            ],
        );
        assert_eq!(i.user_messages(), ["one", "two"]);
        assert_eq!(i.stdin_lines().len(), 3);
    }
}
