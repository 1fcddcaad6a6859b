//! The `text` profile: a print-mode text client. One `agy -p …` run per question, read
//! in the output format asked for (json, stream-json, text), its outcome classified;
//! a labelled conversation continued run by run with the id agy returned
//! (`--conversation`), or `--continue` where agy shows no id (text mode).

mod argv;
mod classify;
mod conversations;
mod output;
mod run;

pub use argv::{build_argv, Continuation, OutputMode, Selection};
pub use classify::{classify_text, hint, Answer, Finished};
pub use conversations::{Conversations, Thread};
pub use output::{read_output, RunOutput};
pub use run::{ask, AskReply, KILL_GRACE_S};
