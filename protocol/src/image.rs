//! The one image check of every crate: what image bytes are (by their magic) and
//! whether a real decoder reads every pixel. It lives in the crate `agy-image`, which
//! is compiled optimised even in dev builds (the decoders are generic, so their code
//! is compiled where it is called); this module is its name in the shared vocabulary.

pub use agy_image::decode::{decode_image, sniff_format, DecodedImage, ImageError, ImageFormat};
