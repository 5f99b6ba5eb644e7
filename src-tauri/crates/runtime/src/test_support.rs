//! What tests across the runtime share: an application on a temporary
//! data folder with a fixed clock, and a workspace folder beside it.

use crate::app::Application;
use bearagent_kernel::{FixedClock, Timestamp};
use std::sync::Arc;

pub(crate) struct TempApp {
    _home: tempfile::TempDir,
    pub ws: tempfile::TempDir,
    pub app: Application,
}

pub(crate) fn temp_app() -> TempApp {
    let home = tempfile::tempdir().unwrap();
    let ws = tempfile::tempdir().unwrap();
    let clock = FixedClock(Timestamp::from_unix_millis(1_800_000_000_000).unwrap());
    let app = Application::open(home.path(), Arc::new(clock)).unwrap();
    TempApp {
        _home: home,
        ws,
        app,
    }
}
