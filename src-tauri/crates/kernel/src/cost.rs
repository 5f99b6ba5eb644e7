//! What model calls cost. Prices and costs are integers (micro-USD) so
//! events stay exact and totals never drift; a run whose provider has no
//! price has an unknown cost, never a cost of 0.

use crate::budget::TokenUsage;
use serde::{Deserialize, Serialize};
use std::fmt;

/// USD per million tokens, held as micro-USD per million tokens (so
/// `$3.00 / MTok` is `3_000_000`).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Price {
    pub input_micro_usd_per_mtok: u64,
    pub output_micro_usd_per_mtok: u64,
    /// For input tokens the provider served from its prompt cache; without
    /// it they cost as much as other input.
    #[serde(default)]
    pub cached_input_micro_usd_per_mtok: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PriceError {
    #[error("{field} must be a number of USD per million tokens, 0 or more (got {value})")]
    Invalid { field: &'static str, value: String },
    #[error("{field} is too large (got {value})")]
    TooLarge { field: &'static str, value: String },
}

/// Converts a USD amount to micro-USD, refusing negative, non-finite and
/// absurd values (a price is a config value a person typed).
pub fn usd_to_micro(field: &'static str, usd: f64) -> Result<u64, PriceError> {
    if !usd.is_finite() || usd < 0.0 {
        return Err(PriceError::Invalid {
            field,
            value: usd.to_string(),
        });
    }
    // $1M per unit is beyond any price or budget; it also keeps the
    // multiplication below far from u64's range.
    if usd > 1_000_000.0 {
        return Err(PriceError::TooLarge {
            field,
            value: usd.to_string(),
        });
    }
    // The bounds above make this conversion exact enough and in range.
    Ok((usd * 1_000_000.0).round() as u64)
}

impl Price {
    /// A price from USD per million tokens, as written in the config.
    pub fn from_usd_per_mtok(
        input: f64,
        output: f64,
        cached_input: Option<f64>,
    ) -> Result<Self, PriceError> {
        Ok(Self {
            input_micro_usd_per_mtok: usd_to_micro("input_per_mtok", input)?,
            output_micro_usd_per_mtok: usd_to_micro("output_per_mtok", output)?,
            cached_input_micro_usd_per_mtok: cached_input
                .map(|c| usd_to_micro("cached_input_per_mtok", c))
                .transpose()?,
        })
    }

    /// What `usage` costs, in micro-USD, rounded up: a budget check never
    /// undercounts.
    pub fn cost_micro_usd(&self, usage: TokenUsage) -> u64 {
        let cached = usage.cached_input.min(usage.input);
        let (cached_rate, uncached) = match self.cached_input_micro_usd_per_mtok {
            Some(rate) => (rate, usage.input - cached),
            None => (self.input_micro_usd_per_mtok, usage.input - cached),
        };
        let pico = u128::from(uncached) * u128::from(self.input_micro_usd_per_mtok)
            + u128::from(cached) * u128::from(cached_rate)
            + u128::from(usage.output) * u128::from(self.output_micro_usd_per_mtok);
        u64::try_from(pico.div_ceil(1_000_000)).unwrap_or(u64::MAX)
    }
}

/// A micro-USD amount for people: `$0.0123`, `$1.50`, `<$0.0001`.
pub struct Usd(pub u64);

impl fmt::Display for Usd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let micro = self.0;
        if micro == 0 {
            f.write_str("$0.00")
        } else if micro < 100 {
            f.write_str("<$0.0001")
        } else if micro < 1_000_000 {
            write!(f, "${:.4}", micro as f64 / 1_000_000.0)
        } else {
            write!(f, "${:.2}", micro as f64 / 1_000_000.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, cached: u64, output: u64) -> TokenUsage {
        TokenUsage {
            input,
            output,
            cached_input: cached,
        }
    }

    #[test]
    fn costs_follow_the_price_per_million_tokens() {
        let p = Price::from_usd_per_mtok(3.0, 15.0, Some(0.3)).unwrap();
        assert_eq!(p.cost_micro_usd(usage(1_000_000, 0, 0)), 3_000_000);
        assert_eq!(p.cost_micro_usd(usage(0, 0, 1_000)), 15_000);
        // 1000 cached of 2000 input: 1000 at $3 + 1000 at $0.30.
        assert_eq!(p.cost_micro_usd(usage(2_000, 1_000, 0)), 3_300);
        let no_cache_price = Price::from_usd_per_mtok(3.0, 15.0, None).unwrap();
        assert_eq!(no_cache_price.cost_micro_usd(usage(2_000, 1_000, 0)), 6_000);
    }

    #[test]
    fn costs_round_up_and_never_overflow() {
        let p = Price::from_usd_per_mtok(0.1, 0.1, None).unwrap();
        // 1 token at $0.10/MTok is 0.1 micro-USD: counted as 1.
        assert_eq!(p.cost_micro_usd(usage(1, 0, 0)), 1);
        let max = Price::from_usd_per_mtok(1_000_000.0, 1_000_000.0, None).unwrap();
        assert_eq!(max.cost_micro_usd(usage(u64::MAX, 0, u64::MAX)), u64::MAX);
        // More cached tokens than input (a confused provider) is not a panic.
        assert_eq!(p.cost_micro_usd(usage(1, 5, 0)), 1);
    }

    #[test]
    fn bad_prices_are_refused() {
        for bad in [-1.0, f64::NAN, f64::INFINITY, -0.0001] {
            assert!(Price::from_usd_per_mtok(bad, 1.0, None).is_err(), "{bad}");
            assert!(Price::from_usd_per_mtok(1.0, bad, None).is_err(), "{bad}");
            assert!(Price::from_usd_per_mtok(1.0, 1.0, Some(bad)).is_err());
        }
        assert!(Price::from_usd_per_mtok(2e6, 1.0, None).is_err());
        assert!(Price::from_usd_per_mtok(0.0, 0.0, Some(0.0)).is_ok());
    }

    #[test]
    fn amounts_print_for_people() {
        assert_eq!(Usd(0).to_string(), "$0.00");
        assert_eq!(Usd(42).to_string(), "<$0.0001");
        assert_eq!(Usd(12_300).to_string(), "$0.0123");
        assert_eq!(Usd(1_500_000).to_string(), "$1.50");
    }
}
