//! ACP vocabulary shared by the fake Antigravity ACP agent and the harness: JSON-RPC
//! framing, the journal of ACP traffic, method names, permission outcomes, the agent's
//! version strings, and the ACP script (what the fake agent acts out). Facts: `docs/agy-acp-reference.md` in the protocol notes.

mod frame;
mod journal;
mod method;
mod permission;
pub mod script;
mod sender;
mod version;

pub use frame::{parse_frame, render_frame, Frame, FrameError};
pub use journal::{
    append_acp_entry, read_acp_journal, AcpDirection, AcpJournalEntry, AcpKind, ACP_JOURNAL_VERSION,
};
pub use method::{AcpMethod, ClientMethod};
pub use permission::PermissionOutcome;
pub use sender::{method_sender, Sender};
pub use version::AcpServerVersion;
