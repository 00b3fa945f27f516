//! What outlives one call: the `.codesmith/` state, what each session read and when (freshness,
//! journal), its checkpoints (history), the user's trust, approvals and answers, the workspace config,
//! and the context a tool call runs in.

pub mod approval;
pub mod cancel;
pub mod config;
pub mod context;
pub mod fingerprint;
pub mod freshness;
pub mod history;
pub mod journal;
pub mod question;
pub mod state;
pub mod trust;
