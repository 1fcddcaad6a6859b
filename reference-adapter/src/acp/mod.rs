//! The `acp` profile: an ACP client of Antigravity's ACP server (`agy_acp_server`) that
//! creates and prompts an external session and, after its own process or the agent
//! restarts, continues the same session (seed 003, docs/agy-acp-reference.md §2.9–§2.11).

mod checkpoint;
mod client;
mod connection;
mod error_names;
mod permission;
mod quarantine;
mod restore;
mod restore_plan;
mod routing;
mod signals;
mod turn;
mod worker;

pub use checkpoint::{
    decode_checkpoint, CheckpointRecord, CheckpointStore, Loaded, PendingPrompt, Phase,
    CHECKPOINT_VERSION,
};
pub use client::{AcpClient, ClientSetup, DEFAULT_ACP_BIN};
pub use error_names::*;
pub use permission::PermissionPolicy;
pub use quarantine::{Gate, PermissionAction, QuarantineCounts, UpdateAction};
pub use restore_plan::{plan_restore, RestoreCapabilities, RestoreMethod, RestorePlan};
pub use turn::TurnReport;
pub(crate) use worker::{AcpCommand, AcpSessions};
