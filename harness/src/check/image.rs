//! Output files: what an image file is (format by magic bytes, size) and whether a real
//! decoder reads every pixel, as the report shows it; the check itself is
//! [`agy_protocol::image`].

use agy_protocol::image::decode_image;
use serde::Serialize;
use std::path::Path;

/// What an image file turned out to be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImageCheck {
    /// `jpeg`, `png`, or `unknown`.
    pub format: String,
    /// Pixel size, when the headers could be read.
    pub size: Option<(u32, u32)>,
    /// True when the decoder read every pixel without error.
    pub decodes: bool,
}

/// Inspects image bytes (the shared check, [`agy_protocol::image`]). Never panics,
/// whatever the bytes.
///
/// The check is a function of the bytes alone, and a run meets the same picture again
/// and again (fake-agy draws the same gradient for the same size): the last few
/// results are kept with the bytes they belong to, and equal bytes reuse the result
/// instead of decoding every pixel again.
pub fn inspect_image(bytes: &[u8]) -> ImageCheck {
    static SEEN: std::sync::Mutex<Vec<(Vec<u8>, ImageCheck)>> = std::sync::Mutex::new(Vec::new());
    // Pictures above this are decoded each time rather than kept.
    const KEPT_BYTES: usize = 4 << 20;
    const KEPT: usize = 8;
    let seen = |list: &Vec<(Vec<u8>, ImageCheck)>| {
        list.iter()
            .find(|(b, _)| b.as_slice() == bytes)
            .map(|(_, c)| c.clone())
    };
    if let Some(check) = SEEN.lock().ok().and_then(|l| seen(&l)) {
        return check;
    }
    let check = decode_check(bytes);
    if bytes.len() <= KEPT_BYTES {
        if let Ok(mut list) = SEEN.lock() {
            if list.len() >= KEPT {
                list.remove(0);
            }
            list.push((bytes.to_vec(), check.clone()));
        }
    }
    check
}

/// [`inspect_image`] without the kept results: every pixel decoded.
fn decode_check(bytes: &[u8]) -> ImageCheck {
    match decode_image(bytes) {
        Ok(image) => ImageCheck {
            format: image.format.name().into(),
            size: Some((image.width, image.height)),
            decodes: true,
        },
        Err(e) => ImageCheck {
            format: e.format.map_or("unknown", |f| f.name()).into(),
            size: e.size,
            decodes: false,
        },
    }
}

/// True when a file name has an image extension.
pub fn has_image_extension(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".jpg", ".jpeg", ".png", ".webp", ".gif"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// Why a file is not a decodable JPEG (the words a failure shows as observed). A
/// system error is kept as its text, so a verdict can be cloned and compared.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotAJpeg {
    /// The file could not be read.
    #[error("cannot read `{path}`: {reason}")]
    Unreadable {
        /// The file.
        path: String,
        /// The system's reason.
        reason: String,
    },
    /// JPEG by its magic, but its pixels do not decode.
    #[error("`{0}` does not decode as JPEG")]
    Undecodable(String),
    /// Another format, by its magic.
    #[error("`{path}` is not a JPEG (format: {format})")]
    OtherFormat {
        /// The file.
        path: String,
        /// The format its magic names.
        format: String,
    },
}

/// The largest image file judged: agy's pictures are well under 2 MB, and a reply may
/// name any file at all.
pub const IMAGE_CAP: u64 = 32 * 1024 * 1024;

/// A decoded JPEG's size, or why the file is not a decodable JPEG (a FIFO, a device, a
/// folder or a file over `IMAGE_CAP` is not read).
pub fn decode_jpeg(path: &Path) -> Result<(u32, u32), NotAJpeg> {
    let shown = path.display().to_string();
    // A reply names the file, so it may name a FIFO or `/dev/zero`: read it as a regular
    // file under a cap, or not at all.
    let bytes = agy_protocol::file::read_bytes_bounded(path, IMAGE_CAP).map_err(|e| {
        NotAJpeg::Unreadable {
            path: shown.clone(),
            reason: e.to_string(),
        }
    })?;
    let check = inspect_image(&bytes);
    match (check.format.as_str(), check.size, check.decodes) {
        ("jpeg", Some(size), true) => Ok(size),
        ("jpeg", _, _) => Err(NotAJpeg::Undecodable(shown)),
        (other, _, _) => Err(NotAJpeg::OtherFormat {
            path: shown,
            format: other.to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_truncated_jpeg_is_a_jpeg_that_does_not_decode() {
        let check = inspect_image(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F']);
        assert_eq!(check.format, "jpeg");
        assert!(!check.decodes);
    }

    /// `FF D8` without a marker after it: the harness and the reference adapter once
    /// disagreed on these bytes; both now call them no image at all.
    #[test]
    fn ff_d8_without_a_marker_is_an_unknown_format() {
        let check = inspect_image(&[0xFF, 0xD8, 0x00, 0x10, b'J', b'F', b'I', b'F']);
        assert_eq!(
            check,
            ImageCheck {
                format: "unknown".into(),
                size: None,
                decodes: false
            }
        );
    }

    #[test]
    fn a_kept_result_is_reused_only_for_the_same_bytes() {
        let mut good = Vec::new();
        jpeg_encoder::Encoder::new(&mut good, 80)
            .encode(&[90u8; 24 * 10 * 3], 24, 10, jpeg_encoder::ColorType::Rgb)
            .expect("encodes");
        let first = inspect_image(&good);
        assert!(first.decodes);
        assert_eq!(first.size, Some((24, 10)));
        // Same start, cut short: not the kept picture.
        let cut = inspect_image(&good[..good.len() / 2]);
        assert!(!cut.decodes, "{cut:?}");
        assert_eq!(inspect_image(&good), first);
        assert_eq!(inspect_image(&good[..good.len() / 2]), cut);
    }

    #[test]
    fn bytes_that_are_not_jpeg_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.jpg");
        std::fs::write(&p, [0xff, 0xd8, 0xff, 0x00, 1, 2, 3]).expect("write");
        assert!(matches!(
            decode_jpeg(&p),
            Err(NotAJpeg::Undecodable(_) | NotAJpeg::OtherFormat { .. })
        ));
        assert!(matches!(
            decode_jpeg(&dir.path().join("missing.jpg")),
            Err(NotAJpeg::Unreadable { .. })
        ));
    }

    /// A reply's `result.image` naming `/dev/zero` grew the harness to gigabytes, and one
    /// naming a FIFO blocked the run for ever: neither is read.
    #[test]
    fn an_image_path_that_is_no_regular_file_is_refused_without_reading() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = dir.path().join("out.jpg");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
        for p in [fifo.as_path(), Path::new("/dev/zero"), dir.path()] {
            match decode_jpeg(p) {
                Err(NotAJpeg::Unreadable { reason, .. }) => {
                    assert!(reason.contains("not a regular file"), "{p:?}: {reason}")
                }
                other => panic!("{p:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn an_image_over_the_cap_is_refused_naming_the_cap() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("big.jpg");
        let f = std::fs::File::create(&p).expect("create");
        f.set_len(IMAGE_CAP + 1).expect("sparse file");
        match decode_jpeg(&p) {
            Err(NotAJpeg::Unreadable { reason, .. }) => {
                assert!(
                    reason.contains(&format!("cap of {IMAGE_CAP} bytes")),
                    "{reason}"
                )
            }
            other => panic!("{other:?}"),
        }
    }
}
