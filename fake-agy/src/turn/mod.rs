//! A turn of the default behaviour and its parts: the fake's own turn or one whose model
//! decisions the script gives, the answer stream, the steps agy adds, the images it
//! writes, the permission check and protection boundary, the situations a turn can end
//! in, and `--json-schema` answers.

pub(crate) mod answer_stream;
pub(crate) mod artifact;
pub(crate) mod bookkeeping;
pub(crate) mod boundary;
pub(crate) mod decided_turn;
pub(crate) mod default_turn;
pub(crate) mod image;
pub(crate) mod permission;
pub(crate) mod situations;
pub(crate) mod subagent;
