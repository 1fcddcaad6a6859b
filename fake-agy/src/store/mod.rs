//! What lasts on disk between invocations: agy's data directory (`brain/`, the
//! last-conversation cache), each conversation's state, agy's `settings.json`, and the
//! scenario's cross-invocation rule counts.

pub(crate) mod brain;
pub(crate) mod conversation;
pub(crate) mod settings;
pub(crate) mod state;
