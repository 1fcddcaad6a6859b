//! Image bytes: real JPEGs (what agy writes: docs/spike-records.md S3) and PNGs, drawn by
//! `fake-agy-image`, and corrupt files no decoder accepts.

use agy_protocol::script::ImageFormat;

/// Encodes a `width`×`height` picture (a colour gradient, seeded so images differ).
pub fn encode(width: u32, height: u32, format: ImageFormat, seed: u32) -> Result<Vec<u8>, String> {
    let (w, h) = (width.max(1), height.max(1));
    // Before the pixel buffer exists: 60000×60000 would be 10.8 GB (issue 13).
    agy_protocol::script::limits::check_image_size(w, h).map_err(|e| e.message)?;
    match format {
        ImageFormat::Jpeg => {
            let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
                return Err(format!("a JPEG is at most 65535×65535, not {w}×{h}"));
            };
            fake_agy_image::jpeg(w16, h16, seed)
        }
        ImageFormat::Png => fake_agy_image::png(w, h, seed),
    }
}

/// Bytes that start like the format's file but are not a decodable image.
pub fn corrupt(format: ImageFormat) -> Vec<u8> {
    let mut out = match format {
        ImageFormat::Jpeg => vec![0xFF, 0xD8, 0xFF, 0xE0],
        ImageFormat::Png => b"\x89PNG\r\n\x1a\n".to_vec(),
    };
    out.extend_from_slice(b"this is not image data; the file was cut short\n");
    out
}

/// The file extension agy uses for `format`.
pub fn extension(format: ImageFormat) -> &'static str {
    match format {
        ImageFormat::Jpeg => "jpg",
        ImageFormat::Png => "png",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_over_the_pixel_cap_is_refused_before_its_buffer_exists() {
        // Issue 13: 60000×60000 allocated 10.8 GB before the JPEG limit was checked.
        let e = encode(60000, 60000, ImageFormat::Jpeg, 0).expect_err("refused");
        assert!(e.contains("60000×60000"), "{e}");
        assert!(encode(8, 8, ImageFormat::Png, 0).is_ok());
    }
}
