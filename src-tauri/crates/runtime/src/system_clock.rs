use bearagent_kernel::{Clock, Timestamp};

/// The real wall clock. Only the composition roots (app, CLI) create it.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::from_datetime(time::OffsetDateTime::now_utc())
    }
}
