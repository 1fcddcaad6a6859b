//! `agy-harness init`: a starter adapter config and a driver skeleton, written into the
//! user's repository.

mod command;
mod skeleton;

pub use command::{init_command, InitArgs};
pub use skeleton::{render, Language, StarterFile};
