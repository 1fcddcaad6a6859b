//! A problem that ends a command, and the exit code it comes to; commands return it and
//! report it once, at their top.

/// A fatal problem and the exit code it comes to.
pub(crate) struct Fatal(pub i32, pub String);

impl Fatal {
    pub(crate) fn report(self) -> i32 {
        eprintln!("error: {}", self.1);
        self.0
    }
}
