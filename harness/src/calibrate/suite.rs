//! The probe suite of `calibrate`, cheapest first: each probe's argv, what it costs
//! (invocations and model turns) and the calibration fields it shows. The suite is
//! listed in docs/harness.md; a test keeps that table and this list in step.

use agy_protocol::trace::Trace;

/// One probe `calibrate` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct CalibrationProbe {
    /// Name (the recording is `calibrate-<name>-1.jsonl`).
    pub name: String,
    /// argv after the binary.
    pub argv: Vec<String>,
    /// Model turns it spends (quota): 0 for a probe that only asks.
    pub turns: u32,
    /// The calibration fields it shows (`section.field`).
    pub shows: Vec<&'static str>,
    /// Lines written to stdin, then closed (a persistent session's turns).
    pub stdin: Vec<String>,
    /// A spike's probe, run as the spike file says (once): its prompt, fixtures and
    /// environment.
    pub spike: Option<crate::spike::Probe>,
}

fn probe(name: &str, argv: &[&str], turns: u32, shows: &[&'static str]) -> CalibrationProbe {
    CalibrationProbe {
        name: name.to_string(),
        argv: argv.iter().map(|s| s.to_string()).collect(),
        turns,
        shows: shows.to_vec(),
        stdin: Vec::new(),
        spike: None,
    }
}

/// A persistent session (`--input-format stream-json`) given one user line.
fn session(name: &str, line: &str, shows: &[&'static str]) -> CalibrationProbe {
    let user = agy_protocol::stream::UserLine::text(line).to_line();
    CalibrationProbe {
        stdin: vec![user.trim_end().to_string()],
        ..probe(
            name,
            &[
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json",
            ],
            1,
            shows,
        )
    }
}

/// The prompt of the suite's turns: one short answer, no tool.
pub const PROMPT: &str = "Reply with the single word OK. Do not use any tool.";
/// The prompt of the print-timeout probe: an answer that outlasts one second.
pub const LONG_PROMPT: &str = "Count from 1 to 300, one number per line. Do not use any tool.";

/// The built-in suite, cheapest first (each probe is one invocation).
pub fn probe_suite() -> Vec<CalibrationProbe> {
    vec![
        probe("version", &["--version"], 0, &["calibration.agy"]),
        probe("help", &["--help"], 0, &[]),
        probe(
            "models",
            &["models"],
            0,
            &["models.model", "models.listing"],
        ),
        probe(
            "bad-model",
            &[
                "-p",
                PROMPT,
                "--output-format",
                "json",
                "--model",
                "no-such-model",
            ],
            0,
            &[],
        ),
        probe(
            "print-json",
            &["-p", PROMPT, "--output-format", "json"],
            1,
            &["usage.keys"],
        ),
        probe(
            "stream-json",
            &["-p", PROMPT, "--output-format", "stream-json"],
            1,
            &["init.tools", "usage.keys"],
        ),
        session("persistent", PROMPT, &["init.tools", "usage.keys"]),
        session(
            "persistent-slash",
            "/model",
            &["persistent.slash_command", "persistent.slash_exit_code"],
        ),
        probe(
            "print-timeout",
            &[
                "-p",
                LONG_PROMPT,
                "--output-format",
                "stream-json",
                "--print-timeout",
                "1s",
            ],
            1,
            &[
                "print_timeout.status",
                "print_timeout.exit_code",
                "print_timeout.notice",
                "print_timeout.error",
            ],
        ),
    ]
}

/// `--with-spikes`: every probe of the spike files, run once each (one turn at most),
/// after the suite; a probe that needs a signed-out agy (`isolated_profile`) is left
/// out, with why.
pub fn spike_probes(spikes: &[crate::spike::Spike]) -> (Vec<CalibrationProbe>, Vec<String>) {
    let mut probes = Vec::new();
    let mut skipped = Vec::new();
    for spike in spikes {
        for p in &spike.probes {
            let name = format!("{}-{}", spike.id, p.name);
            if p.isolated_profile {
                skipped.push(format!("{name}: it needs a signed-out agy"));
                continue;
            }
            let asks = matches!(
                p.argv.first().map(String::as_str),
                Some("--version" | "--help" | "models")
            );
            probes.push(CalibrationProbe {
                name: name.clone(),
                argv: p.argv.clone(),
                turns: u32::from(!asks),
                shows: Vec::new(),
                stdin: p.stdin.clone(),
                spike: Some(crate::spike::Probe {
                    name: name.clone(),
                    repeat: 1,
                    concurrency: 1,
                    ..p.clone()
                }),
            });
        }
    }
    (probes, skipped)
}

/// `--probes-from`: every recorded invocation of `traces` whose argv is known, as a
/// probe with its recorded argv and stdin lines (`replay-<file stem>-<n>`), after the
/// suite. A run that
/// asks (`--version`, `--help`, `models`) costs no turn; any other costs one.
pub fn replay_probes(traces: &[(String, Trace)]) -> (Vec<CalibrationProbe>, Vec<String>) {
    let mut probes = Vec::new();
    let mut skipped = Vec::new();
    for (name, trace) in traces {
        let stem = name.trim_end_matches(".jsonl");
        for (n, inv) in trace.invocations.iter().enumerate() {
            let origin = format!("{name}#{}", n + 1);
            let stdin = inv.stdin_lines();
            let Some(args) = inv.start.argv.get(1..).filter(|a| !a.is_empty()) else {
                skipped.push(format!("{origin}: its argv is unknown"));
                continue;
            };
            let asks = matches!(
                args.first().map(String::as_str),
                Some("--version" | "--help" | "models" | "help")
            );
            probes.push(CalibrationProbe {
                name: format!("replay-{stem}-{}", n + 1),
                argv: args.to_vec(),
                turns: u32::from(!asks),
                shows: Vec::new(),
                stdin,
                spike: None,
            });
        }
    }
    (probes, skipped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/harness.md's probe table names every probe of the suite with its argv and
    /// turns, in order.
    #[test]
    fn the_documented_probe_table_is_the_suite() {
        let doc =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/harness.md"))
                .expect("docs/harness.md");
        let rows: Vec<&str> = doc
            .lines()
            .skip_while(|l| !l.starts_with("| probe | argv after `agy`"))
            .skip(2)
            .take_while(|l| l.starts_with('|'))
            .collect();
        let suite = probe_suite();
        assert_eq!(rows.len(), suite.len(), "{rows:#?}");
        for (row, p) in rows.iter().zip(&suite) {
            let argv = p
                .argv
                .join(" ")
                .replace(PROMPT, "PROMPT")
                .replace(LONG_PROMPT, "LONG_PROMPT");
            let want = format!("| `{}` | `{argv}` | {} |", p.name, p.turns);
            assert!(row.starts_with(&want), "{row}\nwants {want}");
        }
    }

    #[test]
    fn a_recorded_session_is_replayed_with_its_stdin_lines_and_an_unknown_argv_is_not() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/");
        let read = |id: &str| {
            let name = format!("{id}.jsonl");
            let text = std::fs::read_to_string(format!("{dir}{name}")).expect("a committed trace");
            (name.clone(), Trace::parse(&name, &text).expect("parses"))
        };
        let (probes, skipped) =
            replay_probes(&[read("ut-1.3.1-ok"), read("sg-1.1.19-minimal-turn")]);
        assert_eq!(probes.len(), 1);
        assert_eq!(
            probes[0].argv,
            [
                "--input-format",
                "stream-json",
                "--output-format",
                "stream-json"
            ]
        );
        assert_eq!(probes[0].stdin.len(), 1);
        assert!(
            probes[0].stdin[0].starts_with("{\"event\":\"user\""),
            "{:?}",
            probes[0].stdin
        );
        assert_eq!(
            skipped,
            ["sg-1.1.19-minimal-turn.jsonl#1: its argv is unknown"]
        );
    }

    #[test]
    fn every_spike_probe_runs_once_except_the_ones_that_need_a_signed_out_agy() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../spikes");
        let spikes = crate::spike::load_spikes(&dir).expect("the spike files load");
        let all: usize = spikes.iter().map(|s| s.probes.len()).sum();
        let (probes, skipped) = spike_probes(&spikes);
        assert_eq!(probes.len() + skipped.len(), all);
        assert!(
            !skipped.is_empty()
                && skipped
                    .iter()
                    .all(|s| s.ends_with("needs a signed-out agy"))
        );
        assert!(probes.iter().all(|p| p
            .spike
            .as_ref()
            .is_some_and(|s| s.repeat == 1 && s.concurrency == 1)));
    }
}
