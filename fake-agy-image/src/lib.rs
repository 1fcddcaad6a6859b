//! The pictures fake-agy draws: a seeded colour gradient, encoded as JPEG or PNG.
//!
//! Non-generic entry points, so every instantiation of the encoders' generic code
//! happens here, in the one crate the dev profile optimises (see the crate README).

/// The RGB pixels of a `width`×`height` gradient; `seed` shifts the colours so two
/// images differ. Built row by row from precomputed columns.
fn gradient(width: u32, height: u32, seed: u32) -> Vec<u8> {
    let (w, h) = (width.max(1), height.max(1));
    let s = (seed % 256) as u8;
    let cols: Vec<[u8; 2]> = (0..w)
        .map(|x| [((x * 255) / w) as u8 ^ s, (x % 256) as u8 / 2])
        .collect();
    let mut pixels = vec![0u8; (w as usize) * (h as usize) * 3];
    for (y, row) in pixels.chunks_exact_mut(w as usize * 3).enumerate() {
        let y = y as u32;
        let g = ((y * 255) / h) as u8;
        let b0 = s.wrapping_add((y % 256) as u8 / 2);
        for (px, c) in row.chunks_exact_mut(3).zip(&cols) {
            px.copy_from_slice(&[c[0], g, b0.wrapping_add(c[1])]);
        }
    }
    pixels
}

/// The gradient as a JPEG (quality 85).
pub fn jpeg(width: u16, height: u16, seed: u32) -> Result<Vec<u8>, String> {
    let (w, h) = (width.max(1), height.max(1));
    let pixels = gradient(u32::from(w), u32::from(h), seed);
    let mut out = Vec::new();
    jpeg_encoder::Encoder::new(&mut out, 85)
        .encode(&pixels, w, h, jpeg_encoder::ColorType::Rgb)
        .map_err(|e| format!("failed to encode JPEG: {e}"))?;
    Ok(out)
}

/// The gradient as an 8-bit RGB PNG.
pub fn png(width: u32, height: u32, seed: u32) -> Result<Vec<u8>, String> {
    let (w, h) = (width.max(1), height.max(1));
    let pixels = gradient(w, h, seed);
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, w, h);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc
            .write_header()
            .map_err(|e| format!("failed to encode PNG: {e}"))?;
        writer
            .write_image_data(&pixels)
            .map_err(|e| format!("failed to encode PNG: {e}"))?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jpeg_decodes_at_its_size_and_seeds_differ() {
        let a = jpeg(64, 48, 1).expect("encodes");
        let b = jpeg(64, 48, 2).expect("encodes");
        assert_ne!(a, b);
        let mut d = zune_jpeg::JpegDecoder::new(&a[..]);
        assert!(!d.decode().expect("decodes").is_empty());
        let info = d.info().expect("a header");
        assert_eq!((info.width, info.height), (64, 48));
    }

    #[test]
    fn a_png_starts_with_its_signature() {
        let p = png(8, 8, 0).expect("encodes");
        assert!(p.starts_with(b"\x89PNG\r\n\x1a\n"));
    }
}
