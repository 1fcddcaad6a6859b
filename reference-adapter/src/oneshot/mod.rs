//! The `oneshot` profile: one `agy -p … --output-format json` process per image, the
//! output located in `brain/<conversation_id>/`, the outcome classified by ADR 0013's
//! error table.

mod argv;
mod brain;
mod classify;
mod image;
mod prompt;
mod run;
mod settings;

pub use argv::build_argv;
pub(crate) use argv::print_timeout;
pub use brain::{list_images, FoundImage};
pub use classify::{binary_missing_failure, classify, parse_envelope, Observation, Verdict};
pub use image::{decode_image, ImageInfo};
pub use prompt::{aspect_words, wrap_prompt};
pub use run::{generate, Delivery, GenerateRequest, KILL_GRACE_S, MAX_CONCURRENCY};
pub use settings::OneshotSettings;
