//! IPC types of threads: the runs a follow-up or fork continues.

use super::RunSummaryView;
use bearagent_runtime::ThreadRun;
use serde::Serialize;

/// One run of a thread, oldest first; the last is the run asked about.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ThreadRunView {
    pub run: RunSummaryView,
    pub final_answer: Option<String>,
    /// For a fork: the event of the run before it that it branched at.
    pub forked_at: Option<u64>,
}

impl From<ThreadRun> for ThreadRunView {
    fn from(t: ThreadRun) -> Self {
        Self {
            run: t.summary.into(),
            final_answer: t.final_answer,
            forked_at: t.forked_at.map(|s| s.0),
        }
    }
}

/// What compacting a run by hand did, in estimated tokens.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CompactedView {
    pub tokens_before: u64,
    pub tokens_after: u64,
}

/// An image a run's events reference, ready for an `<img src>`.
#[derive(Debug, Clone, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunImageView {
    pub name: String,
    pub media_type: String,
    /// A `data:` URL of the image.
    pub data_url: String,
}

impl From<bearagent_runtime::RunImage> for RunImageView {
    fn from(i: bearagent_runtime::RunImage) -> Self {
        use base64::Engine as _;
        let data = base64::engine::general_purpose::STANDARD.encode(&i.bytes);
        Self {
            name: i.image.name,
            media_type: i.image.media_type.mime().to_owned(),
            data_url: format!("data:{};base64,{data}", i.image.media_type.mime()),
        }
    }
}
