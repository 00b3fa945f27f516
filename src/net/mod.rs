//! The network: the policy from `.codesmith/config.toml` and what `approve --persist` writes
//! into it; the gates `fetch_url` passes every hop through (restricted addresses, pinned
//! resolution, redirects by hand), the audit log and the error scrubber.

pub mod persist;
pub mod policy;

pub use policy::{Decision, Policy};

/// The approval kind for a host the policy says to ask about.
pub const APPROVAL_KIND: &str = "network";
