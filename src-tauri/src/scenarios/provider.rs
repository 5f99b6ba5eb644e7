//! A generic coding run, as a real provider would drive it: look around,
//! read the notes (a long file), write a report (a write: it may ask),
//! answer. Takes for each approval mode the UI's flows use, with and
//! without a price and a cost limit, with and without an AGENTS.md, and a
//! follow-up and a fork of a finished run.

use super::session::Session;
use bearagent_kernel::{ApprovalMode, EventSeq, Price, RunId};
use bearagent_providers::ScriptedProvider;
use bearagent_runtime::{RunProfile, ThreadStart};
use serde_json::{json, Value};

pub const REPORT: &str = "# Report\n\nThe notes agree on an event-sourced core with thin shells.\n";
const ANSWER: &str = "Done: outputs/report.md compares the notes and concludes that the event-sourced core with thin shells is the right split.";
const DECLINED: &str = "You declined the write, so nothing was changed. My conclusion: keep the event-sourced core with thin shells.";

/// The notes the run reads: long enough to be shown collapsed.
pub fn architecture_notes() -> String {
    let sections = [
        "Overview",
        "Event store",
        "Agent loop",
        "Providers",
        "Tools",
        "Desktop shell",
        "Risks",
    ];
    let mut out = String::new();
    for (i, title) in sections.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str(&format!("## {}. {title}\n\n", i + 1));
        let notes: Vec<String> = (1..=4)
            .map(|j| format!("- {title} note {j}: every fact is an event; projections are derived and can be rebuilt at any time."))
            .collect();
        out.push_str(&notes.join("\n"));
    }
    out
}

/// The project's AGENTS.md (about 2.1 KB, like a real one).
pub const AGENTS_MD: &str = include_str!("agents.md");

fn call(id: &str, tool: &str, arguments: Value, text: &str, usage: (u64, u64)) -> Value {
    json!({
        "text": text,
        "tool_call": {"call_id": id, "tool_name": tool, "arguments": arguments},
        "usage": {"input": usage.0, "output": usage.1},
    })
}

fn script(answer: &str) -> Vec<Value> {
    vec![
        call("call_1", "list_dir", json!({"path": "."}), "I'll start by looking at how the workspace is laid out, then read the notes the goal mentions. ", (2_410, 58)),
        call("call_2", "read_file", json!({"path": "docs/architecture.md"}), "Reading the architecture notes. ", (3_120, 31)),
        call("call_3", "write_file", json!({"path": "outputs/report.md", "content": REPORT}), "I have what I need. Writing the conclusion to outputs/report.md — this change needs your approval. ", (7_842, 412)),
        json!({"final_answer": answer, "usage": {"input": 8_390, "output": 88}}),
    ]
}

/// The model the UI's flows configure: gpt-4.1, with its window.
pub fn provider(steps: &[Value], price: Option<Price>) -> ScriptedProvider {
    let p = ScriptedProvider::from_json(&Value::Array(steps.to_vec()).to_string())
        .unwrap()
        .named("openai")
        .with_model("gpt-4.1")
        .with_context_window(bearagent_providers::default_context_window("gpt-4.1"));
    match price {
        // Priced like an HTTP provider, whose requests cap each call's output.
        Some(price) => p.with_price(price).with_max_output_tokens(4_096),
        None => p,
    }
}

/// The workspace the run looks at.
fn project(s: &Session, agents: bool) {
    s.write(
        "Cargo.toml",
        "[package]\nname = \"greeter\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    s.write(
        "README.md",
        "# greeter\n\nGreets people in their language.\n",
    );
    s.write("docs/architecture.md", architecture_notes());
    s.write("outputs/.gitkeep", "");
    s.write(
        "src/lib.rs",
        "pub fn greet(name: &str) -> String {\n    format!(\"Hello, {name}!\")\n}\n",
    );
    if agents {
        s.write("AGENTS.md", AGENTS_MD);
    }
}

/// What differs between the takes of this scenario.
struct Setup {
    name: &'static str,
    mode: ApprovalMode,
    decisions: Vec<Value>,
    answer: &'static str,
    agents: bool,
    price: Option<Price>,
    max_cost: Option<u64>,
    follow_up: bool,
}

fn decision(approve: bool, scope: &str, reason: Option<&str>) -> Value {
    json!({"approve": approve, "scope": scope, "reason": reason, "allowPrefix": null})
}

const PRICE: Price = Price {
    input_micro_usd_per_mtok: 2_000_000,
    output_micro_usd_per_mtok: 8_000_000,
    cached_input_micro_usd_per_mtok: Some(500_000),
};

async fn take(setup: Setup) -> Value {
    let s = Session::new(None);
    project(&s, setup.agents);
    let mut profile = RunProfile {
        approval_mode: setup.mode,
        ..RunProfile::default()
    };
    profile.budgets.max_cost_micro_usd = setup.max_cost;
    let run = s.start(
        "Compare the architecture notes and write the conclusion",
        profile,
        provider(&script(setup.answer), setup.price),
    );
    let mut decided = Vec::new();
    for d in setup.decisions {
        decided.push(s.decide(run, d).await);
    }
    s.finish(run).await;
    let mut take = json!({"name": setup.name, "decisions": decided, "run": s.recorded(run).await});
    let mut runs = vec![run];
    if setup.follow_up {
        let (follow, fork) = replies(&s, run).await;
        take["follow_up"] = s.recorded(follow).await;
        take["fork"] = s.recorded(fork).await;
        take["compacted"] = compacted(&s, run).await;
        runs.extend([follow, fork]);
    }
    s.placeholders(take, &runs)
}

/// A reply to the finished run, and a fork of it from its third event:
/// each re-reads the report with the earlier conversation in view.
async fn replies(s: &Session, run: RunId) -> (RunId, RunId) {
    let steps = |what: &str| {
        vec![
            call("call_1", "read_file", json!({"path": "outputs/report.md"}), "Picking up where we left off: re-reading outputs/report.md with our conversation in view. ", (9_120, 34)),
            json!({"final_answer": format!("{what}: I re-read outputs/report.md with the earlier conversation in view; it still holds what the last run concluded, so nothing needed to change."), "usage": {"input": 9_480, "output": 96}}),
        ]
    };
    let start = |goal: &str, what: &str| bearagent_runtime::StartRun {
        workspace: String::new(),
        goal: goal.into(),
        profile: RunProfile {
            approval_mode: ApprovalMode::AllowAll,
            ..RunProfile::default()
        },
        provider: std::sync::Arc::new(provider(&steps(what), None)),
        images: Vec::new(),
    };
    let follow = s
        .app
        .start_follow_up(
            start("Now add a summary section at the top", "Follow-up"),
            ThreadStart {
                run_id: run,
                at: None,
            },
        )
        .unwrap();
    s.finish(follow).await;
    let at = Some(EventSeq(3));
    let fork = s
        .app
        .start_follow_up(
            start("Only list the sections", "Fork"),
            ThreadStart { run_id: run, at },
        )
        .unwrap();
    s.finish(fork).await;
    (follow, fork)
}

/// "Compact" on the finished run: what it appends and the summary's text.
async fn compacted(s: &Session, run: RunId) -> Value {
    // A scripted model answers a summary request with its own handoff summary.
    let provider = ScriptedProvider::new(vec![]);
    s.updates(run).await;
    s.app.compact_run_with(run, &provider).await.unwrap();
    let updates = s.updates(run).await;
    let texts = s.answers(run)["texts"].clone();
    json!({"updates": updates, "texts": texts})
}

pub async fn takes() -> Vec<Value> {
    let once = |approve| decision(approve, "once", None);
    let base = |name, mode| Setup {
        name,
        mode,
        decisions: vec![],
        answer: ANSWER,
        agents: false,
        price: None,
        max_cost: None,
        follow_up: false,
    };
    let setups = vec![
        Setup {
            decisions: vec![once(true)],
            ..base("ask_writes: the write approved", ApprovalMode::AskWrites)
        },
        Setup {
            decisions: vec![once(false)],
            answer: DECLINED,
            ..base("ask_writes: the write denied", ApprovalMode::AskWrites)
        },
        Setup {
            decisions: vec![
                decision(true, "tool_for_run", None),
                decision(false, "once", None),
                decision(false, "once", Some("keep outputs/ as it is, add nothing")),
            ],
            answer: DECLINED,
            ..base(
                "ask_all: list_dir for the run, the read and the write denied",
                ApprovalMode::AskAll,
            )
        },
        Setup {
            follow_up: true,
            ..base(
                "allow_all, then a follow-up, a fork and Compact",
                ApprovalMode::AllowAll,
            )
        },
        Setup {
            agents: true,
            follow_up: true,
            ..base(
                "allow_all with an AGENTS.md, then a follow-up, a fork and Compact",
                ApprovalMode::AllowAll,
            )
        },
        Setup {
            price: Some(PRICE),
            max_cost: Some(500_000),
            ..base("allow_all, priced, a $0.50 limit", ApprovalMode::AllowAll)
        },
        Setup {
            price: Some(PRICE),
            max_cost: Some(50_000),
            ..base(
                "allow_all, priced, a $0.05 limit that stops it",
                ApprovalMode::AllowAll,
            )
        },
    ];
    let mut out = Vec::new();
    for setup in setups {
        out.push(take(setup).await);
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_provider_scenario_is_what_the_runtime_records_now() {
    super::check("provider", takes().await);
}
