//! ACP vocabulary shared by the fake Antigravity ACP agent and the harness: JSON-RPC
//! framing, the journal of ACP traffic, the agent's version strings, and the ACP
//! script (what the fake agent acts out). Facts: `docs/agy-acp-reference.md` in the protocol notes.

mod frame;
mod journal;
pub mod script;
mod sender;
mod version;

pub use frame::{parse_frame, render_frame, Frame, FrameError};
pub use journal::{
    append_acp_entry, read_acp_journal, AcpDirection, AcpJournalEntry, AcpKind, ACP_JOURNAL_VERSION,
};
pub use sender::{method_sender, Sender};
pub use version::AcpServerVersion;
