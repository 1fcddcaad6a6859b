//! Steps a conversation owes its next turns, each shown once: the `checkpoint` of a new
//! conversation's first turn (`crate::turn::bookkeeping`) and the `system_message` at
//! the head of the first turn a process runs in a resumed conversation.

/// The steps owed.
#[derive(Debug, Clone)]
pub struct DueSteps {
    checkpoint: bool,
    checkpoint_spends: bool,
    resume_message: bool,
}

impl DueSteps {
    /// Nothing owed.
    pub(super) fn new() -> DueSteps {
        DueSteps {
            checkpoint: false,
            checkpoint_spends: true,
            resume_message: false,
        }
    }

    /// Owes the first turn's checkpoint when `due`; `spends`: it carries usage of its
    /// own (the turn's usage is not scripted).
    pub fn plan_checkpoint(&mut self, due: bool, spends: bool) {
        self.checkpoint = due;
        self.checkpoint_spends = spends;
    }

    /// True once when a checkpoint is owed (it is then shown).
    pub fn take_checkpoint(&mut self) -> bool {
        std::mem::take(&mut self.checkpoint)
    }

    /// Whether the owed checkpoint carries usage of its own.
    pub fn checkpoint_spends(&self) -> bool {
        self.checkpoint_spends
    }

    /// Owes the resume `system_message` when the conversation had earlier turns.
    pub(super) fn owe_resume_message(&mut self, due: bool) {
        self.resume_message = due;
    }

    /// True once when the resume `system_message` is owed (it is then shown).
    pub fn take_resume_message(&mut self) -> bool {
        std::mem::take(&mut self.resume_message)
    }
}
