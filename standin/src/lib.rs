//! `agy-standin`: a stand-in agy that is not fake-agy. Given a folder of traces of one
//! agy version, it answers an invocation byte for byte from the capture recorded for it
//! and fails loudly on any invocation it holds no capture for (standin/README.md).
//!
//! - [`load_holdings`]: the folder, read bounded, every problem located.
//! - [`serve`]: the match rule and the replay of one invocation.
//! - [`split_version`]: the deterministic split of one version's captures into the ones
//!   the stand-in holds and the ones held back.

mod error;
mod holdings;
mod run;
mod serve;
mod split;

pub use error::StandinError;
pub use holdings::{holdings_of, load_holdings, Held, Holdings, Unservable, MAX_TRACES};
pub use run::run;
pub use serve::{serve, Outputs};
pub use split::{split_version, write_split, Side, Split};
