//! Run bundles: one file that hands a run to someone else — the run, its
//! thread's earlier runs, and every blob their events reference (versions
//! of files that look like secrets withheld, as in every export). A gzip'd
//! tar of `manifest.json`, `runs/<id>.jsonl` (one event per line) and
//! `blobs/<sha256>`. Secret values found in the events and text blobs
//! (keys BearAgent holds, what secret-looking files held, token shapes) are
//! replaced by `[REDACTED:kind]` markers unless the user opts out.
//! Importing adds the runs as read-only imported runs: inspectable and
//! forkable, never continued or reviewed here.

mod manifest;
pub(crate) mod read;
pub(crate) mod redact;
pub(crate) mod scrub;
pub(crate) mod secret_values;
pub(crate) mod write;

pub use manifest::{
    ExportOptions, ImportReport, Manifest, BUNDLE_EXTENSION, BUNDLE_FORMAT, BUNDLE_VERSION,
};
pub use read::BundleError;
pub use redact::Redaction;
