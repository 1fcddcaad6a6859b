//! Probe invocations: `agy --version`, `agy models`, a slash command (`-p /usage`),
//! `agy update`, any other subcommand. They are not turns: the journal checks leave them
//! out, and this check bounds them by kind (`[expect.probes]`, else
//! [`ProbeExpect::DEFAULT`]). agy's record sets no bound on how often an adapter may ask
//! agy its version or its models, so such a probe past its bound is a cost the report
//! shows ([`PROBE_COST`]), advice unless the adapter config is strict, and the rest of
//! the scenario is judged as usual; a slash command, `update` or another subcommand
//! past its bound acts on agy, and fails the scenario.

use super::failure::Failure;
use super::journal_check::show_argv;
use crate::observation::Observation;
use crate::scenario::ProbeExpect;
use agy_protocol::command_line::{parse_args, InvocationKind};
use agy_protocol::journal::JournalRecord;

/// Why a probe past its bound is advice, not the contract: no public record of agy
/// limits how often it may be asked its version, its models or a slash command.
pub const PROBE_COST: &str =
    "probe cost: agy's record sets no bound on how often an adapter probes agy (docs/contract.md)";

/// What a probe asks agy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProbeKind {
    /// `--version`.
    Version,
    /// `models`.
    Models,
    /// `-p /…`.
    SlashCommand,
    /// `update`.
    Update,
    /// Another subcommand.
    Other,
    /// A persistent process closed before any stdin line
    /// ([`JournalRecord::is_idle_start`]).
    IdleStart,
}

impl ProbeKind {
    fn key(self) -> &'static str {
        match self {
            ProbeKind::Version => "version",
            ProbeKind::Models => "models",
            ProbeKind::SlashCommand => "slash_commands",
            ProbeKind::Update => "update",
            ProbeKind::Other => "other",
            ProbeKind::IdleStart => "idle_starts",
        }
    }

    /// Whether a run past the bound is only a cost: asking agy its version or its
    /// models, or starting it idle, changes nothing, and agy's record sets no bound on
    /// them. A slash command runs instead of the turn it was meant for, `update`
    /// replaces the agy under test and another subcommand acts: past its bound each is
    /// judged as the contract.
    fn is_cost(self) -> bool {
        matches!(
            self,
            ProbeKind::Version | ProbeKind::Models | ProbeKind::IdleStart
        )
    }

    fn bound(self, e: &ProbeExpect) -> u32 {
        match self {
            ProbeKind::Version => e.version,
            ProbeKind::Models => e.models,
            ProbeKind::SlashCommand => e.slash_commands,
            ProbeKind::Update => e.update,
            ProbeKind::Other => e.other,
            ProbeKind::IdleStart => e.idle_starts,
        }
    }
}

/// The kind of probe a journal record is, `None` for a turn.
pub fn probe_kind(r: &JournalRecord) -> Option<ProbeKind> {
    if r.kind() == InvocationKind::Turn {
        return None;
    }
    if r.is_idle_start() {
        return Some(ProbeKind::IdleStart);
    }
    let args = parse_args(r.argv.get(1..).unwrap_or_default()).ok()?;
    Some(if args.version {
        ProbeKind::Version
    } else {
        match args.rest.first().map(String::as_str) {
            Some("models") => ProbeKind::Models,
            Some("update") => ProbeKind::Update,
            Some(_) => ProbeKind::Other,
            None => ProbeKind::SlashCommand,
        }
    })
}

/// Every probe kind that ran more often than its bound, with the count and each
/// probe's argv as evidence: advice (`PROBE_COST`) for a kind that only costs
/// (`ProbeKind::is_cost`), the contract for the others.
pub fn check_probes(e: &ProbeExpect, obs: &Observation) -> Vec<Failure> {
    let kinds = [
        ProbeKind::Version,
        ProbeKind::Models,
        ProbeKind::SlashCommand,
        ProbeKind::Update,
        ProbeKind::Other,
        ProbeKind::IdleStart,
    ];
    let mut out = Vec::new();
    for kind in kinds {
        let seen: Vec<&JournalRecord> = obs
            .journal
            .iter()
            .filter(|r| probe_kind(r) == Some(kind))
            .collect();
        let bound = kind.bound(e);
        if seen.len() > bound as usize {
            out.push(
                Failure::new(
                    "probes",
                    kind.key(),
                    format!("at most {bound} `{}` probe(s)", kind.key()),
                    format!("{}", seen.len()),
                )
                .closest("a scenario that allows more says so in `[expect.probes]`")
                .evidence(seen.iter().map(|r| show_argv(r)))
                .seed_choice(kind.is_cost().then(|| PROBE_COST.to_string()).as_ref()),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check::journal_check::tests::record;

    #[test]
    fn probes_are_classified_by_what_they_ask() {
        let kind = |argv: &[&str]| probe_kind(&record(1, 1, argv, 0, Some(1)));
        assert_eq!(kind(&["agy", "--version"]), Some(ProbeKind::Version));
        assert_eq!(kind(&["agy", "models"]), Some(ProbeKind::Models));
        assert_eq!(kind(&["agy", "update"]), Some(ProbeKind::Update));
        assert_eq!(
            kind(&["agy", "-p", "/usage"]),
            Some(ProbeKind::SlashCommand)
        );
        assert_eq!(
            kind(&["agy", "-p", "draw", "--output-format", "json"]),
            None
        );
    }

    #[test]
    fn a_second_version_probe_breaks_the_default_bound_and_turns_are_not_counted() {
        let obs = Observation {
            journal: vec![
                record(1, 1, &["agy", "--version"], 0, Some(1)),
                record(2, 2, &["agy", "-p", "x"], 2, Some(3)),
                record(3, 3, &["agy", "--version"], 4, Some(5)),
                record(4, 4, &["agy", "models"], 6, Some(7)),
            ],
            ..Observation::default()
        };
        let f = check_probes(&ProbeExpect::DEFAULT, &obs);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].expectation, "version");
        assert_eq!(f[0].observed, "2");
        assert_eq!(f[0].evidence.len(), 2, "each probe's argv: {f:?}");
        assert_eq!(
            f[0].seed_choice.as_deref(),
            Some(PROBE_COST),
            "a cost, not the contract"
        );
        let allowed = ProbeExpect {
            version: 2,
            ..ProbeExpect::DEFAULT
        };
        assert!(check_probes(&allowed, &obs).is_empty());
    }

    #[test]
    fn a_slash_command_or_an_update_past_its_bound_is_the_contract_not_a_cost() {
        // A host's `/clear` run as agy's slash command never reaches the model
        // (capture jc-1.1.26-slash-clear); `agy update` replaces the agy under test.
        let obs = Observation {
            journal: vec![
                record(1, 1, &["agy", "--print=/clear"], 0, Some(1)),
                record(2, 2, &["agy", "update"], 2, Some(3)),
            ],
            ..Observation::default()
        };
        let bounds = ProbeExpect {
            slash_commands: 0,
            ..ProbeExpect::DEFAULT
        };
        let f = check_probes(&bounds, &obs);
        let keys: Vec<&str> = f.iter().map(|f| f.expectation.as_str()).collect();
        assert_eq!(keys, ["slash_commands", "update"], "{f:?}");
        assert!(f.iter().all(|f| f.seed_choice.is_none()), "{f:?}");
    }
}
