//! Token counts agy reports for a turn, as recorded.

use agy_protocol::Usage;

/// A text-only run's usage (docs/spike-records.md S8: 18914/332/267/16268).
pub const TEXT_USAGE: Usage = Usage {
    input_tokens: 18914,
    output_tokens: 332,
    thinking_tokens: 267,
    cache_read_tokens: 16268,
    total_tokens: 19246,
    cache_read_absent: false,
};
