//! agy-image: the workspace's per-pixel code, in one small crate that the workspace
//! `Cargo.toml` optimises even in dev builds. The image codecs are generic over their
//! reader and writer, so their code is compiled in the crate that names the concrete
//! type; here that is this crate, compiled optimised, instead of fake-agy, agy-harness
//! and the reference adapter at opt-level 0 (where encoding one picture took most of a
//! oneshot scenario's CPU time).
//!
//! - [`encode`]: the gradient picture fake-agy writes, as a real JPEG or PNG.
//! - [`decode`]: the one image check of every crate (format by magic, every pixel
//!   decoded by a real decoder); `agy_protocol::image` re-exports it.

pub mod decode;
pub mod encode;

pub use decode::{decode_image, sniff_format, DecodedImage, ImageError, ImageFormat};
pub use encode::encode_gradient;
