//! `benchsite serve`: the site rendered in memory, served over HTTP, rebuilt when a file of the
//! project changes, and open pages reloaded through a websocket. A broken edit is reported and
//! shown over the pages while the last good site stays up.
//!
//! [`start`] runs a [`Server`] in the background; the command waits for Ctrl-C and stops it.

mod http;
mod server;
mod watch;

pub use http::LIVERELOAD;
pub use server::{Event, Options, Reporter, ServeError, Server, start};
