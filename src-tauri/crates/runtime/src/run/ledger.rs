//! What a run's children hold of its budget: reserved while they run,
//! spent once they ended. The parent's budget checks count both, so the
//! sum a parent and its children spend never passes the parent's budget
//! (issue 54). Floor 0 of `run/`: a fact the stop guard and the task room
//! read.

use bearagent_kernel::{
    task_children, Budgets, Delegation, EventEnvelope, RunId, Spent, TokenUsage,
};

/// The children's share of one run's budget.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ledger {
    /// What running children may still spend (their whole budgets).
    pub reserved: Spent,
    /// What children that ended spent.
    pub spent: Spent,
}

/// `a + b`, count by count (wall time is the parent's own: children run
/// inside it, so it is never added).
pub(crate) fn plus(a: Spent, b: Spent) -> Spent {
    Spent {
        model_calls: a.model_calls.saturating_add(b.model_calls),
        tool_calls: a.tool_calls.saturating_add(b.tool_calls),
        usage: a.usage.saturating_add(b.usage),
        elapsed_ms: a.elapsed_ms,
        cost_micro_usd: a.cost_micro_usd.saturating_add(b.cost_micro_usd),
    }
}

fn minus(a: Spent, b: Spent) -> Spent {
    Spent {
        model_calls: a.model_calls.saturating_sub(b.model_calls),
        tool_calls: a.tool_calls.saturating_sub(b.tool_calls),
        usage: TokenUsage {
            input: a.usage.input.saturating_sub(b.usage.input),
            output: a.usage.output.saturating_sub(b.usage.output),
            cached_input: a.usage.cached_input.saturating_sub(b.usage.cached_input),
        },
        elapsed_ms: a.elapsed_ms,
        cost_micro_usd: a.cost_micro_usd.saturating_sub(b.cost_micro_usd),
    }
}

/// A child's budgets as the counts they allow.
fn as_spent(b: &Budgets) -> Spent {
    Spent {
        model_calls: b.max_model_calls,
        tool_calls: b.max_tool_calls,
        usage: TokenUsage::new(b.max_input_tokens, b.max_output_tokens),
        elapsed_ms: 0,
        cost_micro_usd: b.max_cost_micro_usd.unwrap_or(0),
    }
}

impl Ledger {
    /// What the parent has spent and holds for its children.
    pub(crate) fn counted(&self, own: Spent) -> Spent {
        plus(plus(own, self.spent), self.reserved)
    }

    /// A child's budgets carved from what is left of `budgets` after
    /// `own` spend and this ledger: the delegation's share of each count,
    /// and all the wall time left (children run inside the parent's).
    /// None when no model call would be left to the child.
    pub(crate) fn carve(
        &self,
        budgets: &Budgets,
        own: Spent,
        delegation: &Delegation,
    ) -> Option<Budgets> {
        let used = self.counted(own);
        let share = |max: u64, used: u64| delegation.share_of(max.saturating_sub(used));
        let calls = |max: u32, used: u32| {
            u32::try_from(share(u64::from(max), u64::from(used))).unwrap_or(u32::MAX)
        };
        let child = Budgets {
            max_model_calls: calls(budgets.max_model_calls, used.model_calls),
            max_tool_calls: calls(budgets.max_tool_calls, used.tool_calls),
            max_input_tokens: share(budgets.max_input_tokens, used.usage.input),
            max_output_tokens: share(budgets.max_output_tokens, used.usage.output),
            max_wall_time_ms: budgets.max_wall_time_ms.saturating_sub(own.elapsed_ms),
            max_cost_micro_usd: budgets
                .max_cost_micro_usd
                .map(|max| share(max, used.cost_micro_usd)),
        };
        (child.max_model_calls > 0 && child.max_wall_time_ms > 0).then_some(child)
    }

    pub(crate) fn reserve(&mut self, child: &Budgets) {
        self.reserved = plus(self.reserved, as_spent(child));
    }

    /// A child ended: its reservation is released and what it spent counts.
    pub(crate) fn settle(&mut self, child: &Budgets, spent: Spent) {
        self.reserved = minus(self.reserved, as_spent(child));
        self.spent = plus(self.spent, spent);
    }
}

/// The ledger of a run resumed in a new process: what the children its
/// recorded `task` calls started spent before (their spend is in their
/// own records; `spent_of` reads one, None for a child never started).
/// Without it a resumed parent would count none of it.
pub(crate) fn of_earlier_children<E>(
    run: RunId,
    events: &[EventEnvelope],
    mut spent_of: impl FnMut(RunId) -> Result<Option<Spent>, E>,
) -> Result<Ledger, E> {
    let mut ledger = Ledger::default();
    for (_, child) in task_children(run, events) {
        if let Some(spent) = spent_of(child)? {
            ledger.spent = plus(ledger.spent, spent);
        }
    }
    Ok(ledger)
}

#[cfg(test)]
mod tests {
    use super::*;
    use bearagent_kernel::{DelegatedBy, EventPayload, TASK_TOOL};

    #[test]
    fn a_resumed_run_counts_what_its_earlier_children_spent() {
        let run = RunId::new();
        let call = |id: &str, tool: &str| EventPayload::ToolCallRequested {
            call: bearagent_kernel::ToolCall::new(id, tool, serde_json::json!({})).unwrap(),
            parsed_from_text: None,
        };
        let events = bearagent_kernel::testkit::envelopes(vec![
            call("t1", TASK_TOOL),
            call("r1", "read_file"),
            call("t2", TASK_TOOL),
            call("t3", TASK_TOOL),
        ]);
        let started = [
            DelegatedBy::child_run_id(run, &bearagent_kernel::CallId::new("t1").unwrap()),
            DelegatedBy::child_run_id(run, &bearagent_kernel::CallId::new("t2").unwrap()),
        ];
        let mut asked = Vec::new();
        let ledger = of_earlier_children::<()>(run, &events, |child| {
            asked.push(child);
            Ok(started.contains(&child).then_some(Spent {
                model_calls: 2,
                tool_calls: 3,
                ..Spent::default()
            }))
        })
        .unwrap();
        assert_eq!(asked.len(), 3, "one lookup per task call");
        assert_eq!((ledger.spent.model_calls, ledger.spent.tool_calls), (4, 6));
        assert_eq!(ledger.reserved, Spent::default());
    }

    #[test]
    fn children_carved_one_after_another_never_hold_more_than_is_left() {
        let budgets = Budgets {
            max_model_calls: 10,
            ..Budgets::default()
        };
        let own = Spent {
            model_calls: 1,
            ..Spent::default()
        };
        let d = Delegation::default();
        let mut ledger = Ledger::default();
        let mut total = 0;
        while let Some(child) = ledger.carve(&budgets, own, &d) {
            total += child.max_model_calls;
            ledger.reserve(&child);
        }
        assert!(
            total + own.model_calls <= budgets.max_model_calls,
            "{total}"
        );
        assert!(total > 0);
        let child = Budgets {
            max_model_calls: 2,
            ..Budgets::default()
        };
        let mut ledger = Ledger::default();
        ledger.reserve(&child);
        let spent = Spent {
            model_calls: 1,
            ..Spent::default()
        };
        ledger.settle(&child, spent);
        assert_eq!(ledger.reserved.model_calls, 0);
        assert_eq!(ledger.counted(Spent::default()).model_calls, 1);
    }
}
