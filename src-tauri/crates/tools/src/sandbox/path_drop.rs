//! Why a PATH entry of the user's is left out of a command's PATH: decided
//! by `env.rs`, shown by `view.rs`.

use serde::Serialize;

/// A PATH entry of the user's that the command does not get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PathDrop {
    /// Relative (`.`, empty), not UTF-8 or holding `:`: it would make the
    /// working folder's files commands.
    NotAbsolute,
    /// Inside a folder hidden from commands (BearAgent's data and
    /// configuration).
    HiddenFolder,
    /// Inside the home folder, in no folder bound back (a toolchain folder
    /// of the profile would pass it in).
    HomeNotBound,
}
