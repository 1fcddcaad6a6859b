//! `--output-format stream-json` events and `--input-format stream-json` stdin lines.

mod event;
mod input;

pub use event::{Init, StepError, StepState, StepType, StepUpdate, StreamEvent, ToolInfo};
pub use input::{parse_input_line, Content, ContentPart, InputLineError, Message, UserLine};
