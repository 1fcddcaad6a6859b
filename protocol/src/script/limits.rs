//! Sizes and codes a script or trace may ask for, checked when the file is read, before
//! anything is allocated or written: image dimensions, image counts, file sizes and
//! exit codes.

use super::step::{DefaultSpec, ImageSpec, Step};
use super::FAKE_BROKEN_EXIT;

/// The most pixels an image may have (4096×4096: a 48 MiB RGB buffer while encoding).
pub const MAX_IMAGE_PIXELS: u64 = 4096 * 4096;

/// The most image files one step may write.
pub const MAX_IMAGE_COUNT: u32 = 64;

/// The largest file a trace may have fake-agy write again (64 MiB).
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The longest answer a `default` step may ask for with `response_repeat` (64 MiB).
pub const MAX_RESPONSE_BYTES: u64 = 64 * 1024 * 1024;

/// The most steps a whole script may hold, over all its rules: a small file must not
/// ask for gigabytes of work (40,000 image steps wrote 1.8 GB).
pub const MAX_SCRIPT_STEPS: usize = 4096;

/// The most images a whole script may write, over all its steps.
pub const MAX_SCRIPT_IMAGES: u64 = 1024;

/// A value a script or trace may not use: what is wrong and what to write instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitError {
    /// What is wrong, as a lowercase fragment.
    pub message: String,
    /// What to write instead.
    pub hint: String,
}

impl LimitError {
    fn new(message: String, hint: impl Into<String>) -> LimitError {
        LimitError {
            message,
            hint: hint.into(),
        }
    }
}

/// Checks an image size against [`MAX_IMAGE_PIXELS`] (without overflowing).
pub fn check_image_size(width: u32, height: u32) -> Result<(), LimitError> {
    if u64::from(width) * u64::from(height) <= MAX_IMAGE_PIXELS {
        return Ok(());
    }
    Err(LimitError::new(
        format!("an image of {width}×{height} is larger than {MAX_IMAGE_PIXELS} pixels"),
        "agy's images are at most a few megapixels (1376×768 for 16:9); use at most 4096×4096",
    ))
}

/// Checks the size of a file a trace has fake-agy write again.
pub fn check_file_bytes(bytes: u64) -> Result<(), LimitError> {
    if bytes <= MAX_FILE_BYTES {
        return Ok(());
    }
    Err(LimitError::new(
        format!("a file of {bytes} bytes is larger than the cap of {MAX_FILE_BYTES} bytes"),
        format!("record files of at most {MAX_FILE_BYTES} bytes"),
    ))
}

/// Checks an exit code: a process exits with `0..=255`, and 70 is fake-agy's own.
pub fn check_exit_code(code: i32) -> Result<(), LimitError> {
    if code == FAKE_BROKEN_EXIT {
        return Err(LimitError::new(
            format!("exit code {code} is the code fake-agy reserves for its own failures"),
            "pick another exit code; 70 means the fake itself is broken",
        ));
    }
    if !(0..=255).contains(&code) {
        return Err(LimitError::new(
            format!("exit code {code} is outside 0–255"),
            "a process exits with 0 to 255 (a status of 256 reads as 0); pick a code in that range",
        ));
    }
    Ok(())
}

/// Checks the running totals of a script after one more rule: `steps` steps and
/// `images` images so far.
pub fn check_script_totals(steps: usize, images: u64) -> Result<(), LimitError> {
    if steps > MAX_SCRIPT_STEPS {
        return Err(LimitError::new(
            format!("the script holds more than {MAX_SCRIPT_STEPS} steps"),
            format!("split the behaviour into scenarios; a script holds at most {MAX_SCRIPT_STEPS} steps"),
        ));
    }
    if images > MAX_SCRIPT_IMAGES {
        return Err(LimitError::new(
            format!("the script writes more than {MAX_SCRIPT_IMAGES} images"),
            format!("a script writes at most {MAX_SCRIPT_IMAGES} images (`count` included)"),
        ));
    }
    Ok(())
}

/// The images `steps` write.
pub fn images_of(steps: &[Step]) -> u64 {
    steps
        .iter()
        .map(|s| match s {
            Step::Image(spec) => u64::from(spec.0.count),
            _ => 0,
        })
        .sum()
}

/// The first limit a step breaks, if any.
pub fn check_step(step: &Step) -> Result<(), LimitError> {
    match step {
        Step::Exit(code) => check_exit_code(*code),
        Step::Image(spec) => check_image_spec(&spec.0),
        Step::Default(spec) => check_default_spec(&spec.0),
        _ => Ok(()),
    }
}

fn check_image_spec(spec: &ImageSpec) -> Result<(), LimitError> {
    if spec.count > MAX_IMAGE_COUNT {
        return Err(LimitError::new(
            format!("{} images are more than {MAX_IMAGE_COUNT}", spec.count),
            format!("write at most {MAX_IMAGE_COUNT} images per step"),
        ));
    }
    if let Some(problem) = spec
        .name
        .as_deref()
        .and_then(crate::confine::plain_name_problem)
    {
        return Err(LimitError::new(
            format!("the image `name` {problem}"),
            "give a file name prefix without `/` or `..`, e.g. `name = \"sunset\"`; the image \
             is written in the conversation's brain folder",
        ));
    }
    // An unset side takes the prompt's, at most 1376.
    check_image_size(spec.width.unwrap_or(1376), spec.height.unwrap_or(1376))
}

fn check_default_spec(spec: &DefaultSpec) -> Result<(), LimitError> {
    if let Some(times) = spec.response_repeat {
        let Some(response) = &spec.response else {
            return Err(LimitError::new(
                "`response_repeat` without a `response` to repeat".into(),
                "give the text to repeat: `response = \"A line of the answer.\\n\", response_repeat = 1000`",
            ));
        };
        let bytes = u64::from(times) * response.len() as u64;
        if bytes > MAX_RESPONSE_BYTES {
            return Err(LimitError::new(
                format!("an answer of {bytes} bytes is longer than {MAX_RESPONSE_BYTES} bytes"),
                format!("repeat the response into at most {MAX_RESPONSE_BYTES} bytes"),
            ));
        }
    }
    match spec.image_size {
        Some([w, h]) => check_image_size(w, h),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::Flag;

    #[test]
    fn exit_codes_outside_a_byte_or_reserved_are_refused() {
        for code in [-1, 256, 1000, i32::MIN, i32::MAX, FAKE_BROKEN_EXIT] {
            assert!(check_exit_code(code).is_err(), "{code} accepted");
        }
        for code in [0, 1, 2, 69, 71, 255] {
            assert_eq!(check_exit_code(code), Ok(()));
        }
    }

    #[test]
    fn an_image_name_leaving_the_brain_folder_is_refused() {
        // Regression: an absolute `name` wrote the image outside the brain folder.
        for name in ["/tmp/x", "../../x", "a/b", ""] {
            let spec = ImageSpec {
                name: Some(name.into()),
                ..Default::default()
            };
            let e = check_step(&Step::Image(Flag(spec))).expect_err(name);
            assert!(e.message.starts_with("the image `name`"), "{name}: {e:?}");
        }
        let spec = ImageSpec {
            name: Some("sunset".into()),
            ..Default::default()
        };
        assert_eq!(check_step(&Step::Image(Flag(spec))), Ok(()));
    }

    #[test]
    fn a_repeated_response_is_bounded_and_needs_a_response() {
        let spec = |response: Option<&str>, times| DefaultSpec {
            response: response.map(str::to_string),
            response_repeat: Some(times),
            ..Default::default()
        };
        let step = |s| Step::Default(Flag(s));
        assert_eq!(check_step(&step(spec(Some("line\n"), 1 << 20))), Ok(()));
        let e = check_step(&step(spec(Some("line\n"), u32::MAX))).expect_err("too long");
        assert!(e.message.contains("longer than"), "{e:?}");
        let e = check_step(&step(spec(None, 2))).expect_err("nothing to repeat");
        assert!(e.message.contains("without a `response`"), "{e:?}");
    }

    #[test]
    fn huge_images_are_refused_before_any_pixel_exists() {
        let spec = ImageSpec {
            width: Some(60000),
            height: Some(60000),
            ..Default::default()
        };
        let e = check_step(&Step::Image(Flag(spec))).expect_err("refused");
        assert!(e.message.contains("60000×60000"), "{e:?}");
        assert!(check_image_size(u32::MAX, u32::MAX).is_err());
        assert_eq!(check_image_size(1376, 768), Ok(()));
        assert!(check_file_bytes(1_000_000_000_000).is_err());
    }
}
