//! Server launch profiles: `profiles/<name>.env` files of `KEY=VALUE` lines, the overrides a
//! run applies on top of one, the effective settings, the engine they name and the command
//! that starts it.

mod command;
mod effective;
mod engine;
mod error;
mod file;
mod keys;

pub use command::{LaunchCommand, Launcher, container_name, shell_quote};
pub use effective::{Effective, Setting};
pub use engine::{Engine, Flag, SPECS, Spec};
pub use error::{Origin, ProfileError};
pub use file::{Profile, load, load_all, names, parse, parse_overrides, parse_set};
pub use keys::{KEYS, Key, Takes};
