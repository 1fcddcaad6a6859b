//! Output files: present, and decodable by a real JPEG decoder (zune-jpeg).

use std::path::Path;

/// A decoded image's size, or why it is not an image.
pub fn decode_jpeg(path: &Path) -> Result<(u32, u32), String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read `{}`: {e}", path.display()))?;
    // The decoder is third-party code fed arbitrary bytes: a panic there is a verdict
    // on the file, not a crash of the harness.
    let decoded = std::panic::catch_unwind(|| {
        let mut decoder = zune_jpeg::JpegDecoder::new(bytes.as_slice());
        decoder
            .decode()
            .map(|_| decoder.dimensions())
            .map_err(|e| format!("{e:?}"))
    });
    match decoded {
        Ok(Ok(Some((w, h)))) => Ok((w as u32, h as u32)),
        Ok(Ok(None)) => Err(format!("`{}` has no image dimensions", path.display())),
        Ok(Err(e)) => Err(format!("`{}` does not decode as JPEG: {e}", path.display())),
        Err(_) => Err(format!("`{}` made the JPEG decoder fail", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_real_jpeg_decodes_with_its_size() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.jpg");
        let pixels = vec![128u8; 64 * 48 * 3];
        jpeg_encoder::Encoder::new_file(&p, 80)
            .expect("encoder")
            .encode(&pixels, 64, 48, jpeg_encoder::ColorType::Rgb)
            .expect("encode");
        assert_eq!(decode_jpeg(&p), Ok((64, 48)));
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
