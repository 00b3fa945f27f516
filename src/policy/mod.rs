//! Shell policy: what a command line does, read before it runs. The classifier parses a command
//! (tree-sitter's bash grammar) and tells read-only commands from ones that write, delete, reach
//! the network or run other programs; its rules name the safe commands, the network table, the
//! wrappers that run other commands, and where file-changing commands land. exec_shell asks it
//! before running a command, and the approvals, the sandbox's plan and task input act on its
//! answer.

pub mod classify;
pub mod network;
pub mod rules;
pub mod safe;
pub mod scope;
pub mod wrappers;
pub mod writes;
