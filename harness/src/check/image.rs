//! Output files: what an image file is (format by magic bytes, size) and whether a real
//! decoder reads every pixel (zune-jpeg for JPEG, png for PNG).

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

/// Inspects image bytes. Never panics, whatever the bytes.
pub fn inspect_image(bytes: &[u8]) -> ImageCheck {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        // zune-jpeg is a third-party decoder fed untrusted bytes: contain any panic so
        // a corrupt file reads as undecodable instead of ending the harness.
        let decoded = std::panic::catch_unwind(|| {
            let mut d = zune_jpeg::JpegDecoder::new(bytes);
            let pixels = d.decode();
            let size = d.info().map(|i| (u32::from(i.width), u32::from(i.height)));
            (size, pixels.is_ok())
        });
        let (size, decodes) = decoded.unwrap_or((None, false));
        ImageCheck {
            format: "jpeg".into(),
            size,
            decodes,
        }
    } else if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        match decoder.read_info() {
            Ok(mut reader) => {
                let size = Some((reader.info().width, reader.info().height));
                let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
                let decodes = reader.next_frame(&mut buf).is_ok();
                ImageCheck {
                    format: "png".into(),
                    size,
                    decodes,
                }
            }
            Err(_) => ImageCheck {
                format: "png".into(),
                size: None,
                decodes: false,
            },
        }
    } else {
        ImageCheck {
            format: "unknown".into(),
            size: None,
            decodes: false,
        }
    }
}

/// True when a file name has an image extension.
pub fn has_image_extension(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".jpg", ".jpeg", ".png", ".webp", ".gif"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// A decoded JPEG's size, or why the file is not a decodable JPEG.
pub fn decode_jpeg(path: &Path) -> Result<(u32, u32), String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    let check = inspect_image(&bytes);
    match (check.format.as_str(), check.size, check.decodes) {
        ("jpeg", Some(size), true) => Ok(size),
        ("jpeg", _, _) => Err(format!("`{}` does not decode as JPEG", path.display())),
        (other, _, _) => Err(format!(
            "`{}` is not a JPEG (format: {other})",
            path.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn png_bytes(w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(png::ColorType::Rgb);
            let mut writer = enc.write_header().expect("header");
            writer
                .write_image_data(&vec![200; (w * h * 3) as usize])
                .expect("data");
        }
        out
    }

    #[test]
    fn a_real_png_reads_with_its_size() {
        let check = inspect_image(&png_bytes(7, 3));
        assert_eq!(
            check,
            ImageCheck {
                format: "png".into(),
                size: Some((7, 3)),
                decodes: true
            }
        );
    }

    #[test]
    fn a_truncated_jpeg_does_not_decode() {
        let check = inspect_image(&[0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F']);
        assert_eq!(check.format, "jpeg");
        assert!(!check.decodes);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(mut bytes in proptest::collection::vec(any::<u8>(), 0..400), jpeg in any::<bool>()) {
            if jpeg {
                bytes.splice(0..0, [0xFF, 0xD8, 0xFF]);
            }
            let _ = inspect_image(&bytes);
        }
    }

    #[test]
    fn bytes_that_are_not_jpeg_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.jpg");
        std::fs::write(&p, [0xff, 0xd8, 0xff, 0x00, 1, 2, 3]).expect("write");
        assert!(decode_jpeg(&p).is_err());
        assert!(decode_jpeg(&dir.path().join("missing.jpg")).is_err());
    }
}
