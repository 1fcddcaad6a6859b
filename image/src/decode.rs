//! The one image check of every crate: what image bytes are (by their magic) and
//! whether a real decoder reads every pixel (zune-jpeg for JPEG, png for PNG). Never
//! panics, whatever the bytes: a decoder that panics on them reads as "does not
//! decode".
//!
//! JPEG is recognised by `FF D8 FF`: the start-of-image marker and the first byte of
//! the next marker, as libmagic does; `FF D8` alone followed by anything else is not a
//! JPEG.

/// The image formats the check knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    /// JPEG (what agy produces, docs/spike-records.md S3).
    Jpeg,
    /// PNG.
    Png,
}

impl ImageFormat {
    /// `jpeg` or `png`.
    pub fn name(self) -> &'static str {
        match self {
            ImageFormat::Jpeg => "jpeg",
            ImageFormat::Png => "png",
        }
    }
}

const JPEG_MAGIC: &[u8] = &[0xFF, 0xD8, 0xFF];
const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// The format `bytes` claim by their magic, if any.
pub fn sniff_format(bytes: &[u8]) -> Option<ImageFormat> {
    if bytes.starts_with(JPEG_MAGIC) {
        Some(ImageFormat::Jpeg)
    } else if bytes.starts_with(PNG_MAGIC) {
        Some(ImageFormat::Png)
    } else {
        None
    }
}

/// A fully decoded image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodedImage {
    /// Its format.
    pub format: ImageFormat,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
}

/// Why bytes are not a decodable image, with what could still be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct ImageError {
    /// The format the magic claims (`None`: neither JPEG nor PNG).
    pub format: Option<ImageFormat>,
    /// The size from the headers, when they could be read.
    pub size: Option<(u32, u32)>,
    /// What went wrong.
    pub reason: String,
}

/// Decodes every pixel of `bytes`; the error says why not.
pub fn decode_image(bytes: &[u8]) -> Result<DecodedImage, ImageError> {
    let Some(format) = sniff_format(bytes) else {
        return Err(ImageError {
            format: None,
            size: None,
            reason: "neither a JPEG nor a PNG".into(),
        });
    };
    // The decoders are third-party code fed untrusted bytes: a panic in them is a
    // file that does not decode, not the end of the caller.
    let decoded = std::panic::catch_unwind(|| match format {
        ImageFormat::Jpeg => decode_jpeg(bytes),
        ImageFormat::Png => decode_png(bytes),
    });
    let (size, problem) = decoded.unwrap_or_else(|_| (None, Some("the decoder panicked".into())));
    match (size, problem) {
        (Some((width, height)), None) if width > 0 && height > 0 => Ok(DecodedImage {
            format,
            width,
            height,
        }),
        (size, problem) => Err(ImageError {
            format: Some(format),
            size,
            reason: format!(
                "not a decodable {}: {}",
                format.name().to_uppercase(),
                problem.unwrap_or_else(|| "it decodes to no pixels".into())
            ),
        }),
    }
}

/// The header size, and the problem when the pixels do not decode.
type Outcome = (Option<(u32, u32)>, Option<String>);

fn decode_jpeg(bytes: &[u8]) -> Outcome {
    let mut decoder = zune_jpeg::JpegDecoder::new(bytes);
    let pixels = decoder.decode();
    let size = decoder
        .info()
        .map(|i| (u32::from(i.width), u32::from(i.height)));
    match pixels {
        Ok(p) if p.is_empty() => (size, Some("no pixels".into())),
        Ok(_) => (size, None),
        Err(e) => (size, Some(format!("{e:?}"))),
    }
}

fn decode_png(bytes: &[u8]) -> Outcome {
    let mut reader = match png::Decoder::new(std::io::Cursor::new(bytes)).read_info() {
        Ok(r) => r,
        Err(e) => return (None, Some(e.to_string())),
    };
    let size = Some((reader.info().width, reader.info().height));
    let Some(len) = reader.output_buffer_size() else {
        return (size, Some("too large to decode".into()));
    };
    let mut buf = vec![0; len];
    match reader.next_frame(&mut buf) {
        Ok(_) => (size, None),
        Err(e) => (size, Some(e.to_string())),
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
    fn a_real_png_decodes_with_its_size() {
        assert_eq!(
            decode_image(&png_bytes(7, 3)),
            Ok(DecodedImage {
                format: ImageFormat::Png,
                width: 7,
                height: 3
            })
        );
    }

    /// The bytes the two former checks disagreed on: `FF D8` not followed by a marker.
    #[test]
    fn ff_d8_without_a_marker_after_it_is_not_a_jpeg() {
        let bytes = [0xFF, 0xD8, 0x00, 0x10, b'J', b'F', b'I', b'F'];
        assert_eq!(sniff_format(&bytes), None);
        let err = decode_image(&bytes).expect_err("refused");
        assert_eq!(err.format, None);
        assert_eq!(err.reason, "neither a JPEG nor a PNG");
    }

    #[test]
    fn ff_d8_ff_is_a_jpeg_that_may_still_not_decode() {
        let bytes = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, b'J', b'F'];
        assert_eq!(sniff_format(&bytes), Some(ImageFormat::Jpeg));
        let err = decode_image(&bytes).expect_err("truncated");
        assert_eq!(err.format, Some(ImageFormat::Jpeg));
        assert!(err.reason.starts_with("not a decodable JPEG"), "{err}");
    }

    #[test]
    fn text_is_not_an_image() {
        assert!(decode_image(b"hello").is_err());
        assert!(decode_image(b"").is_err());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_behind_either_magic_never_panic(
            mut bytes in proptest::collection::vec(any::<u8>(), 0..400),
            magic in 0..3u8,
        ) {
            let prefix: &[u8] = match magic {
                0 => JPEG_MAGIC,
                1 => PNG_MAGIC,
                _ => &[],
            };
            bytes.splice(0..0, prefix.iter().copied());
            let _ = decode_image(&bytes);
        }
    }
}
