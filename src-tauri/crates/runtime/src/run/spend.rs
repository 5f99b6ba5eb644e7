//! What model calls cost, and the cost budget checked before each call.

use super::ledger::Ledger;
use super::recorder::Recorder;
use bearagent_kernel::TokenUsage;
use bearagent_providers::ProviderInfo;

/// Bytes per token when estimating a prompt's size. Real tokenizers give
/// about 4 bytes per token for English and code; 3 overestimates, so the
/// worst case of a call is not underestimated.
pub const BYTES_PER_TOKEN_ESTIMATE: u64 = 3;

/// What `usage` costs under the run's recorded price (None: unknown).
pub(super) fn cost_of(rec: &Recorder, usage: TokenUsage) -> Option<u64> {
    rec.state()?.price.map(|p| p.cost_micro_usd(usage))
}

/// The most the next call can cost: the whole prompt (estimated from its
/// size) plus the most output the provider or the run's token budget
/// allows. None when the run has no price.
fn worst_case_cost(rec: &Recorder, info: &ProviderInfo, context_bytes: u64) -> Option<u64> {
    let state = rec.state()?;
    let price = state.price?;
    let output_budget_left = state
        .budgets
        .max_output_tokens
        .saturating_sub(state.usage.output);
    let output = info
        .max_output_tokens
        .map_or(output_budget_left, u64::from)
        .min(output_budget_left);
    let input = context_bytes.div_ceil(BYTES_PER_TOKEN_ESTIMATE);
    Some(price.cost_micro_usd(TokenUsage::new(input, output)))
}

/// True when the run has a cost limit and the next call could pass it
/// (what its children reserved and spent counts as its own).
/// A run with a limit but no price never gets here: it is refused at start.
pub(super) fn cost_budget_blocks(
    rec: &Recorder,
    info: &ProviderInfo,
    context_bytes: u64,
    children: &Ledger,
) -> bool {
    let Some(state) = rec.state() else {
        return false;
    };
    if state.budgets.max_cost_micro_usd.is_none() {
        return false;
    }
    let now = rec.clock().now();
    // Without a price the worst case is unbounded: fail closed.
    let worst = worst_case_cost(rec, info, context_bytes).unwrap_or(u64::MAX);
    state
        .budgets
        .cost_exceeded_by(&children.counted(state.spent(now)), worst)
}
