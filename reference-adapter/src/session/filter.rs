//! The replay filter (seed 000: "only a result whose num_turns advanced (or whose payload
//! differs) and steps at or beyond the new Turn's first index reach the Host").
//!
//! Pure: events go in one by one, the filter says what each one is for the current turn.

use crate::faults::{Fault, FaultSet};
use agy_protocol::stream::{StepType, StepUpdate, StreamEvent};
use agy_protocol::{Envelope, Usage};

/// What one process has already shown: the last result it counted and the highest step
/// index it emitted. A new process starts empty (nothing to replay).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProcessBaseline {
    /// The last result counted on this process.
    pub last_result: Option<Envelope>,
    /// The highest `step_index` seen on this process.
    pub max_step: Option<u64>,
}

/// What to do with one event.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterAction {
    /// Not part of this turn (a replayed result, a step of an earlier turn, `init`).
    Ignore,
    /// A step of this turn.
    Step,
    /// This turn's result: the turn ends here.
    Result(Box<Envelope>),
}

/// The filter for one turn.
#[derive(Debug, Clone)]
pub struct TurnFilter {
    baseline: ProcessBaseline,
    floor: u64,
    filter_results: bool,
    filter_steps: bool,
    steps: Vec<StepUpdate>,
    max_seen: Option<u64>,
    /// Usage of steps left out as an earlier turn's (for the late-usage fault).
    late_usage: Usage,
    late_usage_counts: bool,
}

impl TurnFilter {
    /// A filter for the turn about to start on a process that has shown `baseline`.
    pub fn new(baseline: &ProcessBaseline, faults: &FaultSet) -> TurnFilter {
        TurnFilter {
            baseline: baseline.clone(),
            floor: baseline.max_step.map_or(0, |m| m.saturating_add(1)),
            filter_results: !faults.has(Fault::NoReplayFilter),
            filter_steps: !faults.has(Fault::LateStepToCurrentTurn),
            steps: Vec::new(),
            max_seen: baseline.max_step,
            late_usage: Usage::ZERO,
            late_usage_counts: faults.has(Fault::LateUsageToCurrentTurn),
        }
    }

    /// The first step index this turn accepts.
    pub fn floor(&self) -> u64 {
        self.floor
    }

    /// Classifies one event.
    pub fn offer(&mut self, event: StreamEvent) -> FilterAction {
        match event {
            StreamEvent::Init { .. } | StreamEvent::Other(_) => FilterAction::Ignore,
            StreamEvent::StepUpdate(step) => self.offer_step(step),
            StreamEvent::Result(result) => self.offer_result(result),
        }
    }

    fn offer_step(&mut self, step: StepUpdate) -> FilterAction {
        let index = step.step_index;
        self.max_seen = Some(self.max_seen.map_or(index, |m| m.max(index)));
        if !self.filter_steps {
            self.steps.push(step);
            return FilterAction::Step;
        }
        if index < self.floor {
            self.note_late(&step);
            return FilterAction::Ignore;
        }
        // The turn's own user_input step is its first step (docs/agy-reference.md §3.5): anything
        // accepted below it belonged to an earlier turn after all.
        if step.step_type == StepType::UserInput && index > self.floor {
            self.floor = index;
            let (late, own): (Vec<StepUpdate>, Vec<StepUpdate>) = std::mem::take(&mut self.steps)
                .into_iter()
                .partition(|s| s.step_index < index);
            self.steps = own;
            late.iter().for_each(|s| self.note_late(s));
        }
        self.steps.push(step);
        FilterAction::Step
    }

    fn offer_result(&mut self, result: Envelope) -> FilterAction {
        if self.filter_results {
            if let Some(prev) = &self.baseline.last_result {
                if result.num_turns <= prev.num_turns && result == *prev {
                    return FilterAction::Ignore;
                }
            }
        }
        FilterAction::Result(Box::new(result))
    }

    fn note_late(&mut self, step: &StepUpdate) {
        if let Some(u) = &step.usage {
            self.late_usage = self.late_usage.add(u);
        }
    }

    /// The usage of this turn: the sum of its own steps' usage (a late step of an
    /// earlier turn is not this turn's cost).
    pub fn usage(&self) -> Usage {
        let own = self
            .steps
            .iter()
            .filter_map(|s| s.usage.as_ref())
            .fold(Usage::ZERO, |sum, u| sum.add(u));
        if self.late_usage_counts {
            own.add(&self.late_usage)
        } else {
            own
        }
    }

    /// The steps accepted for this turn, in arrival order.
    pub fn steps(&self) -> &[StepUpdate] {
        &self.steps
    }

    /// The baseline the next turn on this process starts from, once `result` counted.
    pub fn next_baseline(&self, result: &Envelope) -> ProcessBaseline {
        ProcessBaseline {
            last_result: Some(result.clone()),
            max_step: self.max_seen,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agy_protocol::stream::StepState;
    use agy_protocol::{Status, Usage};

    fn step(index: u64, kind: StepType, text: Option<&str>) -> StreamEvent {
        let mut s = StepUpdate::new("c", index, StepState::Done, kind);
        s.text_delta = text.map(str::to_string);
        StreamEvent::StepUpdate(s)
    }

    fn result(num_turns: u64, response: &str) -> Envelope {
        Envelope {
            response: response.to_string(),
            num_turns,
            usage: Usage::new(100 * num_turns, 10, 0, 0),
            duration_seconds: 1.5,
            ..Envelope::empty("c", Status::Success)
        }
    }

    fn after_turn_one() -> ProcessBaseline {
        ProcessBaseline {
            last_result: Some(result(1, "one")),
            max_step: Some(2),
        }
    }

    proptest::proptest! {
        /// Whatever arrives, no accepted step is below the turn's first index, and an
        /// exact replay of the last result never ends the turn.
        #[test]
        fn nothing_from_an_earlier_turn_is_accepted(
            max_step in 0u64..50,
            indices in proptest::collection::vec((0u64..100, proptest::bool::ANY), 0..30),
        ) {
            let baseline = ProcessBaseline { last_result: Some(result(3, "old")), max_step: Some(max_step) };
            let mut f = TurnFilter::new(&baseline, &FaultSet::none());
            for (index, user) in indices {
                let kind = if user { StepType::UserInput } else { StepType::AgentResponse };
                f.offer(step(index, kind, Some("t")));
                proptest::prop_assert_eq!(f.offer(StreamEvent::Result(result(3, "old"))), FilterAction::Ignore);
            }
            proptest::prop_assert!(f.steps().iter().all(|s| s.step_index > max_step && s.step_index >= f.floor()));
        }
    }

    #[test]
    fn first_turn_on_a_new_process_accepts_everything() {
        let mut f = TurnFilter::new(&ProcessBaseline::default(), &FaultSet::none());
        assert_eq!(
            f.offer(step(0, StepType::UserInput, None)),
            FilterAction::Step
        );
        assert_eq!(
            f.offer(StreamEvent::Result(result(1, "one"))),
            FilterAction::Result(Box::new(result(1, "one")))
        );
    }

    #[test]
    fn an_identical_replayed_result_is_ignored() {
        let mut f = TurnFilter::new(&after_turn_one(), &FaultSet::none());
        assert_eq!(
            f.offer(StreamEvent::Result(result(1, "one"))),
            FilterAction::Ignore
        );
        assert_eq!(
            f.offer(StreamEvent::Result(result(2, "two"))),
            FilterAction::Result(Box::new(result(2, "two")))
        );
    }

    #[test]
    fn a_result_that_differs_counts_even_without_advancing() {
        // It counts, and the verdict then fails the turn (num_turns did not advance).
        let mut f = TurnFilter::new(&after_turn_one(), &FaultSet::none());
        let stale = Envelope {
            status: Status::Error,
            error: "quota".into(),
            ..result(1, "")
        };
        assert_eq!(
            f.offer(StreamEvent::Result(stale.clone())),
            FilterAction::Result(Box::new(stale))
        );
    }

    #[test]
    fn replayed_steps_below_the_new_turns_first_index_are_dropped() {
        let mut f = TurnFilter::new(&after_turn_one(), &FaultSet::none());
        assert_eq!(f.floor(), 3);
        assert_eq!(
            f.offer(step(0, StepType::UserInput, None)),
            FilterAction::Ignore
        );
        assert_eq!(
            f.offer(step(2, StepType::AgentResponse, Some("one"))),
            FilterAction::Ignore
        );
        assert_eq!(
            f.offer(step(3, StepType::UserInput, None)),
            FilterAction::Step
        );
        assert_eq!(
            f.offer(step(4, StepType::AgentResponse, Some("two"))),
            FilterAction::Step
        );
        let texts: Vec<_> = f.steps().iter().map(|s| s.step_index).collect();
        assert_eq!(texts, [3, 4]);
    }

    #[test]
    fn the_user_input_step_raises_the_floor_and_drops_earlier_late_steps() {
        let mut f = TurnFilter::new(&after_turn_one(), &FaultSet::none());
        // A late step of turn 1 numbered above what turn 1 showed before its result.
        assert_eq!(
            f.offer(step(3, StepType::AgentResponse, Some("late"))),
            FilterAction::Step
        );
        assert_eq!(
            f.offer(step(5, StepType::UserInput, None)),
            FilterAction::Step
        );
        assert_eq!(f.floor(), 5);
        assert_eq!(f.steps().len(), 1);
        assert_eq!(f.steps()[0].step_index, 5);
    }

    #[test]
    fn no_replay_filter_takes_the_replayed_result() {
        let mut f = TurnFilter::new(&after_turn_one(), &FaultSet::of([Fault::NoReplayFilter]));
        assert_eq!(
            f.offer(StreamEvent::Result(result(1, "one"))),
            FilterAction::Result(Box::new(result(1, "one")))
        );
    }

    #[test]
    fn late_step_fault_attributes_an_old_step_to_this_turn() {
        let mut f = TurnFilter::new(
            &after_turn_one(),
            &FaultSet::of([Fault::LateStepToCurrentTurn]),
        );
        assert_eq!(
            f.offer(step(2, StepType::AgentResponse, Some("late"))),
            FilterAction::Step
        );
        assert_eq!(f.steps().len(), 1);
    }

    #[test]
    fn the_next_baseline_remembers_the_result_and_every_step_seen() {
        let mut f = TurnFilter::new(&after_turn_one(), &FaultSet::none());
        f.offer(step(1, StepType::AgentResponse, None));
        f.offer(step(7, StepType::AgentResponse, None));
        let b = f.next_baseline(&result(2, "two"));
        assert_eq!(b.max_step, Some(7));
        assert_eq!(b.last_result, Some(result(2, "two")));
    }
}
