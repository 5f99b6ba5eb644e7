//! BearAgent's application API: the use cases the desktop app and the CLI
//! both call. Front ends send commands here and render what comes back;
//! they hold no state of their own.

mod app;
mod error;
pub mod home;
pub mod logging;
mod system_clock;
mod views;

pub use app::Application;
pub use error::{AppError, ErrorCode};
pub use system_clock::SystemClock;
pub use views::{RunSummary, Workspace};
