//! `[[model]]`: what the model decided in each turn (its responses, the tools it called
//! with which arguments, the subagents it started), with nothing of agy's in it. A
//! default turn given these decisions renders them as the modelled agy would: step
//! shapes and states, tool_info keys, permission checks, denials, `system_message`
//! steps, the result. `agy-harness fidelity` extracts them from a capture
//! (docs/fidelity.md, "Model decisions and agy's rendering").

use serde::{Deserialize, Serialize};

/// One turn's model decisions, consumed in turn order by the default turns of a process.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelTurn {
    /// The model's responses in order; the last one without calls is the answer.
    #[serde(default, rename = "response", skip_serializing_if = "Vec::is_empty")]
    pub responses: Vec<ModelResponse>,
}

/// One model response: text (streamed in chunks, or whole), then the calls it makes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelResponse {
    /// Text that arrives in `text_delta` chunks before the response is done.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub streamed: String,
    /// Text the done step carries.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub text: String,
    /// The tool calls and subagent launches the response makes, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<ModelCall>,
}

impl ModelResponse {
    /// The whole text of the response.
    pub fn full_text(&self) -> String {
        format!("{}{}", self.streamed, self.text)
    }
}

/// One call the model makes. `invoke_subagent` starts a subagent whose `parameters`
/// are its `type_name`, `role` and `initial_prompt`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelCall {
    /// The tool's name.
    pub tool: String,
    /// The arguments the model passed.
    #[serde(default = "empty_object", skip_serializing_if = "is_empty_object")]
    pub parameters: serde_json::Value,
    /// The tool's own failure when agy lets it run (the world's answer, e.g. an image
    /// model's 429 or a missing file), as its error message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fails: Option<String>,
    /// The tool ran and produced no output (the world's answer, e.g. a command whose
    /// output went to a file): agy shows no `output` for it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quiet: bool,
    /// The tool was still running when the run was interrupted (the world's: it ran
    /// longer than the run): agy keeps its step ACTIVE until SIGINT or SIGTERM.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unfinished: bool,
}

fn empty_object() -> serde_json::Value {
    serde_json::Value::Object(Default::default())
}

fn is_empty_object(v: &serde_json::Value) -> bool {
    v.as_object().is_some_and(|o| o.is_empty())
}

/// The tool name of a subagent launch.
pub const SUBAGENT_TOOL: &str = "invoke_subagent";
