//! One recording session: a data folder, a workspace and the real
//! application on them, with everything the application pushes collected
//! as the window would receive it (`live::update`).

use crate::dto::artifacts::{ArtifactItem, FileDiffView, ProposedChangeView};
use crate::dto::runs::ModelContextView;
use bearagent_kernel::{EventPayload, EventSeq, FixedClock, RunId, RunProjection, Timestamp};
use bearagent_runtime::{Application, Decision, LiveEvent, RunProfile, StartRun};
use serde_json::{json, Map, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A fixed clock: the same timestamps on every machine.
const START_MILLIS: i64 = 1_800_000_000_000;
const WAIT: Duration = Duration::from_secs(60);

pub struct Session {
    pub app: Arc<Application>,
    pub home: tempfile::TempDir,
    pub ws: tempfile::TempDir,
    live: Arc<Mutex<Vec<LiveEvent>>>,
    /// How many of `live` were handed out already, per run.
    taken: Mutex<Vec<(RunId, usize)>>,
    decided: Mutex<Vec<(RunId, String)>>,
    /// What each write asked about would change (`pending_change`), by
    /// run and call, as the window asks while the card waits.
    proposals: Mutex<Vec<(RunId, String, Value)>>,
}

impl Session {
    /// A session whose data folder holds `config` as its `config.toml`.
    pub fn new(config: Option<&str>) -> Session {
        let home = tempfile::tempdir().unwrap();
        if let Some(config) = config {
            std::fs::write(home.path().join("config.toml"), config).unwrap();
        }
        let clock = FixedClock(Timestamp::from_unix_millis(START_MILLIS).unwrap());
        let app = Arc::new(Application::open(home.path(), Arc::new(clock)).unwrap());
        let live = Arc::new(Mutex::new(Vec::new()));
        let mut rx = app.subscribe();
        let sink = live.clone();
        tokio::spawn(async move {
            while let Ok(event) = rx.recv().await {
                sink.lock().unwrap().push(event);
            }
        });
        Session {
            app,
            home,
            ws: tempfile::tempdir().unwrap(),
            live,
            taken: Mutex::new(Vec::new()),
            decided: Mutex::new(Vec::new()),
            proposals: Mutex::new(Vec::new()),
        }
    }

    pub fn workspace(&self) -> String {
        self.ws.path().display().to_string()
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let path = self.ws.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn start(
        &self,
        goal: &str,
        profile: RunProfile,
        provider: bearagent_providers::ScriptedProvider,
    ) -> RunId {
        self.app
            .start_run(StartRun {
                workspace: self.workspace(),
                goal: goal.into(),
                profile,
                provider: Arc::new(provider),
                images: Vec::new(),
            })
            .unwrap()
    }

    /// The call the run asks about next (not one decided already).
    pub async fn asked(&self, run: RunId) -> String {
        tokio::time::timeout(WAIT, async {
            loop {
                if let Some(p) = self.app.get_run(run).unwrap().pending_approval {
                    let call = p.call_id.to_string();
                    let mut decided = self.decided.lock().unwrap();
                    if !decided.contains(&(run, call.clone())) {
                        decided.push((run, call.clone()));
                        return call;
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the run asks")
    }

    /// Decides the pending request as the window would send `input` (an
    /// IPC `DecisionInput`), and returns `input` for the take's record.
    pub async fn decide(&self, run: RunId, input: Value) -> Value {
        let call = self.asked(run).await;
        let proposal = self
            .app
            .pending_change(run)
            .unwrap()
            .map(ProposedChangeView::from);
        self.proposals.lock().unwrap().push((
            run,
            call.clone(),
            serde_json::to_value(proposal).unwrap(),
        ));
        let decision = Decision {
            approve: input["approve"].as_bool().unwrap(),
            scope: serde_json::from_value(input["scope"].clone()).unwrap(),
            reason: input["reason"].as_str().map(str::to_owned),
            by: "user".into(),
            allow_prefix: input["allowPrefix"].as_str().map(str::to_owned),
            network: input["network"].as_bool().unwrap_or(false),
        };
        // The request is stored a moment before the loop waits on it.
        tokio::time::timeout(WAIT, async {
            while self
                .app
                .decide_approval(run, &call, decision.clone())
                .is_err()
            {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("the run takes the decision");
        input
    }

    pub async fn finish(&self, run: RunId) -> RunProjection {
        match tokio::time::timeout(WAIT, self.app.wait_run(run)).await {
            Ok(p) => p.unwrap(),
            Err(_) => {
                let events = self.app.list_events(run, EventSeq(0), 100_000).unwrap();
                let kinds: Vec<Value> = events
                    .iter()
                    .map(|e| serde_json::to_value(&e.payload).unwrap()["type"].clone())
                    .collect();
                panic!("the run did not end: {kinds:?}")
            }
        }
    }

    /// Waits until every event of `run` stored so far was pushed, then
    /// returns the run's updates not handed out yet (IPC form).
    pub async fn updates(&self, run: RunId) -> Vec<Value> {
        let last = self.app.get_run(run).unwrap().last_seq;
        let pushed = |events: &[LiveEvent]| {
            events
                .iter()
                .any(|e| matches!(e, LiveEvent::Committed(c) if c.run_id == run && c.seq == last))
        };
        tokio::time::timeout(WAIT, async {
            while !pushed(&self.live.lock().unwrap()) {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await
        .expect("every stored event is pushed");
        let live = self.live.lock().unwrap();
        let mut taken = self.taken.lock().unwrap();
        let from = taken.iter().find(|(r, _)| *r == run).map_or(0, |(_, n)| *n);
        let mine: Vec<&LiveEvent> = live.iter().filter(|e| run_of(e) == Some(run)).collect();
        taken.retain(|(r, _)| *r != run);
        taken.push((run, mine.len()));
        super::normalise::merged(mine[from..].iter().map(|e| (*e).clone()))
    }

    /// What the window asks about a finished run, as the shell answers:
    /// each command's stored output, each model call's context, the texts
    /// its events point at, its changed files and their diffs.
    pub fn answers(&self, run: RunId) -> Value {
        let events = self.app.list_events(run, EventSeq(0), 100_000).unwrap();
        let mut outputs = Map::new();
        let mut contexts = Map::new();
        let mut texts = Map::new();
        for e in &events {
            match &e.payload {
                EventPayload::CommandFinished { call_id, .. } => {
                    let out = self.app.command_output(run, call_id.as_str()).unwrap();
                    let text = String::from_utf8_lossy(&out).into_owned();
                    outputs.insert(call_id.to_string(), json!(text));
                }
                EventPayload::ModelCallRequested { .. } => {
                    let built = self.app.model_context(run, e.seq).unwrap();
                    let view = ModelContextView::from(built);
                    contexts.insert(e.seq.get().to_string(), serde_json::to_value(view).unwrap());
                }
                EventPayload::InstructionsLoaded { blob, .. }
                | EventPayload::ContextCompacted { summary: blob, .. } => {
                    let text = self.app.event_text(run, blob).unwrap();
                    texts.insert(blob.to_string(), json!(text));
                }
                _ => {}
            }
        }
        let mut answers = json!({"outputs": outputs, "contexts": contexts, "texts": texts});
        answers
            .as_object_mut()
            .unwrap()
            .extend(self.changes(run).as_object().unwrap().clone());
        answers
    }

    /// The run's changed files and their diffs (a large one also in full).
    pub fn changes(&self, run: RunId) -> Value {
        let views = self.app.artifacts(run).unwrap();
        let mut diffs = Map::new();
        let mut full = Map::new();
        for v in &views {
            let path = &v.record.path;
            let short = FileDiffView::from(self.app.artifact_diff(run, path, false).unwrap());
            let whole = FileDiffView::from(self.app.artifact_diff(run, path, true).unwrap());
            let (short, whole) = (
                serde_json::to_value(short).unwrap(),
                serde_json::to_value(whole).unwrap(),
            );
            if short != whole {
                full.insert(path.clone(), whole);
            }
            diffs.insert(path.clone(), short);
        }
        let items: Vec<ArtifactItem> = views.into_iter().map(ArtifactItem::from).collect();
        json!({"artifacts": items, "diffs": diffs, "full_diffs": full})
    }

    /// `take` with the session's folders and ids replaced by placeholders
    /// (`runs[0]` is the take's run; its workspace is the one replaced).
    pub fn placeholders(&self, take: Value, runs: &[RunId]) -> Value {
        let created = self.app.get_run(runs[0]).unwrap();
        let mut text = take
            .to_string()
            .replace(&created.workspace_path, super::WORKSPACE_PATH)
            .replace(&self.home.path().display().to_string(), super::DATA_FOLDER)
            .replace(&created.workspace_id.to_string(), super::WORKSPACE_ID);
        for (i, run) in runs.iter().enumerate() {
            text = text.replace(&run.to_string(), &super::run_placeholder(i));
        }
        serde_json::from_str(&text).unwrap()
    }

    /// Answers what `run` asks with `decisions` in order (as the window sends
    /// them), waits for it to end and records it as the take `name`.
    pub async fn take(&self, run: RunId, name: &str, decisions: Vec<Value>) -> Value {
        let mut made = Vec::new();
        for decision in decisions {
            made.push(self.decide(run, decision).await);
        }
        self.finish(run).await;
        let take = json!({"name": name, "decisions": made, "run": self.recorded(run).await});
        self.placeholders(take, &[run])
    }

    /// Everything recorded of a finished `run`: its updates and answers.
    pub async fn recorded(&self, run: RunId) -> Value {
        let mut value = self.answers(run);
        value["updates"] = Value::Array(self.updates(run).await);
        let proposals: Map<String, Value> = self
            .proposals
            .lock()
            .unwrap()
            .iter()
            .filter(|(r, _, _)| *r == run)
            .map(|(_, call, view)| (call.clone(), view.clone()))
            .collect();
        value["proposals"] = Value::Object(proposals);
        value
    }
}

fn run_of(e: &LiveEvent) -> Option<RunId> {
    match e {
        LiveEvent::Committed(c) => Some(c.run_id),
        LiveEvent::TextDelta { run_id, .. }
        | LiveEvent::TextDiscarded { run_id, .. }
        | LiveEvent::RunAborted { run_id, .. }
        | LiveEvent::CommandOutput { run_id, .. } => Some(*run_id),
    }
}
