//! The plan of a reproduction, by its profile: oneshot by the fuzz oracle
//! ([`super::oracle`]), session by seed 000 (`session_oracle`), acp by seed 003's restore
//! contract (`acp_oracle`), acp-agent by the prompts agy ran ([`editor_agent_plan`]).

use super::case::ReproCase;
use super::oracle::{quote, OpPlan, Plan};
use crate::profile::{unit, Oracle};
use crate::scenario::{JournalExpect, OpExpect};

/// The plan of `case`.
pub fn plan(case: &ReproCase) -> Plan {
    match unit(case.profile).oracle {
        Oracle::PersistentDriver => super::session_oracle::session_plan(case),
        Oracle::Restore => super::acp_oracle::acp_plan(case),
        Oracle::ImageProvider => super::oracle::oneshot_plan(case),
        Oracle::TextClient => super::text_oracle::text_plan(case),
        Oracle::ToolResult => super::tool_oracle::tool_plan(case),
        Oracle::EditorAgent => editor_agent_plan(case),
    }
}

/// acp-agent: one `agent_prompt` per agy print run the report shows, judged by the
/// contract line every failure keeps: each prompt reached agy once.
pub fn editor_agent_plan(case: &ReproCase) -> Plan {
    let mut ops = vec![OpPlan {
        action: "agent_new = {}".to_string(),
        reply_within: None,
        expect: OpExpect::default(),
        why: vec!["The editor opens a session (`session/new`).".into()],
    }];
    for p in &case.processes {
        let text = p.prompt.as_deref().unwrap_or("hello");
        ops.push(OpPlan {
            action: format!("agent_prompt = {{ text = {} }}", quote(text)),
            reply_within: None,
            expect: OpExpect::default(),
            why: vec![format!("{}: one prompt, one agy print run", p.origin)],
        });
    }
    Plan {
        ops,
        journal: JournalExpect {
            invocations: u32::try_from(case.processes.len()).ok(),
            ..JournalExpect::default()
        },
        history: None,
        acp: None,
        slug: "prompt-reaches-agy-once".to_string(),
        summary: "each prompt is sent to agy once".to_string(),
        unanswered: 0,
    }
}
