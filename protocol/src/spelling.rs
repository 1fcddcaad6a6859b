//! Name types spelled by their `as_str`: `Display` through it, and for names a scenario
//! compares with text, `==` with strings.

/// `Display` through `as_str` for each type.
macro_rules! display_as_str {
    ($($t:ty),* $(,)?) => {$(
        impl std::fmt::Display for $t {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    )*};
}

/// `==` with `str` and `String` through `as_str` for each type.
macro_rules! compare_as_str {
    ($($t:ty),* $(,)?) => {$(
        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.as_str() == other
            }
        }

        impl PartialEq<String> for $t {
            fn eq(&self, other: &String) -> bool {
                self.as_str() == other
            }
        }
    )*};
}

pub(crate) use {compare_as_str, display_as_str};
