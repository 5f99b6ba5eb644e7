//! BearAgent's append-only SQLite event store: migrations, event append with
//! optimistic concurrency, run projections maintained in the same
//! transaction, recent workspaces and content-addressed blobs.
#![cfg_attr(
    test,
    allow(
        clippy::disallowed_methods,
        reason = "tests write their own fixtures; the effect rule is for shipped code"
    )
)]

mod blobs;
mod changes;
mod error;
mod event_rows;
mod events;
mod imports;
mod instance;
mod owners;
mod paging;
mod projections;
mod schema;
mod store;
mod workspaces;
mod worktree_index;
mod worktree_runs;

pub use blobs::hash_bytes;
pub use changes::ChangeFeed;
pub use error::StoreError;
pub use event_rows::MAX_PAGE;
pub use imports::Imported;
pub use instance::RunOwner;
pub use owners::Ownership;
pub use projections::{RunFilter, SNAPSHOT_EVERY};
pub use schema::SCHEMA_VERSION;
pub use store::{Store, DB_FILE_NAME};
pub use workspaces::WorkspaceRecord;

#[cfg(test)]
pub(crate) mod test_support {
    use super::*;

    pub fn temp_store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open_in(dir.path()).unwrap();
        (dir, store)
    }
}
