//! Delays, multiplied by `FAKE_AGY_TIME_SCALE`.

use std::time::Duration;

/// Scales and waits out every delay of the fake.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// The multiplier (1 = real time, 0 = no waiting).
    pub scale: f64,
}

impl Clock {
    /// `d` scaled.
    pub fn scaled(&self, d: Duration) -> Duration {
        if self.scale == 1.0 {
            return d;
        }
        Duration::try_from_secs_f64(d.as_secs_f64() * self.scale).unwrap_or(Duration::MAX)
    }

    /// Sleeps for `d` scaled.
    pub fn sleep(&self, d: Duration) {
        let s = self.scaled(d);
        if !s.is_zero() {
            std::thread::sleep(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_multiplies_delays() {
        let c = Clock { scale: 0.5 };
        assert_eq!(c.scaled(Duration::from_secs(2)), Duration::from_secs(1));
        assert_eq!(
            Clock { scale: 0.0 }.scaled(Duration::from_secs(9)),
            Duration::ZERO
        );
    }
}
