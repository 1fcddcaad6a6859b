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

const PNG_MAGIC: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Fully decodes `bytes` (JPEG with zune-jpeg, PNG with png); the error says why not.
pub fn decode_image(bytes: &[u8]) -> Result<ImageInfo, String> {
    if bytes.starts_with(&[0xFF, 0xD8]) {
        let mut decoder = zune_jpeg::JpegDecoder::new(bytes);
        let pixels = decoder
            .decode()
            .map_err(|e| format!("not a decodable JPEG: {e:?}"))?;
        let (width, height) = decoder
            .dimensions()
            .ok_or_else(|| "JPEG without dimensions".to_string())?;
        if pixels.is_empty() || width == 0 || height == 0 {
            return Err("JPEG decodes to no pixels".to_string());
        }
        Ok(ImageInfo {
            format: "jpeg",
            width,
            height,
        })
    } else if bytes.starts_with(PNG_MAGIC) {
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = decoder
            .read_info()
            .map_err(|e| format!("not a decodable PNG: {e}"))?;
        let size = reader
            .output_buffer_size()
            .ok_or_else(|| "PNG too large to decode".to_string())?;
        let mut buf = vec![0; size];
        let frame = reader
            .next_frame(&mut buf)
            .map_err(|e| format!("not a decodable PNG: {e}"))?;
        Ok(ImageInfo {
            format: "png",
            width: frame.width as usize,
            height: frame.height as usize,
        })
    } else {
        Err("neither a JPEG nor a PNG".to_string())
    }
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

    #[test]
    fn text_is_not_an_image() {
        assert!(decode_image(b"hello").is_err());
        assert!(decode_image(b"").is_err());
    }
}
