//! What lasts on disk between invocations: agy's data directory (`brain/`, the
//! last-conversation cache, each conversation's database, the catalogue of
//! conversations, each conversation's transcript, agy's log, the sign-in token), the fake's own record of each
//! conversation, agy's `settings.json`, and the scenario's cross-invocation rule counts.

pub(crate) mod agy_log;
pub(crate) mod brain;
pub(crate) mod conversation;
pub(crate) mod conversation_db;
pub(crate) mod settings;
pub(crate) mod sign_in;
pub(crate) mod state;
pub(crate) mod summaries;
pub(crate) mod transcript;
