//! The `agy-standin` binary against the committed corpus: byte-exact replay, loud refusal.

mod replay;
