//! A question a tool step asks in one turn; the next stdin line answers it.

/// A question asked in one turn, answered by the next stdin line.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingQuestion {
    step_index: u64,
    tool: String,
    parameters: serde_json::Value,
}

impl PendingQuestion {
    /// The question the tool step at `step_index` asks, calling `tool` with
    /// `parameters`.
    pub fn new(step_index: u64, tool: String, parameters: serde_json::Value) -> Self {
        PendingQuestion {
            step_index,
            tool,
            parameters,
        }
    }

    /// The tool step's index.
    pub fn step_index(&self) -> u64 {
        self.step_index
    }

    /// The tool's name.
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The tool's parameters.
    pub fn parameters(&self) -> &serde_json::Value {
        &self.parameters
    }
}
