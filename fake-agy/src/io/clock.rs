//! Delays, multiplied by `FAKE_AGY_TIME_SCALE`.

use agy_protocol::TimeScale;
use std::time::Duration;

/// Scales and waits out every delay of the fake.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// The multiplier (1 = real time, 0 = no waiting).
    pub scale: TimeScale,
}

impl Clock {
    /// `d` scaled (bounded, so a deadline made from it never overflows).
    pub fn scaled(&self, d: Duration) -> Duration {
        self.scale.scale(d)
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
        let at = |scale: f64| Clock {
            scale: TimeScale::new(scale).expect("in range"),
        };
        assert_eq!(
            at(0.5).scaled(Duration::from_secs(2)),
            Duration::from_secs(1)
        );
        assert_eq!(at(0.0).scaled(Duration::from_secs(9)), Duration::ZERO);
    }
}
