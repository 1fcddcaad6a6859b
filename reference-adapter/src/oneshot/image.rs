//! Whether a file is an image a real decoder opens (ADR 0013: "and Pillow opens it").
//! JPEG is what agy produces (S3, 7 of 7); PNG is accepted too.

/// A decoded image's format and size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImageInfo {
    /// `jpeg` or `png`.
    pub format: &'static str,
    /// Width in pixels.
    pub width: usize,
    /// Height in pixels.
    pub height: usize,
}

/// Fully decodes `bytes` with the shared check ([`agy_protocol::image`]); the error
/// says why not.
pub fn decode_image(bytes: &[u8]) -> Result<ImageInfo, String> {
    let image = agy_protocol::image::decode_image(bytes).map_err(|e| e.reason)?;
    Ok(ImageInfo {
        format: image.format.name(),
        width: image.width as usize,
        height: image.height as usize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jpeg(width: u16, height: u16) -> Vec<u8> {
        let mut out = Vec::new();
        let pixels = vec![128u8; width as usize * height as usize * 3];
        jpeg_encoder::Encoder::new(&mut out, 80)
            .encode(&pixels, width, height, jpeg_encoder::ColorType::Rgb)
            .expect("encodes");
        out
    }

    #[test]
    fn a_real_jpeg_decodes_with_its_size() {
        let info = decode_image(&jpeg(64, 36)).expect("decodes");
        assert_eq!(
            info,
            ImageInfo {
                format: "jpeg",
                width: 64,
                height: 36
            }
        );
    }

    #[test]
    fn a_truncated_jpeg_is_rejected() {
        let bytes = jpeg(64, 36);
        assert!(decode_image(&bytes[..bytes.len() / 3]).is_err());
    }

    #[test]
    fn a_real_png_decodes() {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, 3, 2);
            enc.set_color(png::ColorType::Rgb);
            let mut w = enc.write_header().expect("header");
            w.write_image_data(&[0u8; 18]).expect("data");
        }
        assert_eq!(decode_image(&out).map(|i| (i.width, i.height)), Ok((3, 2)));
    }

    /// `FF D8` without a marker after it: once a JPEG that failed to decode here and
    /// no image in the harness; now no image in both.
    #[test]
    fn ff_d8_without_a_marker_is_no_image() {
        assert_eq!(
            decode_image(&[0xFF, 0xD8, 0x00, 0x10, b'J', b'F', b'I', b'F']),
            Err("neither a JPEG nor a PNG".to_string())
        );
    }

    #[test]
    fn text_is_not_an_image() {
        assert!(decode_image(b"hello").is_err());
        assert!(decode_image(b"").is_err());
    }
}
