//! The network: the policy from `.codesmith/config.toml` and what `approve --persist` writes
//! into it; the gates `fetch_url` passes every hop through (restricted addresses, pinned
//! resolution, redirects by hand), bodies, the audit log and the error scrubber.

pub mod audit;
pub mod body;
pub mod coding;
pub mod entities;
pub mod fetch;
pub mod gates;
pub mod html;
pub mod persist;
pub mod policy;
pub mod restricted;
pub mod scrub;

pub use policy::{Decision, Policy};

/// fetch_url's byte cap: default and hard maximum.
pub const DEFAULT_MAX_BYTES: u64 = 2_000_000;
pub const MAX_BYTES_CAP: u64 = 10_000_000;

/// fetch_url's time limit for the whole call (every hop, DNS included): default and maximum.
pub const DEFAULT_TIMEOUT_MS: u64 = 30_000;
pub const MAX_TIMEOUT_MS: u64 = 120_000;
