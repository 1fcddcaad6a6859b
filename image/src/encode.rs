//! The picture fake-agy writes: a colour gradient, seeded so images differ, encoded as
//! a real JPEG (`jpeg-encoder`, what agy writes: docs/spike-records.md S3) or PNG
//! (`png`).

use crate::decode::ImageFormat;

/// Encodes a `width`×`height` gradient picture (0 counts as 1). The caller bounds the
/// size: the pixel buffer is `width × height × 3` bytes.
pub fn encode_gradient(
    width: u32,
    height: u32,
    format: ImageFormat,
    seed: u32,
) -> Result<Vec<u8>, String> {
    let (w, h) = (width.max(1), height.max(1));
    let pixels = gradient(w, h, seed);
    match format {
        ImageFormat::Jpeg => jpeg(&pixels, w, h),
        ImageFormat::Png => png(&pixels, w, h),
    }
}

/// RGB pixels, built row by row from precomputed columns.
fn gradient(w: u32, h: u32, seed: u32) -> Vec<u8> {
    let s = (seed % 256) as u8;
    let cols: Vec<[u8; 2]> = (0..w)
        .map(|x| [((x * 255) / w) as u8 ^ s, (x % 256) as u8 / 2])
        .collect();
    let mut pixels = Vec::with_capacity((w as usize) * (h as usize) * 3);
    for y in 0..h {
        let g = ((y * 255) / h) as u8;
        let b0 = s.wrapping_add((y % 256) as u8 / 2);
        for c in &cols {
            pixels.extend_from_slice(&[c[0], g, b0.wrapping_add(c[1])]);
        }
    }
    pixels
}

fn jpeg(pixels: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    let (Ok(w16), Ok(h16)) = (u16::try_from(w), u16::try_from(h)) else {
        return Err(format!("a JPEG is at most 65535×65535, not {w}×{h}"));
    };
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, 85)
        .encode(pixels, w16, h16, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| format!("failed to encode JPEG: {e}"))?;
    Ok(out)
}

fn png(pixels: &[u8], w: u32, h: u32) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc
            .write_header()
            .map_err(|e| format!("failed to encode PNG: {e}"))?;
        writer
            .write_image_data(pixels)
            .map_err(|e| format!("failed to encode PNG: {e}"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decode::{decode_image, DecodedImage};

    #[test]
    fn both_formats_decode_with_their_size() {
        for format in [ImageFormat::Jpeg, ImageFormat::Png] {
            let bytes = encode_gradient(37, 11, format, 7).expect("encodes");
            assert_eq!(
                decode_image(&bytes),
                Ok(DecodedImage {
                    format,
                    width: 37,
                    height: 11
                })
            );
        }
    }

    #[test]
    fn seeds_give_different_pictures_and_zero_is_one_pixel() {
        let a = encode_gradient(16, 16, ImageFormat::Png, 1).expect("a");
        let b = encode_gradient(16, 16, ImageFormat::Png, 2).expect("b");
        assert_ne!(a, b);
        let one = encode_gradient(0, 0, ImageFormat::Jpeg, 0).expect("1×1");
        assert_eq!(decode_image(&one).map(|d| (d.width, d.height)), Ok((1, 1)));
    }

    #[test]
    fn a_jpeg_wider_than_its_format_allows_is_refused() {
        let e = encode_gradient(70000, 1, ImageFormat::Jpeg, 0).expect_err("refused");
        assert!(e.contains("70000×1"), "{e}");
    }
}
