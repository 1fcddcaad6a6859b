//! Whether a scenario applies to the adapter (docs/contract.md, "Premises and
//! capabilities"): before the run, its `requires` against the adapter's `offers`; after
//! it, whether the adapter ran agy in a way the scenario does not model (an op's
//! `only_if` that does not hold). A scenario that does not apply is *not applicable*:
//! never failed, never counted as passed.

use crate::adapter_config::AdapterConfig;
use crate::bridge::acp_agent::NOT_ADVERTISED;
use crate::observation::Observation;
use crate::profile::{unit, Client, Reach};
use crate::report::{ScenarioResult, Status};
use crate::scenario::Scenario;
use agy_protocol::premise::unmet_premises;
use agy_protocol::Premise;

/// How the harness reaches an MCP server.
const MCP_SERVER: Reach = Reach::Driverless {
    client: Client::Mcp,
};

/// The start of the note of a scenario that is not applicable.
pub const NOT_APPLICABLE: &str = "not applicable:";

/// Why `s` does not apply to the adapter `config` describes: an MCP server's tool
/// declared outside the `mcp` profile's shape (`[mcp] outside_profile`), or a scenario
/// that requires what the adapter does not offer: what `offers` leaves out, and for a scenario whose adapter is
/// an MCP server what the `[mcp]` table gives the tool no argument for.
pub(super) fn unoffered(s: &Scenario, config: &AdapterConfig) -> Option<String> {
    if let Some(note) = (config.mcp.as_ref())
        .filter(|_| unit(s.meta.profile).reach == MCP_SERVER)
        .and_then(|t| t.outside_note())
    {
        return Some(format!("{NOT_APPLICABLE} {note}"));
    }
    let missing = unmet_premises(&s.meta.requires, config.adapter.offers.as_deref());
    let unmapped = match &config.mcp {
        Some(table) if unit(s.meta.profile).reach == MCP_SERVER => table.unmapped_premises(),
        _ => Vec::new(),
    };
    let by_table: Vec<Premise> = s
        .meta
        .requires
        .iter()
        .copied()
        .filter(|p| unmapped.contains(p) && !missing.contains(p))
        .collect();
    if missing.is_empty() && by_table.is_empty() {
        return None;
    }
    let mut reasons = Vec::new();
    if !missing.is_empty() {
        reasons.push(format!(
            "{}, which the adapter config's `offers` does not list",
            premise_words(&missing)
        ));
    }
    if !by_table.is_empty() {
        reasons.push(format!(
            "{}, which the tool takes no argument for in the adapter config's `[mcp]`",
            premise_words(&by_table)
        ));
    }
    Some(format!(
        "{NOT_APPLICABLE} the scenario requires {}",
        reasons.join("; and ")
    ))
}

fn premise_words(premises: &[Premise]) -> String {
    premises
        .iter()
        .map(|p| format!("`{p}` ({})", p.meaning()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A failing result becomes not applicable when an op asked the agent for what it does
/// not advertise (a `session/load` of an agent with neither `loadSession` nor
/// `sessionCapabilities.resume`) and nothing failed before that op: the scenario is
/// about a capability ACP leaves optional.
pub(super) fn not_applicable_when_unadvertised(result: &mut ScenarioResult, obs: &Observation) {
    if result.status != Status::Failed {
        return;
    }
    let Some(op) = obs.ops.iter().find(
        |o| matches!(&o.reply, Ok(r) if r.error.as_ref().is_some_and(|e| e.name == NOT_ADVERTISED)),
    ) else {
        return;
    };
    let earlier = |place: &str| {
        place
            .strip_prefix("op ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<usize>().ok())
            .is_some_and(|n| n < op.index)
    };
    if result.failures.iter().any(|f| earlier(&f.place)) {
        return;
    }
    let why = match &op.reply {
        Ok(r) => r
            .error
            .as_ref()
            .map(|e| e.message.clone())
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    result.status = Status::NotApplicable;
    result.failures.clear();
    result.note = Some(format!(
        "{NOT_APPLICABLE} op {} {}: {why}",
        op.index, op.name
    ));
}

/// A passing result whose ops were not judged because the adapter ran agy in a way the
/// scenario does not model (`unmodelled`: why, per op) becomes not applicable: nothing
/// the scenario is about was seen. A failing result stays as it is.
pub(super) fn not_applicable_when_unjudged(result: &mut ScenarioResult, unmodelled: &[String]) {
    if result.status != Status::Passed || unmodelled.is_empty() {
        return;
    }
    result.status = Status::NotApplicable;
    result.note = Some(format!("{NOT_APPLICABLE} {}", unmodelled.join("; ")));
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::Premise;

    fn scenario(requires: Vec<Premise>) -> Scenario {
        let src = agy_protocol::diag::SourceFile::new(
            "t.toml",
            "[scenario]\nname = \"text/t\"\nprofile = \"text\"\n[[op]]\nask = { prompt = \"x\", timeout_s = 1 }\n",
        );
        let mut s =
            crate::scenario::parse_scenario(&src, std::path::Path::new("t.toml")).expect("valid");
        s.meta.requires = requires;
        s
    }

    fn adapter(offers: Option<Vec<Premise>>) -> AdapterConfig {
        let mut a =
            crate::adapter_config::AdapterConfig::reference(std::path::Path::new("adapter"), &[]);
        a.adapter.offers = offers;
        a
    }

    fn mcp_scenario(requires: Vec<Premise>) -> Scenario {
        let src = agy_protocol::diag::SourceFile::new(
            "t.toml",
            "[scenario]\nname = \"mcp/t\"\nprofile = \"mcp\"\n[[op]]\ntool_call = { prompt = \"x\", timeout_s = 1 }\n",
        );
        let mut s =
            crate::scenario::parse_scenario(&src, std::path::Path::new("t.toml")).expect("valid");
        s.meta.requires = requires;
        s
    }

    fn mcp_adapter(table: &str) -> AdapterConfig {
        let mut a = adapter(None);
        let src = agy_protocol::diag::SourceFile::new("a.toml", table.to_string());
        let mut diags = agy_protocol::diag::Diagnostics::new();
        let doc = agy_protocol::diag::parse_toml_document(&src, &mut diags).expect("toml");
        let mut root = agy_protocol::diag::TableWalker::new(&src, doc.get_ref(), 0, "the config");
        a.mcp = crate::mcp_table::read_mcp_table(&src, root.raw("mcp"), &mut diags);
        assert!(diags.is_empty(), "{diags}");
        a
    }

    #[test]
    fn every_mcp_scenario_is_not_applicable_to_a_tool_outside_the_profile_with_its_reason() {
        let outside = mcp_adapter(
            "[mcp]\ntool = \"run_start\"\ntimeout_arg = \"t\"\noutside_profile = \"answers with a run id\"\n",
        );
        let why = unoffered(&mcp_scenario(vec![]), &outside).expect("n/a");
        assert!(why.starts_with(NOT_APPLICABLE), "{why}");
        assert!(why.contains("answers with a run id"), "{why}");
        assert!(why.contains("outside the `mcp` profile"), "{why}");
        assert_eq!(
            unoffered(&scenario(vec![]), &outside),
            None,
            "a scenario of another profile is not about the tool"
        );
        let inside = mcp_adapter("[mcp]\ntool = \"ask\"\ntimeout_arg = \"t\"\n");
        assert_eq!(unoffered(&mcp_scenario(vec![]), &inside), None);
    }

    #[test]
    fn an_mcp_scenario_requiring_what_the_tool_has_no_argument_for_is_not_applicable() {
        let no_timeout = mcp_adapter("[mcp]\ntool = \"ask\"\nmodel_arg = \"m\"\n");
        let why = unoffered(&mcp_scenario(vec![Premise::CallerTimeout]), &no_timeout).expect("n/a");
        assert!(why.starts_with(NOT_APPLICABLE), "{why}");
        assert!(why.contains("`caller-timeout`"), "{why}");
        assert!(why.contains("`[mcp]`"), "{why}");
        assert_eq!(
            unoffered(&mcp_scenario(vec![Premise::ModelChoice]), &no_timeout),
            None,
            "the model has an argument"
        );
        let with_timeout = mcp_adapter("[mcp]\ntool = \"ask\"\ntimeout_arg = \"t\"\n");
        assert_eq!(
            unoffered(&mcp_scenario(vec![Premise::CallerTimeout]), &with_timeout),
            None
        );
        assert_eq!(
            unoffered(&scenario(vec![Premise::CallerTimeout]), &no_timeout),
            None,
            "a text scenario is not judged by the [mcp] table"
        );
    }

    #[test]
    fn a_premise_the_adapter_does_not_offer_makes_the_scenario_not_applicable() {
        let s = scenario(vec![Premise::ModelChoice]);
        let why = unoffered(&s, &adapter(Some(vec![Premise::OutputJson]))).expect("n/a");
        assert!(why.starts_with(NOT_APPLICABLE), "{why}");
        assert!(why.contains("`model-choice`"), "{why}");
        assert_eq!(
            unoffered(&s, &adapter(Some(vec![Premise::ModelChoice]))),
            None
        );
        assert_eq!(unoffered(&s, &adapter(None)), None, "undeclared offers all");
    }

    #[test]
    fn a_scenario_on_the_timeout_class_is_not_applicable_to_an_adapter_that_offers_none() {
        let src = agy_protocol::diag::SourceFile::new(
            "t.toml",
            "[scenario]\nname = \"text/t\"\nprofile = \"text\"\nrequires = [\"error-class:timeout\"]\n[[op]]\nask = { prompt = \"x\", timeout_s = 1 }\n",
        );
        let s = crate::scenario::parse_scenario(&src, std::path::Path::new("t.toml"))
            .expect("the timeout class is a premise word");
        assert_eq!(s.meta.requires, vec![Premise::ErrorClassTimeout]);
        let config = agy_protocol::diag::SourceFile::new(
            "a.toml",
            "[adapter]\nname = \"x\"\ncommand = [\"d\"]\nprofiles = [\"text\"]\noffers = [\"error-class:auth\", \"error-class:quota\"]\n",
        );
        let only_auth_and_quota =
            crate::adapter_config::parse_adapter_config(&config, std::path::Path::new("/"))
                .expect("parses");
        let why = unoffered(&s, &only_auth_and_quota).expect("n/a");
        assert!(why.contains("`error-class:timeout`"), "{why}");
        assert!(why.contains("tells a timeout apart"), "{why}");
        assert_eq!(
            unoffered(&s, &adapter(Some(vec![Premise::ErrorClassTimeout]))),
            None
        );
    }

    fn load_refused(index: usize) -> Observation {
        let reply = agy_protocol::driver::Reply {
            id: 1,
            ok: false,
            outcome: None,
            retryable: None,
            error: Some(agy_protocol::driver::ErrorInfo {
                name: NOT_ADVERTISED.into(),
                message: "the agent advertises neither loadSession nor sessionCapabilities.resume"
                    .into(),
                hint: None,
            }),
            result: Default::default(),
        };
        Observation {
            ops: vec![crate::observation::OpObservation {
                index,
                name: "agent_load",
                sent_us: 0,
                replied_us: 0,
                reply: Ok(reply),
                outcome: None,
                still_running: None,
            }],
            ..Observation::default()
        }
    }

    fn failed_at(places: &[&str]) -> ScenarioResult {
        let mut r = ScenarioResult::bare("t", "t.toml", "acp-agent", Status::Failed);
        r.failures = places
            .iter()
            .map(|p| crate::check::Failure::new(*p, "outcome", "success", "permanent"))
            .collect();
        r
    }

    #[test]
    fn a_load_the_agent_does_not_advertise_makes_the_scenario_not_applicable() {
        let mut after = failed_at(&["op 4 agent_load", "op 5 agent_prompt", "journal"]);
        not_applicable_when_unadvertised(&mut after, &load_refused(4));
        assert_eq!(after.status, Status::NotApplicable);
        assert!(after.note.as_deref().unwrap_or("").contains("loadSession"));
        assert!(after.failures.is_empty());
        let mut before = failed_at(&["op 2 agent_prompt", "op 4 agent_load"]);
        not_applicable_when_unadvertised(&mut before, &load_refused(4));
        assert_eq!(
            before.status,
            Status::Failed,
            "a failure before the load stays"
        );
        let mut other = failed_at(&["op 4 agent_load"]);
        not_applicable_when_unadvertised(&mut other, &Observation::default());
        assert_eq!(other.status, Status::Failed);
    }

    #[test]
    fn a_pass_with_unjudged_ops_is_not_applicable_and_a_failure_stays_failed() {
        let mut passed = ScenarioResult::bare("t", "t.toml", "text", Status::Passed);
        not_applicable_when_unjudged(&mut passed, &["op 1 ask not judged".into()]);
        assert_eq!(passed.status, Status::NotApplicable);
        assert!(passed.note.as_deref().unwrap_or("").contains("op 1 ask"));
        let mut failed = ScenarioResult::bare("t", "t.toml", "text", Status::Failed);
        not_applicable_when_unjudged(&mut failed, &["op 1 ask not judged".into()]);
        assert_eq!(failed.status, Status::Failed);
        let mut clean = ScenarioResult::bare("t", "t.toml", "text", Status::Passed);
        not_applicable_when_unjudged(&mut clean, &[]);
        assert_eq!(clean.status, Status::Passed);
    }
}
