//! Token usage and run budgets (checked before every model and tool call).

use serde::{Deserialize, Serialize};
use std::fmt;

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TokenUsage {
    /// Every input token, including those served from a prompt cache.
    pub input: u64,
    pub output: u64,
    /// The part of `input` the provider served from its prompt cache
    /// (priced differently).
    #[serde(default)]
    pub cached_input: u64,
}

impl TokenUsage {
    pub fn new(input: u64, output: u64) -> Self {
        Self {
            input,
            output,
            cached_input: 0,
        }
    }
    pub fn saturating_add(self, other: TokenUsage) -> TokenUsage {
        TokenUsage {
            input: self.input.saturating_add(other.input),
            output: self.output.saturating_add(other.output),
            cached_input: self.cached_input.saturating_add(other.cached_input),
        }
    }
}

/// Which budget a run ran out of.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BudgetKind {
    ModelCalls,
    ToolCalls,
    InputTokens,
    OutputTokens,
    WallTime,
    /// Spend so far plus the next call's worst case would pass `max_cost`.
    Cost,
}

impl fmt::Display for BudgetKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BudgetKind::ModelCalls => "model calls",
            BudgetKind::ToolCalls => "tool calls",
            BudgetKind::InputTokens => "input tokens",
            BudgetKind::OutputTokens => "output tokens",
            BudgetKind::WallTime => "wall time",
            BudgetKind::Cost => "cost",
        })
    }
}

/// Limits for one run. Every limit is required: a run never has an
/// unbounded budget.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budgets {
    pub max_model_calls: u32,
    pub max_tool_calls: u32,
    pub max_input_tokens: u64,
    pub max_output_tokens: u64,
    pub max_wall_time_ms: u64,
    /// Spend limit in micro-USD; needs a priced provider. None: no limit
    /// on cost (the other limits still bound the run).
    #[serde(default)]
    pub max_cost_micro_usd: Option<u64>,
}

impl Default for Budgets {
    fn default() -> Self {
        Self {
            max_model_calls: 50,
            max_tool_calls: 100,
            max_input_tokens: 2_000_000,
            max_output_tokens: 200_000,
            max_wall_time_ms: 30 * 60 * 1000,
            max_cost_micro_usd: None,
        }
    }
}

/// What has been spent so far, as the reducer counts it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Spent {
    pub model_calls: u32,
    pub tool_calls: u32,
    pub usage: TokenUsage,
    pub elapsed_ms: u64,
    /// Known cost so far, micro-USD (0 when the price is unknown).
    #[serde(default)]
    pub cost_micro_usd: u64,
}

/// What is about to happen, so only the budgets it would spend are checked:
/// a run out of tool calls may still ask the model for its answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextCall {
    Model,
    Tool,
}

impl Budgets {
    /// The first budget that `spent` has reached, in a fixed order, among
    /// those `next` would spend. A budget that is reached (not only
    /// exceeded) blocks the call: fail closed.
    pub fn exhausted_before(&self, next: NextCall, spent: &Spent) -> Option<BudgetKind> {
        match next {
            NextCall::Model if spent.model_calls >= self.max_model_calls => {
                Some(BudgetKind::ModelCalls)
            }
            NextCall::Tool if spent.tool_calls >= self.max_tool_calls => {
                Some(BudgetKind::ToolCalls)
            }
            _ if spent.elapsed_ms >= self.max_wall_time_ms => Some(BudgetKind::WallTime),
            NextCall::Model => self.tokens_exhausted(spent),
            NextCall::Tool => None,
        }
    }

    /// The first budget that `spent` has reached, in a fixed order.
    pub fn first_exhausted(&self, spent: &Spent) -> Option<BudgetKind> {
        if spent.model_calls >= self.max_model_calls {
            Some(BudgetKind::ModelCalls)
        } else if spent.tool_calls >= self.max_tool_calls {
            Some(BudgetKind::ToolCalls)
        } else if spent.elapsed_ms >= self.max_wall_time_ms {
            Some(BudgetKind::WallTime)
        } else {
            self.tokens_exhausted(spent)
        }
    }

    /// Whether a model call that may cost up to `worst_case_micro_usd`
    /// would take the run past `max_cost`: checked before the call, so the
    /// limit holds even if the call spends all it can.
    pub fn cost_exceeded_by(&self, spent: &Spent, worst_case_micro_usd: u64) -> bool {
        self.max_cost_micro_usd
            .is_some_and(|max| spent.cost_micro_usd.saturating_add(worst_case_micro_usd) > max)
    }

    fn tokens_exhausted(&self, spent: &Spent) -> Option<BudgetKind> {
        if spent.usage.input >= self.max_input_tokens {
            Some(BudgetKind::InputTokens)
        } else if spent.usage.output >= self.max_output_tokens {
            Some(BudgetKind::OutputTokens)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reaching_a_limit_exhausts_it() {
        let budgets = Budgets {
            max_model_calls: 2,
            ..Budgets::default()
        };
        let mut spent = Spent {
            model_calls: 1,
            ..Spent::default()
        };
        assert_eq!(budgets.first_exhausted(&spent), None);
        spent.model_calls = 2;
        assert_eq!(
            budgets.first_exhausted(&spent),
            Some(BudgetKind::ModelCalls)
        );
    }

    #[test]
    fn each_call_is_checked_against_the_budgets_it_spends() {
        let budgets = Budgets {
            max_tool_calls: 1,
            max_output_tokens: 10,
            ..Budgets::default()
        };
        let out_of_tools = Spent {
            tool_calls: 1,
            ..Spent::default()
        };
        assert_eq!(
            budgets.exhausted_before(NextCall::Model, &out_of_tools),
            None
        );
        assert_eq!(
            budgets.exhausted_before(NextCall::Tool, &out_of_tools),
            Some(BudgetKind::ToolCalls)
        );
        let out_of_tokens = Spent {
            usage: TokenUsage::new(0, 10),
            ..Spent::default()
        };
        assert_eq!(
            budgets.exhausted_before(NextCall::Model, &out_of_tokens),
            Some(BudgetKind::OutputTokens)
        );
        assert_eq!(
            budgets.exhausted_before(NextCall::Tool, &out_of_tokens),
            None
        );
        let late = Spent {
            elapsed_ms: u64::MAX,
            ..Spent::default()
        };
        assert_eq!(
            budgets.exhausted_before(NextCall::Tool, &late),
            Some(BudgetKind::WallTime)
        );
    }

    #[test]
    fn token_and_time_limits_are_checked() {
        let budgets = Budgets {
            max_output_tokens: 10,
            max_wall_time_ms: 5,
            ..Budgets::default()
        };
        let spent = Spent {
            usage: TokenUsage::new(0, 10),
            elapsed_ms: 9,
            ..Spent::default()
        };
        // Time is checked before tokens.
        assert_eq!(budgets.first_exhausted(&spent), Some(BudgetKind::WallTime));
        let spent = Spent {
            usage: TokenUsage::new(0, 10),
            ..Spent::default()
        };
        assert_eq!(
            budgets.first_exhausted(&spent),
            Some(BudgetKind::OutputTokens)
        );
    }

    #[test]
    fn cost_is_checked_against_spend_plus_the_worst_case() {
        let unlimited = Budgets::default();
        let spent = Spent {
            cost_micro_usd: 900,
            ..Spent::default()
        };
        assert!(!unlimited.cost_exceeded_by(&spent, u64::MAX));
        let capped = Budgets {
            max_cost_micro_usd: Some(1_000),
            ..Budgets::default()
        };
        assert!(!capped.cost_exceeded_by(&spent, 100));
        assert!(capped.cost_exceeded_by(&spent, 101));
        assert!(capped.cost_exceeded_by(&spent, u64::MAX));
    }
}
