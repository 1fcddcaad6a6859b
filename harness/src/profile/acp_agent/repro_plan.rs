//! The `acp-agent` reproduction plan: one `agent_prompt` per agy print run the report
//! shows.

use crate::profile::repro_kit::case::ReproCase;
use crate::profile::repro_kit::plan::{quote, OpPlan, Plan};
use crate::scenario::{JournalExpect, OpExpect};

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
