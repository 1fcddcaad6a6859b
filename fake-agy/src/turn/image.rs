//! Image bytes: real JPEGs (what agy writes: docs/spike-records.md S3) and PNGs, encoded
//! by `agy-image`, and corrupt files no decoder accepts.

use agy_protocol::env::FAKE_AGY_IMAGE_CACHE;
use agy_protocol::script::ImageFormat;
use std::path::Path;

/// Encodes a `width`×`height` picture (a colour gradient, seeded so images differ).
/// The pixel work is `agy-image`'s, compiled optimised even in dev builds: it runs for
/// every generated image. With `FAKE_AGY_IMAGE_CACHE` set, a picture encoded once is
/// kept in that folder and read back the next time (by this or another fake-agy).
pub fn encode(width: u32, height: u32, format: ImageFormat, seed: u32) -> Result<Vec<u8>, String> {
    let (w, h) = (width.max(1), height.max(1));
    // Before the pixel buffer exists: 60000×60000 would be 10.8 GB.
    agy_protocol::script::limits::check_image_size(w, h).map_err(|e| e.message)?;
    match std::env::var_os(FAKE_AGY_IMAGE_CACHE).filter(|d| !d.is_empty()) {
        Some(dir) => encode_kept(Path::new(&dir), w, h, format, seed),
        None => encode_now(w, h, format, seed),
    }
}

fn encode_now(w: u32, h: u32, format: ImageFormat, seed: u32) -> Result<Vec<u8>, String> {
    let format = match format {
        ImageFormat::Jpeg => agy_image::ImageFormat::Jpeg,
        ImageFormat::Png => agy_image::ImageFormat::Png,
    };
    agy_image::encode_gradient(w, h, format, seed)
}

/// The picture kept in `dir`, else encoded and kept there. The file's name holds every
/// input of the encoding, so a kept file is the bytes encoding gives; it is written
/// under a name of its own and renamed, so a reader sees all of it or none.
fn encode_kept(
    dir: &Path,
    w: u32,
    h: u32,
    format: ImageFormat,
    seed: u32,
) -> Result<Vec<u8>, String> {
    let name = format!("{w}x{h}-{seed}.{}", extension(format));
    let path = dir.join(&name);
    // Bounded: an encoded picture is far smaller than its raw pixels.
    let most = u64::from(w) * u64::from(h) * 3 + 65_536;
    if let Some(bytes) = std::fs::metadata(&path)
        .ok()
        .filter(|m| m.is_file() && m.len() <= most)
        .and_then(|_| std::fs::read(&path).ok())
    {
        return Ok(bytes);
    }
    let bytes = encode_now(w, h, format, seed)?;
    let part = dir.join(format!(".{}-{name}", std::process::id()));
    let kept = std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(&part, &bytes))
        .and_then(|()| std::fs::rename(&part, &path));
    if kept.is_err() {
        // Keeping is an optimisation: the picture is still delivered.
        let _ = std::fs::remove_file(&part);
    }
    Ok(bytes)
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
    fn a_kept_picture_is_the_picture_encoding_gives() {
        let dir = tempfile::tempdir().expect("dir");
        let direct = encode_now(40, 30, ImageFormat::Jpeg, 2).expect("encodes");
        let first = encode_kept(dir.path(), 40, 30, ImageFormat::Jpeg, 2).expect("encodes");
        assert_eq!(first, direct);
        let kept = dir.path().join("40x30-2.jpg");
        assert_eq!(std::fs::read(&kept).ok(), Some(direct.clone()));
        // Read back, not encoded: what the folder holds is what is delivered.
        std::fs::write(&kept, b"kept").expect("write");
        let again = encode_kept(dir.path(), 40, 30, ImageFormat::Jpeg, 2).expect("reads");
        assert_eq!(again, b"kept");
        let other = encode_kept(dir.path(), 40, 30, ImageFormat::Jpeg, 3).expect("encodes");
        assert_eq!(
            other,
            encode_now(40, 30, ImageFormat::Jpeg, 3).expect("encodes")
        );
    }

    #[test]
    fn an_image_over_the_pixel_cap_is_refused_before_its_buffer_exists() {
        // Regression: 60000×60000 allocated 10.8 GB before the JPEG limit was checked.
        let e = encode(60000, 60000, ImageFormat::Jpeg, 0).expect_err("refused");
        assert!(e.contains("60000×60000"), "{e}");
        assert!(encode(8, 8, ImageFormat::Png, 0).is_ok());
    }
}
