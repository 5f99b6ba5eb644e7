//! Logs go to stderr and to a daily-rolling file under `<home>/logs`.

use std::path::Path;
use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;
use tracing_subscriber::{fmt, EnvFilter};

/// Keep the returned guard alive for the life of the process: dropping it
/// flushes the file writer.
pub fn init(home: &Path, file_prefix: &str) -> Option<WorkerGuard> {
    init_with(home, file_prefix, "info")
}

/// For command-line use: the file gets everything, the terminal only
/// warnings and errors so it stays readable.
pub fn init_quiet(home: &Path, file_prefix: &str) -> Option<WorkerGuard> {
    init_with(home, file_prefix, "warn")
}

/// For a protocol server on stdio (`bearagent acp`): everything goes to
/// the file; stderr stays empty unless `BEARAGENT_LOG` asks.
pub fn init_file_only(home: &Path, file_prefix: &str) -> Option<WorkerGuard> {
    init_with(home, file_prefix, "off")
}

/// Lines the file writer's thread may fall behind by before new ones are
/// dropped. tracing-appender's default (128 000) makes a channel whose
/// slots are all written when it is made: 4 MB resident in every process
/// from its start (measured: the app's idle memory, issue 27). At the
/// default `info` level a process writes a few lines a minute.
const LOG_LINES_BUFFERED: usize = 4096;

fn init_with(home: &Path, file_prefix: &str, stderr_level: &str) -> Option<WorkerGuard> {
    let filter =
        EnvFilter::try_from_env("BEARAGENT_LOG").unwrap_or_else(|_| EnvFilter::new("info"));
    let stderr_filter =
        EnvFilter::try_from_env("BEARAGENT_LOG").unwrap_or_else(|_| EnvFilter::new(stderr_level));
    let dir = home.join("logs");
    // The appender prunes old files by listing the folder and prints an
    // error to stderr when it does not exist yet (a fresh home).
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!(
            "BearAgent cannot create its log folder {}: {e}",
            dir.display()
        );
    }
    let (file_layer, guard) = match tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix(file_prefix)
        .filename_suffix("log")
        .max_log_files(7)
        .build(&dir)
    {
        Ok(appender) => {
            let (writer, guard) = NonBlockingBuilder::default()
                .buffered_lines_limit(LOG_LINES_BUFFERED)
                .finish(appender);
            (
                Some(fmt::layer().with_ansi(false).with_writer(writer)),
                Some(guard),
            )
        }
        Err(_) => (None, None),
    };
    let result = tracing_subscriber::registry()
        .with(
            fmt::layer()
                .with_writer(std::io::stderr)
                .with_filter(stderr_filter),
        )
        .with(file_layer.map(|l| l.with_filter(filter)))
        .try_init();
    if result.is_err() {
        // A subscriber was already installed (tests): keep it.
        return None;
    }
    guard
}
