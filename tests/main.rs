mod harness;
mod net_support;

mod apply_patch;
mod apply_patch_conformance;
mod edit_file;
mod envelope;
mod exec_shell;
mod fetch_url;
mod generated;
mod invocation;
mod list_dir;
mod read_file;
mod state;
mod tasks;
mod trust;
mod workspace_boundary;
mod write_file;
