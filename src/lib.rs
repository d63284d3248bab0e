//! benchsite: measure LLM serving on your own GPU and publish the results as a static site.
//!
//! Data flows one way: files are loaded and validated once into typed records ([`data`],
//! [`profiles`], [`config`]), then checked as a whole project ([`project`]).

pub mod campaign;
pub mod collect;
pub mod compare;
pub mod config;
pub mod data;
pub mod format;
pub mod profiles;
pub mod project;
pub mod scaffold;
pub mod serve;
pub mod site;
pub mod stats;
