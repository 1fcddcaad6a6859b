//! Each section of a calibration: its table name, its fields, and its evidence.

use super::evidence::{Sources, Unverified};
use super::model::*;

/// A `[section]` of a calibration file.
pub trait Section {
    /// The table's name (`denial`).
    const NAME: &'static str;
    /// Its fields a file must give, in file order.
    const REQUIRED: &'static [&'static str];
    /// Its fields a file may leave out.
    const OPTIONAL: &'static [&'static str] = &[];
    /// Its `evidence` and `unverified`.
    fn evidence(&self) -> (Option<&Sources>, Option<&Unverified>);
}

/// The keys every section takes besides its fields.
pub const EVIDENCE_KEYS: &[&str] = &["evidence", "unverified"];

macro_rules! section {
    ($ty:ty, $name:literal, [$($req:literal),*] $(, [$($opt:literal),*])?) => {
        impl Section for $ty {
            const NAME: &'static str = $name;
            const REQUIRED: &'static [&'static str] = &[$($req),*];
            $(const OPTIONAL: &'static [&'static str] = &[$($opt),*];)?
            fn evidence(&self) -> (Option<&Sources>, Option<&Unverified>) {
                (self.evidence.as_ref(), self.unverified.as_ref())
            }
        }
    };
}

section!(Identity, "calibration", ["agy"], ["covers"]);
section!(Models, "models", ["listing", "tierless_alone", "model"]);
section!(Init, "init", ["tools"]);
section!(Errors, "errors", ["prefix", "interrupted"]);
section!(
    Turns,
    "turns",
    [
        "first_after_user_input",
        "first_usage_checkpoint",
        "resumed_system_message_keys"
    ]
);
section!(
    Denial,
    "denial",
    ["status", "notice", "command_step", "command_error"]
);
section!(
    PrintTimeout,
    "print_timeout",
    ["status", "exit_code", "notice"],
    ["error"]
);
section!(UsageKeys, "usage", ["keys"]);
section!(Files, "files", ["conversation"]);
section!(
    SignedOut,
    "signed_out",
    ["models_error_stream", "auth_error"]
);
section!(
    Persistent,
    "persistent",
    ["slash_command", "slash_exit_code"]
);
section!(PromptInput, "prompt", ["without_flag", "empty_print"]);
section!(Conversation, "conversation", ["unknown_id"]);
section!(Image, "image", ["generation"]);

/// Every section's name, in file order (then `unrecorded`).
pub const SECTIONS: &[&str] = &[
    "calibration",
    "models",
    "init",
    "errors",
    "turns",
    "denial",
    "print_timeout",
    "usage",
    "files",
    "signed_out",
    "persistent",
    "prompt",
    "conversation",
    "image",
];
